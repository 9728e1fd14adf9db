"""Training benchmarks: throughput beside nanoGPT, the app path's overhead, and ``train_until``.

Comparisons are interleaved: each contender runs a chunk of steps in turn, round after round,
and each figure is the median over its chunks. Other load on the machine then slows every
contender alike, and the ratios stay meaningful even where the absolute times do not.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

from bench.core import Context, Row, check, flops_per_token, median
from playground.config import PRESETS, ModelConfig, TrainConfig, replace
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord, StepRecord, Trainer, lr_at, prepare_data

NEVER = 10_000_000  # a step count no benchmark reaches: no scheduled evaluation, no end


def char_data(ctx: Context):
    """Tiny Shakespeare, character level, nanoGPT's 90/10 split: (tokenizer, train, val)."""
    text = ctx.shakespeare()
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, val_fraction=0.1)
    return tok, train_ids, val_ids


def quick_model(cfg: ModelConfig) -> ModelConfig:
    """A tiny stand-in of ``cfg`` for --quick runs (same variants, a fraction of the size)."""
    return replace(cfg, n_layer=1, n_head=2, n_embd=16, block_size=16)


# ---------------------------------------------------------------------------------------------
# Contenders: each is a callable that runs ``k`` more training steps.


def trainer_runner(trainer: Trainer, on_record: Callable | None = None) -> Callable[[int], None]:
    """Drive our ``Trainer`` through its generator, k steps per call (as the CLI and app do)."""

    def run(k: int) -> None:
        for record in trainer.run(max_steps=k):
            if on_record is not None:
                on_record(record)

    return run


def bare_runner(model: GPT, train_ids: torch.Tensor, cfg: TrainConfig) -> Callable[[int], None]:
    """The same step as the Trainer's, written as a plain loop: no generator, no records.

    Same batch gather, same lr schedule, same clip and ``.item()`` reads, so the difference
    to ``trainer_runner`` is only what the generator and its records cost.
    """
    opt = model.configure_optimizer(cfg.weight_decay, cfg.lr, (cfg.beta1, cfg.beta2), "cpu")
    params = [p for g in opt.param_groups for p in g["params"]]
    gen = torch.Generator().manual_seed(cfg.seed)
    T = model.config.block_size
    arange = torch.arange(T + 1)
    state = {"step": 0}

    def run(k: int) -> None:
        for _ in range(k):
            lr = lr_at(state["step"], cfg)
            for group in opt.param_groups:
                group["lr"] = lr
            starts = torch.randint(len(train_ids) - T, (cfg.batch_size,), generator=gen)
            window = train_ids[starts[:, None] + arange]  # (B, T + 1)
            x, y = window[:, :-1].contiguous(), window[:, 1:].contiguous()
            loss = model(x, y).loss
            loss.backward()
            loss.item()
            norm = torch.nn.utils.clip_grad_norm_(params, cfg.grad_clip)
            math.isfinite(norm.item())
            opt.step()
            opt.zero_grad(set_to_none=True)
            state["step"] += 1

    return run


def app_runner(trainer: Trainer, history_size: int = 0) -> Callable[[int], None]:
    """The Trainer plus what the app's train tab does per record (``ui/train_tab.train_model``).

    Every record is appended to a live list; when the tab's push interval has
    passed (``train_tab.next_push_interval``: at most 4 a second, fewer when the figure is
    slow to build) the loss figure is rebuilt from that list and serialised, as Gradio does.
    ``history_size`` pre-fills the list with that many step records, so the figure costs
    what it costs in the middle of a real run rather than at its first steps.
    """
    from playground.plots import loss_figure
    from playground.ui.train_tab import next_push_interval

    live = [StepRecord(i, i, 4.0 - i / 1000, 1e-3, 1.0, i / 20) for i in range(history_size)]
    last = {"t": 0.0, "interval": 0.0}

    def on_record(record) -> None:
        live.append(record)
        now = time.perf_counter()
        if now - last["t"] >= last["interval"]:
            figure = loss_figure(live)
            built = time.perf_counter()
            figure.to_json()
            last["t"], last["interval"] = built, next_push_interval(built - now)

    return trainer_runner(trainer, on_record)


