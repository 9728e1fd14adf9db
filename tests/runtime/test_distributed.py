"""Data-parallel training on the CPU with gloo: the real torchrun launcher, and DDP in spawned
processes. Two processes with half the batch each must follow one process with the whole
batch; only rank 0 writes; every process agrees when to stop; one failing process ends the
run with its error instead of a hang.

Every run is tiny (one layer, 16 wide, a few steps), each process has one thread, and each
collective gives up after PLAYGROUND_DIST_TIMEOUT = 60 s, so a broken test fails, never hangs.
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

from playground.checkpoint import load_bundle
from playground.cli import main
from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.runtime.device import DeviceError
from playground.runtime.distributed import DistInfo, barrier, cleanup, init_distributed
from playground.model import GPT
from playground.train import EvalRecord, StepRecord, Trainer

from checks import REPO, tiny_flags

RUN_TIMEOUT_S = 240  # a whole torchrun run; a few seconds when the machine is idle
FLAGS = tiny_flags(dropout=0, batch_size=8)  # the whole batch of 8, or 4 for each of two


def worker_env(**extra) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1",
           "PLAYGROUND_DIST_TIMEOUT": "60", **extra}
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "TORCHELASTIC_RUN_ID"):
        env.pop(name, None)  # the launcher sets them for its processes
    return env


FAILING_TRAIN = Path(__file__).with_name("failing_train.py")  # the CLI with one failing process


def torchrun(tmp_path, *argv, nproc=2, entry=("-m", "playground"), **env) -> subprocess.CompletedProcess:
    """`torchrun --standalone --nproc_per_node=2 -m playground train ...` (a free port itself)."""
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
           f"--nproc_per_node={nproc}", *map(str, entry), "train", *map(str, argv)]
    return subprocess.run(cmd, cwd=tmp_path, env=worker_env(**env), capture_output=True,
                          text=True, timeout=RUN_TIMEOUT_S)


def window_starts(trainer, batch_size: int = 8) -> torch.Tensor:
    """The same ``batch_size`` window starts in every process (a generator seeded alike)."""
    return torch.randint(len(trainer.train_ids) - trainer.block_size, (batch_size,),
                         generator=torch.Generator().manual_seed(5))


def step_losses(history) -> list[float]:
    return [r.loss for r in history if isinstance(r, StepRecord)]


def eval_losses(history) -> list[tuple[int, float, float]]:
    return [(r.step, r.train_loss, r.val_loss) for r in history if isinstance(r, EvalRecord)]


# ---------------------------------------------------------------------------------------------
# The launcher, end to end


def test_two_processes_with_half_the_batch_follow_one_process_with_the_whole_batch(
        tmp_path, corpus_file, capsys):
    # nanoGPT's single stream: evaluations and batches interleave, so the processes must
    # draw alike for evaluations too (the default "separate" streams: see below)
    common = ["--corpus", corpus_file, *FLAGS, "--max_steps", 6, "--eval_interval", 3,
              "--rng_stream", "nanogpt"]
    assert main([str(a) for a in ["train", *common, "--out", tmp_path / "one.zip"]]) == 0
    one_out = capsys.readouterr().out

    result = torchrun(tmp_path, *common, "--out", tmp_path / "two.zip")
    assert result.returncode == 0, result.stderr

    one, two = load_bundle(tmp_path / "one.zip"), load_bundle(tmp_path / "two.zip")
    # the same windows, gradients averaged by DDP: equal up to the order of float additions
    assert step_losses(two.history) == pytest.approx(step_losses(one.history), rel=1e-5)
    assert len(step_losses(two.history)) == 6
    one_evals, two_evals = eval_losses(one.history), eval_losses(two.history)
    assert [e[0] for e in two_evals] == [e[0] for e in one_evals] == [0, 3, 6]
    assert [e[1:] for e in two_evals] == [pytest.approx(e[1:], rel=1e-5) for e in one_evals]
    for name, w in one.model.state_dict().items():
        torch.testing.assert_close(two.model.state_dict()[name], w, rtol=1e-4, atol=1e-6)

    # only rank 0 printed: one header, one line per evaluation, one JSON summary
    lines = result.stdout.strip().splitlines()
    assert sum(line.startswith("corpus:") for line in lines) == 1
    assert [line.split(":")[0] for line in lines if line.startswith("step")] == [
        "step      0", "step      3", "step      6"]
    summary, single = json.loads(lines[-1]), json.loads(one_out.strip().splitlines()[-1])
    assert sum(line.startswith("{") for line in lines) == 1
    assert (summary["world_size"], single["world_size"]) == (2, 1)
    assert summary["batch_size"] == single["batch_size"] == 8  # the global batch
    assert summary["step"] == 6 and summary["reason"] == "done"
    assert "data-parallel: 2 processes, 8 sequences per step in all (4 each)" in result.stdout

    # the bundle was written once, by rank 0, with nothing left beside it
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "gradio") == [
        "corpus.txt", "one.zip", "two.zip"]
    # and it is an ordinary bundle: the same parts as a single process's
    assert two.model_config == one.model_config and two.train_config == one.train_config
    assert two.tokenizer.to_json() == one.tokenizer.to_json()
    assert two.trainer_state["step"] == one.trainer_state["step"] == 6
    assert two.trainer_state.keys() == one.trainer_state.keys()

    # `generate` reads it like any other
    assert main(["generate", str(tmp_path / "two.zip"), "--prompt", "First", "--max_new_tokens",
                 "20", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("First") and len(text) == len("First") + 20 + 1  # one char per token

    # and so does the app's upload box
    from playground.ui import train_tab

    session, resume, _, status, *_ = train_tab.upload_bundle(None, str(tmp_path / "two.zip"))
    assert status.startswith("**Loaded**") and "trained 6 steps" in status and resume is True
    idx = torch.tensor([two.tokenizer.encode("First")])
    assert torch.equal(session.trained.model.eval()(idx).logits, two.model(idx).logits)


def test_one_failing_process_ends_the_run_with_its_error(tmp_path, corpus_file):
    result = torchrun(tmp_path, "--corpus", corpus_file, *FLAGS, "--max_steps", 100_000,
                      "--eval_interval", 100_000, "--out", tmp_path / "never.zip",
                      entry=[FAILING_TRAIN], FAIL_RANK="1", FAIL_STEP="3")
    assert result.returncode != 0
    assert "injected failure in process 1 at step 3" in result.stderr
    assert "Process 1 of 2 failed at step 3: RuntimeError: injected failure" in result.stderr
    assert "training failed at step" not in result.stderr  # no log of its own beside torchrun's
    assert "weights" not in result.stderr  # nothing is kept: the run ends with no bundle
    assert "Root Cause" in result.stderr  # torchrun's report names the first failure
    assert not (tmp_path / "never.zip").exists()
    assert not [p for p in tmp_path.iterdir() if ".zip" in p.name]  # no partial bundle either


# ---------------------------------------------------------------------------------------------
# The trainer in spawned processes: agreement between ranks


VOCAB, BLOCK = 16, 16


def tiny_model() -> GPT:
    torch.manual_seed(0)
    return GPT(ModelConfig(vocab_size=VOCAB, block_size=BLOCK, n_layer=1, n_head=2, n_embd=16))


def tiny_config(**changes) -> TrainConfig:
    cfg = dict(max_steps=12, batch_size=8, lr=1e-2, min_lr=1e-3, warmup_steps=2,
               eval_interval=100, eval_iters=2, device="cpu", dtype="float32")
    return TrainConfig(**{**cfg, **changes})


def token_stream(n=600) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    jumps = torch.randint(VOCAB, (n,), generator=g) * (torch.rand(n, generator=g) < 0.2)
    return (torch.arange(n) + jumps.cumsum(0)) % VOCAB


def make_trainer(model, config, dist=None) -> Trainer:
    ids = token_stream()
    return Trainer(model, ids[:500], ids[500:], config, dist=dist)


def nan_at_training_forward(model, k):
    """The k-th training forward pass of ``model`` returns a NaN loss."""
    calls = []

    def hook(module, inputs, out):
        if module.training:
            calls.append(1)
            if len(calls) == k:
                return out._replace(loss=out.loss * float("nan"))
        return out

    model.register_forward_hook(hook)


def _agreement_worker(rank: int, world_size: int, port: int, out_dir: str) -> None:
    """One process: three short runs, each where only rank 1 does something; results to JSON."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      LOCAL_RANK=str(rank), WORLD_SIZE=str(world_size))
    torch.set_num_threads(1)
    dist = init_distributed("cpu", timeout_s=60)
    results = {}
    try:
        # only rank 1 asks to stop, after step 2: every rank stops there
        trainer = make_trainer(tiny_model(), tiny_config(), dist)
        for record in trainer.run():
            if rank == 1 and isinstance(record, StepRecord) and record.step == 2:
                trainer.stop()
        results["stop"] = [record.reason, record.step]

        # only rank 1's 4th step has a NaN loss: every rank ends on "nan" after step 3
        model = tiny_model()
        if rank == 1:
            nan_at_training_forward(model, 4)
        trainer = make_trainer(model, tiny_config(grad_clip=0.0), dist)
        records = list(trainer.run())
        results["nan"] = [records[-1].reason, records[-1].step]
        results["finite"] = all(bool(torch.isfinite(p).all()) for p in model.parameters())

        # a whole run with grad_accum: evaluations averaged, the weights equal on both ranks
        model = tiny_model()
        trainer = make_trainer(model, tiny_config(max_steps=4, grad_accum=2, eval_interval=2), dist)
        records = list(trainer.run())
        results["losses"] = [r.loss for r in records if isinstance(r, StepRecord)]
        results["evals"] = [[r.train_loss, r.val_loss] for r in records if isinstance(r, EvalRecord)]
        results["weights"] = [p.detach().double().sum().item() for p in model.parameters()]
        # the batch this rank trains on: its half of the global batch
        x, _ = trainer._gather(trainer.train_ids, window_starts(trainer))
        results["batch"] = x.tolist()
        # leave together, as the CLI does: a process that tears its connections down while
        # the other still uses them can abort the other ("terminate called", seen once in CI)
        barrier(dist)
    finally:
        cleanup()
    Path(out_dir, f"rank{rank}.json").write_text(json.dumps(results))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_all_processes_agree_on_stop_nan_evaluation_and_weights(tmp_path):
    context = mp.start_processes(_agreement_worker, args=(2, free_port(), str(tmp_path)),
                                 nprocs=2, join=False, start_method="spawn")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    try:  # join() returns when any process ends (raising if one failed), True once all did
        while not context.join(timeout=max(1.0, deadline - time.monotonic())):
            assert time.monotonic() < deadline, "the spawned processes did not finish"
    finally:
        for process in context.processes:
            if process.is_alive():
                process.kill()
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]

    for result in ranks:
        assert result["stop"] == ["stopped", 2]
        assert result["nan"] == ["nan", 3]
        assert result["finite"] is True
    assert ranks[0]["losses"] == ranks[1]["losses"]  # all-reduced: the same numbers
    assert ranks[0]["evals"] == ranks[1]["evals"]
    assert ranks[0]["weights"] == ranks[1]["weights"]  # DDP kept the copies equal

    # one process with the whole batch, grad_accum 2 as well: the same windows, the same run
    model = tiny_model()
    trainer = make_trainer(model, tiny_config(max_steps=4, grad_accum=2, eval_interval=2))
    whole, _ = trainer._gather(trainer.train_ids, window_starts(trainer))  # (8, T)
    halves = [torch.tensor(r["batch"]) for r in ranks]
    assert [h.shape for h in halves] == [(4, BLOCK)] * 2
    assert torch.equal(torch.cat(halves), whole)
    records = list(trainer.run())
    assert ranks[0]["losses"] == pytest.approx(
        [r.loss for r in records if isinstance(r, StepRecord)], rel=1e-5)
    single_evals = [[r.train_loss, r.val_loss] for r in records if isinstance(r, EvalRecord)]
    assert ranks[0]["evals"] == [pytest.approx(e, rel=1e-5) for e in single_evals]
    assert ranks[0]["weights"] == pytest.approx(
        [p.detach().double().sum().item() for p in model.parameters()], rel=1e-4, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# Without a process group: defaults and refusals


def test_a_plain_process_is_rank_0_of_1_and_joins_no_group():
    for env in ({}, {"WORLD_SIZE": "1", "RANK": "0", "LOCAL_RANK": "0"}):
        info = init_distributed("auto", env=env)
        assert info == DistInfo() and info.is_main and not info.enabled and info.device is None
    assert not torch.distributed.is_initialized()


@pytest.mark.parametrize("world_size, grad_accum, batch_size, advice", [
    (3, 1, 8, "multiple of 3. Try batch_size 9 or 6."),
    (2, 2, 6, "multiple of 4. Try batch_size 8 or 4."),
    (4, 2, 4, "multiple of 8. Try batch_size 8."),
])
def test_a_global_batch_that_does_not_split_is_refused_with_advice(
        world_size, grad_accum, batch_size, advice):
    config = tiny_config(batch_size=batch_size, grad_accum=grad_accum)
    with pytest.raises(ConfigError, match="is the global batch") as error:
        make_trainer(tiny_model(), config, DistInfo(rank=0, world_size=world_size))
    assert str(error.value).endswith(advice)


@pytest.mark.parametrize("device, env, error, message", [
    ("mps", {}, DeviceError, "CUDA GPUs (NCCL) or on CPUs (gloo)"),
    ("cuda:1", {}, DeviceError, "LOCAL_RANK"),
    ("cpu", {"RANK": None}, ConfigError, "RANK is not"),
    ("cpu", {"PLAYGROUND_DIST_TIMEOUT": "soon"}, ConfigError, "PLAYGROUND_DIST_TIMEOUT"),
    ("cpu", {"PLAYGROUND_DIST_TIMEOUT": "0"}, ConfigError, "above 0"),
])
def test_what_cannot_run_data_parallel_is_refused_before_joining(device, env, error, message):
    base = {"WORLD_SIZE": "2", "RANK": "0", "LOCAL_RANK": "0", **env}
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        init_distributed(device, env={k: v for k, v in base.items() if v is not None})
    assert not torch.distributed.is_initialized()


def test_the_module_and_the_trainer_import_no_gradio():  # examples: tests/test_doctests.py
    code = "import sys, playground.runtime.distributed, playground.train; print('gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO)
    assert out.stdout.strip() == "False"
