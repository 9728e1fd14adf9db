"""Measurements that need a fresh Python process: app cold start and peak memory (RSS).

Each runs ``python -m bench.process <probe> ...`` in a subprocess, which prints one JSON line;
a fresh process is the only honest way to measure imports and a peak resident set size.

>>> parse_probe_output('noise\\n{"seconds": 1.5}\\n')
{'seconds': 1.5}
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

from bench.core import REPO_ROOT, Context, Row, check, median

PROBE_TIMEOUT_S = 600


def parse_probe_output(stdout: str) -> dict:
    """The last line that is a JSON object (libraries may print before it)."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError(f"The probe printed no JSON line; its output was:\n{stdout[-2000:]}")


def run_probe(*args: str) -> tuple[dict, float]:
    """Run a probe in a fresh interpreter: (its JSON, wall seconds including interpreter start)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "GRADIO_ANALYTICS_ENABLED": "False", "TOKENIZERS_PARALLELISM": "false"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bench.process", *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"probe {args} failed:\n{done.stderr[-3000:]}")
    return parse_probe_output(done.stdout), wall


# ---------------------------------------------------------------------------------------------
# What runs inside the subprocess


def probe_cold_start() -> dict:
    start = time.perf_counter()
    from playground.ui.app import build_demo

    imported = time.perf_counter()
    build_demo()
    built = time.perf_counter()
    return {"import_s": imported - start, "build_s": built - imported, "total_s": built - start}


def rss_mib(field: str) -> float:
    """A memory line of /proc/self/status in MiB (VmRSS now, VmHWM peak); NaN elsewhere."""
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # the kernel reports kB
    except OSError:
        pass
    return float("nan")


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (Linux: write 5 to clear_refs); False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def probe_train_rss(preset_name: str, steps: int, quick: bool) -> dict:
    """Peak RSS of a short run at a preset: data, model, optimiser state and ``steps`` steps."""
    import torch

    from bench.core import TEXT_PATH
    from playground.config import PRESETS, replace
    from playground.model import GPT
    from playground.tokenizer import train_tokenizer
    from playground.train import Trainer, prepare_data

    preset = PRESETS[preset_name]
    model_cfg, train_cfg = preset.model, preset.train
    text = TEXT_PATH.read_text(encoding="utf-8")
    if quick:
        text = text[:60_000]
        model_cfg = replace(model_cfg, n_layer=1, n_head=2, n_embd=16, block_size=16)
        train_cfg = replace(train_cfg, batch_size=4, grad_accum=1)
    before_mib = rss_mib("VmRSS")
    reset = _reset_peak_rss()  # so the peak is the run's, not an import's transient
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, train_cfg.val_fraction)
    model = GPT(replace(model_cfg, vocab_size=tok.vocab_size))
    # no scheduled evaluation and no end within the probe: only the steps are measured
    cfg = replace(train_cfg, max_steps=10_000_000, eval_interval=10_000_000, eval_iters=1,
                  sample_tokens=0, device="cpu")
    trainer = Trainer(model, train_ids, val_ids, cfg, device="cpu")
    start = time.perf_counter()
    records = list(trainer.run(max_steps=steps))
    seconds = time.perf_counter() - start
    peak_mib = rss_mib("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"peak_rss_mib": peak_mib, "baseline_rss_mib": before_mib, "peak_is_run_only": reset,
            "dtype": str(trainer.dtype).replace("torch.", ""), "steps": trainer.step,
            "end": records[-1].reason, "seconds": seconds,
            "params": model.num_params(), "threads": torch.get_num_threads()}


# ---------------------------------------------------------------------------------------------
# Sections


def cold_start(ctx: Context) -> list[Row]:
    repeats = 1 if ctx.quick else 3
    try:
        results = [run_probe("cold-start") for _ in range(repeats)]
    except RuntimeError as error:
        return [Row("app", "cold start: import + build_demo()", None, "s", "<= 8 s",
                    note=f"failed: {str(error).strip().splitlines()[-1][:120]}")]
    total = median([r["total_s"] for r, _ in results])
    wall = median([w for _, w in results])
    return [
        Row("app", "cold start: import + build_demo()", total, "s", "<= 8 s",
            met=check(total, 8.0, higher_is_better=False),
            note=f"import {median([r['import_s'] for r, _ in results]):.2f} s, build "
                 f"{median([r['build_s'] for r, _ in results]):.2f} s; median of {repeats}"),
        Row("app", "cold start incl. interpreter", wall, "s", note="fresh subprocess, wall clock"),
    ]


def peak_memory(ctx: Context) -> list[Row]:
    from playground.config import PRESETS

    rows = []
    for name in PRESETS:
        steps = 2 if ctx.quick else 3
        try:
            result, _ = run_probe("train-rss", name, str(steps), *(["--quick"] if ctx.quick else []))
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            rows.append(Row("memory", f"peak RSS, {name}", None, "MiB",
                            note=f"failed: {str(error).strip().splitlines()[-1][:120]}"))
            continue
        rows.append(Row("memory", f"peak RSS, {name}", result["peak_rss_mib"], "MiB",
                        note=f"{result['params']:,} params, {result['dtype']}, "
                             f"{result['steps']} steps in {result['seconds']:.1f} s; "
                             f"{result['baseline_rss_mib']:.0f} MiB resident after imports"
                             + ("" if result["peak_is_run_only"] else "; peak since start")))
    return rows


def main(argv: list[str]) -> None:
    if argv[0] == "cold-start":
        result = probe_cold_start()
    elif argv[0] == "train-rss":
        result = probe_train_rss(argv[1], int(argv[2]), quick="--quick" in argv)
    else:
        raise SystemExit(f"unknown probe {argv[0]!r}")
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