def interleave(runners: dict[str, Callable[[int], None]], steps_per_chunk: int, rounds: int,
               warmup_steps: int) -> dict[str, float]:
    """Median seconds per step of each runner, chunks taken in turn over ``rounds`` rounds."""
    for run in runners.values():
        run(warmup_steps)
    per_step: dict[str, list[float]] = {name: [] for name in runners}
    for r in range(rounds):
        names = list(runners)
        if r % 2:  # alternate the order so neither always runs right after the other
            names.reverse()
        for name in names:
            start = time.perf_counter()
            runners[name](steps_per_chunk)
            per_step[name].append((time.perf_counter() - start) / steps_per_chunk)
    return {name: median(times) for name, times in per_step.items()}


def _trainer(model_cfg: ModelConfig, train_cfg: TrainConfig, train_ids, val_ids) -> Trainer:
    torch.manual_seed(train_cfg.seed)
    cfg = replace(train_cfg, max_steps=NEVER, eval_interval=NEVER, eval_iters=1, sample_tokens=0)
    return Trainer(GPT(model_cfg), train_ids, val_ids, cfg, device="cpu")


# ---------------------------------------------------------------------------------------------
# Section 1: throughput at nanoGPT's CPU recipe, beside nanoGPT itself


def throughput(ctx: Context) -> list[Row]:
    from bench.reference.nanogpt_loop import NanoGPTRecipe, NanoGPTTrainer, write_token_file

    tok, train_ids, val_ids = char_data(ctx)
    preset = PRESETS["nanogpt-cpu"]
    model_cfg = replace(preset.model, vocab_size=tok.vocab_size)
    recipe = NanoGPTRecipe()
    if ctx.quick:
        model_cfg = quick_model(model_cfg)
        recipe = NanoGPTRecipe(n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4)
    train_cfg = replace(preset.train, batch_size=recipe.batch_size, dtype="float32", device="cpu")
    ours = _trainer(model_cfg, train_cfg, train_ids, val_ids)
    runners = {"ours": trainer_runner(ours)}
    # PyTorch's fused AdamW kernel on the CPU, measured beside ours whenever
    # model.configure_optimizer does not use it already
    fused = _trainer(model_cfg, train_cfg, train_ids, val_ids)
    if not fused.optimizer.defaults.get("fused"):
        fused.optimizer = torch.optim.AdamW(
            [{"params": g["params"], "weight_decay": g["weight_decay"]}
             for g in fused.optimizer.param_groups],
            lr=train_cfg.lr, betas=(train_cfg.beta1, train_cfg.beta2), fused=True)
        runners["ours-fused"] = trainer_runner(fused)
    # the preset as a user gets it: dtype "auto" lets the bf16 probe decide
    auto = _trainer(model_cfg, replace(train_cfg, dtype="auto"), train_ids, val_ids)
    if auto.dtype != torch.float32:
        runners["ours-auto"] = trainer_runner(auto)
    with tempfile.TemporaryDirectory() as tmp:
        train_bin = write_token_file(train_ids.numpy(), Path(tmp) / "train.bin")
        ref = NanoGPTTrainer(train_bin, tok.vocab_size, recipe, seed=train_cfg.seed)
        runners["nanogpt"] = lambda k: [ref.step() for _ in range(k)]
        chunk, rounds = (3, 2) if ctx.quick else (20, 10)
        sec = interleave(runners, chunk, rounds, warmup_steps=2 if ctx.quick else 10)

    ctx.shared.update(nanogpt_s_per_step=sec["nanogpt"], ours_s_per_step=sec["ours"])
    n_params = ours.model.num_params(non_embedding=True)
    fpt = flops_per_token(model_cfg.n_layer, model_cfg.n_head, model_cfg.head_size,
                          model_cfg.block_size, n_params)
    tokens_per_step = recipe.batch_size * model_cfg.block_size
    peak = ctx.peak(torch.float32)
    achieved = fpt * tokens_per_step / sec["ours"]
    ratio = sec["ours"] / sec["nanogpt"]
    shape = (f"{model_cfg.n_layer}L x {model_cfg.n_embd}, ctx {model_cfg.block_size}, "
             f"batch {recipe.batch_size}, fp32, {torch.get_num_threads()} threads")
    rows = [
        Row("train", "ms/step, ours (nanogpt-cpu, fp32)", 1000 * sec["ours"], "ms", note=shape),
        Row("train", "ms/step, nanoGPT reference", 1000 * sec["nanogpt"], "ms",
            note="vendored model.py + train.py step, same run, interleaved"),
        Row("train", "ours / nanoGPT time per step", ratio, "x", "<= 1.0",
            met=check(ratio, 1.0, higher_is_better=False)),
        Row("train", "tokens/s, ours", tokens_per_step / sec["ours"], "tok/s"),
        Row("train", "tokens/s, nanoGPT", tokens_per_step / sec["nanogpt"], "tok/s"),
        Row("train", "achieved FLOP/s, ours", achieved, "FLOP/s",
            note=f"6N + 12LHQT = {fpt:,.0f} FLOP/token, N = {n_params:,} non-embedding"),
        Row("train", "matmul peak fp32 (measured)", peak, "FLOP/s", note="2048^3 matmul, best of 3"),
        Row("train", "MFU, ours (fp32 peak)", achieved / peak, "fraction"),
    ]
    if "ours-fused" in sec:
        rows.insert(2, Row("train", "ms/step, ours with fused AdamW",
                           1000 * sec["ours-fused"], "ms",
                           note=f"{sec['ours-fused'] / sec['nanogpt']:.3f}x nanoGPT; "
                                "configure_optimizer(fused=True) on CPU as well"))
    if "ours-auto" in sec:
        rows.insert(2, Row(
            "train", f"ms/step, ours at dtype auto ({str(auto.dtype).replace('torch.', '')})",
            1000 * sec["ours-auto"], "ms",
            note="what the preset gets by default: the bf16 probe says yes on this CPU"))
    return rows


