"""The memory estimate is the whole run's (issue 14): a run's measured peak, from building the
model to its saved bundle, is within 1.3x of ``estimate_memory`` for every preset and for a
100M-parameter model.

Before, the estimate left out the bundle's save (the optimizer's state cloned, then copied
again by safetensors and the zip), the buffers and the corpus: a 99.8M-parameter run peaked at
+4.13 GB against an estimate of 1.78 GB (2.3x). Each run here goes in its own process, whose
peak resident memory (``VmHWM``, reset after a warm-up run has paged in PyTorch) is read from
/proc: the test measures memory, never time.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from playground.config import PRESETS

REPO = Path(__file__).resolve().parents[1]

# One run in a fresh process: a warm-up run first (PyTorch pages in its kernels and thread pools
# once per process, and each switch's kernels on first use), then the high-water mark is reset and the measured run
# is prepared, trained, evaluated and saved. Prints the estimate and the peak above the baseline.
CHILD = r"""
import json, sys, tempfile
from dataclasses import replace
from pathlib import Path
import torch
torch.set_num_threads(2)
from playground.checkpoint import save_bundle
from playground.config import PRESETS, ModelConfig, TrainConfig
from playground.corpus import load_tiny_shakespeare
from playground.model import estimate_memory
from playground import prepare
from playground.prepare import prepare_run
from playground.tokenizer import train_tokenizer

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024

def whole_run(corpus, tok, model_cfg, train_cfg):
    run = prepare_run(corpus, tok, model_cfg, train_cfg, check_free_memory=False)
    trainer = run.trainer()
    for _ in trainer.run():
        pass
    with tempfile.TemporaryDirectory() as folder:
        save_bundle(Path(folder) / "run.zip", run.trained.model, tok, train_cfg, trainer.history,
                    trainer.state_dict())
    return run.trained.model.num_params()

spec = json.loads(sys.argv[1])
corpus = load_tiny_shakespeare("bundled")
tok = train_tokenizer("char", corpus.text)
if "preset" in spec:
    model_cfg, train_cfg = PRESETS[spec["preset"]].model, PRESETS[spec["preset"]].train
else:
    model_cfg, train_cfg = ModelConfig(**spec["model"]), TrainConfig()
model_cfg = replace(model_cfg, vocab_size=tok.vocab_size)
train_cfg = replace(train_cfg, **spec["train"])
# the warm-up has the measured run's switches and optimizer at a tiny size, so every kernel
# the measured run calls is paged in first
whole_run(corpus, tok, replace(model_cfg, block_size=8, n_layer=1, n_head=1, n_embd=8),
          replace(train_cfg, max_steps=2, batch_size=2, eval_interval=2, eval_iters=1,
                  sample_tokens=4))
estimate = estimate_memory(model_cfg, train_cfg, data_tokens=len(corpus.text))
prepare._data_cache.clear()  # the measured run encodes its text, as a first run does
open("/proc/self/clear_refs", "w").write("5")  # VmHWM := VmRSS
base = status("VmRSS")
params = whole_run(corpus, tok, model_cfg, train_cfg)
print(json.dumps({"params": params, "estimate": estimate, "peak": status("VmHWM") - base}))
"""

# six steps: the allocator keeps growing for a few steps (nanogpt-gpu at batch 8 peaked at
# 616 MB after two steps, 826 MB after six), and a real run's peak is the later one
# float32, the number format the estimate counts: where the probe picks bf16 autocast (this
# machine, at width 384) the activations take less (nanogpt-gpu at batch 8: 617 MB against
# 826 MB), and the estimate stays above the peak
SHORT = {"max_steps": 6, "eval_interval": 6, "eval_iters": 2, "device": "cpu", "dtype": "float32"}
# a GPU recipe's batch on a CPU takes gigabytes and minutes (nanogpt-gpu: 4.5 GB at batch 64,
# within 1.02x): its model is measured at a batch of 8
GPU_RECIPE_ON_CPU = {"batch_size": 8}
RUNS = {name: {"preset": name, "train": {**SHORT, **(GPU_RECIPE_ON_CPU if preset.gpu_recipe else {})}}
        for name, preset in PRESETS.items()}
RUNS["100M"] = {"model": {"block_size": 64, "n_layer": 12, "n_head": 8, "n_embd": 832},
                "train": {**SHORT, "batch_size": 4, "warmup_steps": 1, "eval_iters": 1}}


def measure(spec: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# What the kernels take beside the tensors depends on the CPU (its matmul library's packing
# buffers and blocking): the small presets' peaks are estimated closely on an AVX512-AMX Xeon
# (0.85-1.07 of the estimate) but come in lower on an AMD EPYC (tiny 0.67, nanogpt-cpu 0.75;
# AVX2-only: tiny 0.69). Under-estimating is the danger and is held to 1.3x on every run; an
# over-estimate of a run this small is tens of MB, which decides no admission, so from below a
# run may also be within this many bytes of its estimate.
SMALL_OVERESTIMATE = 32 * 2**20


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="reads Linux's /proc")
@pytest.mark.parametrize("name", list(RUNS))
def test_the_measured_peak_of_a_whole_run_is_within_1_3x_of_the_estimate(name):
    # the higher of two runs: the same run's peak moves by about 5% with where the allocator
    # puts things (nanogpt-gpu at batch 8: 571 and 598 MB in two runs, one after the other)
    figures = max((measure(RUNS[name]) for _ in range(2)), key=lambda f: f["peak"])
    if name == "100M":
        assert 99e6 < figures["params"] < 101e6
    ratio = figures["peak"] / figures["estimate"]
    assert ratio <= 1.3, figures
    assert ratio >= 1 / 1.3 or figures["estimate"] - figures["peak"] <= SMALL_OVERESTIMATE, figures