# ---------------------------------------------------------------------------------------------
# Section 2: the app's path against the bare loop


def app_overhead(ctx: Context) -> list[Row]:
    tok, train_ids, val_ids = char_data(ctx)
    preset = PRESETS["nanogpt-cpu"]
    model_cfg = replace(preset.model, vocab_size=tok.vocab_size)
    if ctx.quick:
        model_cfg = quick_model(model_cfg)
    train_cfg = replace(preset.train, dtype="float32", device="cpu")
    torch.manual_seed(train_cfg.seed)
    bare_model = GPT(model_cfg)
    runners = {
        "bare": bare_runner(bare_model, train_ids, replace(train_cfg, max_steps=NEVER)),
        "trainer": trainer_runner(_trainer(model_cfg, train_cfg, train_ids, val_ids)),
        "app": app_runner(_trainer(model_cfg, train_cfg, train_ids, val_ids),
                          history_size=0 if ctx.quick else train_cfg.max_steps // 2),
    }
    chunk, rounds = (3, 2) if ctx.quick else (40, 8)
    sec = interleave(runners, chunk, rounds, warmup_steps=2 if ctx.quick else 10)
    generator_cost = sec["trainer"] / sec["bare"] - 1
    app_cost = sec["app"] / sec["bare"] - 1
    return [
        Row("app-path", "ms/step, bare loop", 1000 * sec["bare"], "ms", note="nanogpt-cpu, fp32"),
        Row("app-path", "ms/step, Trainer generator", 1000 * sec["trainer"], "ms"),
        Row("app-path", "ms/step, Trainer + loss plot 4/s", 1000 * sec["app"], "ms",
            note="loss_figure(live).to_json() at the tab's push interval, history of 1,000+ records"),
        Row("app-path", "generator overhead vs bare", 100 * generator_cost, "%"),
        Row("app-path", "app path overhead vs bare", 100 * app_cost, "%", "<= 3%",
            met=check(100 * app_cost, 3.0, higher_is_better=False)),
    ]


# ---------------------------------------------------------------------------------------------
# Time to quality (the presets and gpu sections of bench/speedrun.py use it)


def run_to_target(model_cfg: ModelConfig, train_cfg: TrainConfig, text: str, target: float,
                  device: str = "cpu") -> Iterator[None]:
    """Train from scratch until the first evaluation with val loss <= target (or the end),
    yielding after every training step; returns ``(trainer, hit, last, step_times)``.

    Everything a user waits for happens inside it: the tokenizer, the split, the model, the
    steps, the evaluations and their samples (``sample_tokens`` each). ``train_until`` runs it
    in one go; ``interleave_runs`` runs it beside nanoGPT's loop.
    """
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, val_fraction=train_cfg.val_fraction)
    torch.manual_seed(train_cfg.seed)
    model = GPT(replace(model_cfg, vocab_size=tok.vocab_size))
    # with the tokenizer, each evaluation writes its sample_tokens of text, as on the page
    trainer = Trainer(model, train_ids, val_ids, train_cfg, device=device, tokenizer=tok)
    hit, last, step_times, previous = None, None, [], None
    # leaving the loop at the hit closes the run (trainer.stop() would stay set after a hit at
    # the last step, and the 200-batch evaluation after it would stop at once)
    with contextlib.closing(trainer.run()) as records:
        for record in records:
            if isinstance(record, StepRecord):
                if isinstance(previous, StepRecord):  # two steps in a row: no evaluation between
                    step_times.append(record.elapsed - previous.elapsed)
                previous = record
                yield
            if isinstance(record, EvalRecord):
                previous = record
            if isinstance(record, EvalRecord) and record.step > 0:
                last = record
                if record.val_loss <= target:
                    hit = record
                    break
    return trainer, hit, last, step_times


def target_result(trainer: Trainer, hit: EvalRecord | None, last: EvalRecord | None,
                  step_times: list[float]) -> dict:
    """What ``run_to_target`` reached, with its weights measured again on 200 validation
    batches (not timed), so a lucky small evaluation shows."""
    trainer.config = replace(trainer.config, eval_iters=200)  # evaluate() reads it there
    _, val_200 = trainer.evaluate()
    end = hit or last
    return {"hit": hit is not None, "step": end.step if end else 0,
            "val_loss": end.val_loss if end else math.nan, "val_loss_200": val_200,
            "trainer_elapsed_s": end.elapsed if end else math.nan,
            "sample": end.sample if end else None,
            "train_s_per_step": median(step_times) if step_times else math.nan}


def train_until(model_cfg: ModelConfig, train_cfg: TrainConfig, text: str, target: float,
                device: str = "cpu") -> dict:
    """``run_to_target`` in one go, timed from before the tokenizer to the hit (wall and CPU
    seconds), and ``target_result``'s figures."""
    start, cpu_start = time.perf_counter(), time.process_time()
    run = run_to_target(model_cfg, train_cfg, text, target, device)
    outcome = drain(run)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"wall_s": wall, "cpu_s": cpu, **target_result(*outcome)}


def drain(run: Iterator) -> Any:
    """Run a generator to its end; what it returns.

    >>> def two():
    ...     yield
    ...     return 2
    >>> drain(two())
    2
    """
    while True:
        try:
            next(run)
        except StopIteration as end:
            return end.value


def interleave_runs(runs: dict[str, Iterator], lengths: dict[str, int],
                    rounds: int) -> dict[str, dict]:
    """Whole runs side by side: each advances about ``lengths[name] / rounds`` of its yields in
    turn, round after round, so each gets a like share of every stretch of the machine's
    load; returns each run's ``{"wall_s", "cpu_s", "value"}`` (its own time summed over its
    turns, and what it returned).

    >>> def counter(n):
    ...     for _ in range(n):
    ...         yield
    ...     return n
    >>> out = interleave_runs({"a": counter(6), "b": counter(2)}, {"a": 6, "b": 2}, rounds=2)
    >>> out["a"]["value"], out["b"]["value"], out["a"]["wall_s"] >= 0
    (6, 2, True)
    """
    chunks = {name: max(1, round(lengths[name] / rounds)) for name in runs}
    clocks = {name: {"wall_s": 0.0, "cpu_s": 0.0} for name in runs}
    active, r = dict(runs), 0
    while active:
        names = list(active)
        if r % 2:  # alternate the order so no run always follows the same one
            names.reverse()
        for name in names:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                for _ in range(chunks[name]):
                    next(active[name])
            except StopIteration as end:
                clocks[name]["value"] = end.value
                del active[name]
            clocks[name]["wall_s"] += time.perf_counter() - wall
            clocks[name]["cpu_s"] += time.process_time() - cpu
        r += 1
    return clocks
