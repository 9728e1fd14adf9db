"""The presets against nanoGPT's own CPU recipe, the speedrun's ablations, and how cost grows.

``presets``: nanoGPT's whole CPU recipe (its vendored loop: 2000 steps, an evaluation every 250)
from nothing to its last evaluation, and ``quick`` and ``cpu-speedrun`` from nothing (tokenizer,
split, model) to their first evaluation at the target (1.60 and 1.88), run side by side: a turn
of each in every round, so a busy spell of the machine slows all three alike, and each wall time
is divided by nanoGPT's. The reached loss is measured again on 200 validation batches, so a
lucky small evaluation shows.

``ablations``: the speedrun recipe with one switch turned back at a time (AdamW for Muon,
torch's Muon momentum 0.95, a feed-forward layer 4x wide, GELU for ReLU², no QK-norm, no
zero-init, learned positions for RoPE), at the same token budget: the step at which it first
reached 1.88 (an evaluation every 40 steps, 50 batches), its val at the end and its training
ms/step, so the page and the docs can say what each switch buys.

``estimates``: the page's "about N on this machine" (``estimate.run_speed`` and
``estimate_run``, made as the page makes it) over the run's real length, for every preset: each
CPU preset trained to its end, each GPU recipe for its first 6 steps and 2 evaluations of 2
batches (whole, it takes hours here), its estimate made for that same length.

``scaling``: ms/step, tokens/s and MFU (against this machine's matmul peak measured in the same
run) of the speedrun recipe at widths 64 to 512 and contexts 64 to 512, so users see where a CPU
stops being the right tool.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Iterator

import torch

from bench.core import Context, Row, check, flops_per_token, median
from bench.training import (char_data, interleave_runs, quick_model, run_to_target,
                            target_result, train_until)
from playground.config import PRESETS, ModelConfig, TrainConfig, replace
from playground.model import GPT
from playground.train import EvalRecord, StepRecord, Trainer

NANOGPT_EVAL_INTERVAL = 250  # config/train_shakespeare_char.py
TARGETS = {"quick": (1.60, 0.85), "cpu-speedrun": (1.88, 0.15)}  # val loss, x nanoGPT's wall
ABLATION_TARGET = 1.88


PRESET_ROUNDS = 40  # turns each run gets in ``presets``: about 2 s of the machine each


def nanogpt_recipe(ctx: Context) -> Iterator[None]:
    """nanoGPT's CPU recipe as its README runs it, from the text to its last evaluation,
    yielding after each record; returns its last evaluation's iteration and val loss."""
    from bench.reference.nanogpt_loop import NanoGPTRecipe, nanogpt_records, write_token_file

    recipe = NanoGPTRecipe()
    interval = NANOGPT_EVAL_INTERVAL
    if ctx.quick:
        recipe = NanoGPTRecipe(n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4,
                               max_iters=6, lr_decay_iters=6, warmup_iters=1, eval_iters=2)
        interval = 3
    tok, train_ids, val_ids = char_data(ctx)  # nanoGPT's prepare.py: the characters, 90/10
    last = None
    with tempfile.TemporaryDirectory() as tmp:
        train_bin = write_token_file(train_ids.numpy(), Path(tmp) / "train.bin")
        val_bin = write_token_file(val_ids.numpy(), Path(tmp) / "val.bin")
        for record in nanogpt_records(train_bin, val_bin, tok.vocab_size, recipe, interval):
            if record[0] == "eval":
                last = record
            yield
    return {"steps": last[1], "val_loss": last[3]}


def presets(ctx: Context) -> list[Row]:
    """nanoGPT's recipe, ``quick`` and ``cpu-speedrun``, each from nothing to its end or its
    target, run side by side (``interleave_runs``): a turn of each in every round, so a busy
    spell of the machine slows all three alike and the ratios of their summed times hold."""
    text = ctx.shakespeare()
    runs, lengths, configs = {"nanoGPT": nanogpt_recipe(ctx)}, {"nanoGPT": 2_000}, {}
    for name, (target, _) in TARGETS.items():
        preset = PRESETS[name]
        model_cfg, train_cfg = preset.model, replace(preset.train, device="cpu")
        if ctx.quick:
            model_cfg = quick_model(model_cfg)
            train_cfg = replace(train_cfg, max_steps=6, eval_interval=3, eval_iters=2,
                                batch_size=4, warmup_steps=1, sample_tokens=0)
            target = 10.0
        configs[name] = (train_cfg, target)
        runs[name] = run_to_target(model_cfg, train_cfg, text, target)
        lengths[name] = train_cfg.max_steps
    if ctx.quick:
        lengths["nanoGPT"] = 6
    timed = interleave_runs(runs, lengths, 3 if ctx.quick else PRESET_ROUNDS)
    ref = timed["nanoGPT"]
    ctx.shared["nanogpt_wall_s"] = ref["wall_s"]
    rows = [Row("presets", "nanoGPT CPU recipe, wall to its last evaluation", ref["wall_s"], "s",
                note=f"{ref['value']['steps']:,} steps, val {ref['value']['val_loss']:.4f}; "
                     f"vendored loop, evaluations included; {ref['cpu_s']:.1f} s of CPU time; "
                     "side by side with the presets below")]
    for name, (train_cfg, target) in configs.items():
        limit = TARGETS[name][1]
        result = target_result(*timed[name]["value"])  # the 200 batches: after the clock
        wall, cpu = timed[name]["wall_s"], timed[name]["cpu_s"]
        ratio = wall / ref["wall_s"]
        reached = result["hit"]
        rows += [
            Row("presets", f"{name}: wall to val loss <= {target:g}", wall if reached else None,
                "s",
                note=(f"step {result['step']:,} of {train_cfg.max_steps:,}; tokenizer, data, "
                      "evaluations and samples included" if reached else
                      f"not reached: val {result['val_loss']:.3f} at step {result['step']:,}")),
            Row("presets", f"{name}: wall / nanoGPT's", ratio if reached else None, "x",
                f"<= {limit:g}", met=check(ratio, limit, False) if reached else False,
                note=f"CPU time / nanoGPT's: {cpu / ref['cpu_s']:.3f}; "
                     f"{1000 * result['train_s_per_step']:.1f} ms a training step"),
            Row("presets", f"{name}: val loss there, and on 200 batches", result["val_loss"],
                "nats", f"<= {target:g}", met=check(result["val_loss_200"], target, False),
                note=f"200 validation batches: {result['val_loss_200']:.4f} "
                     f"(eval_iters={train_cfg.eval_iters} at the hit)"),
        ]
    return rows


ESTIMATE_LIMIT = 1.5  # the page's estimate within 1.5x of the run, either way
# a GPU recipe on a CPU: a step takes seconds (tens where bf16 is emulated), so its first steps
GPU_RECIPE_PROBE = {"max_steps": 6, "eval_interval": 6, "eval_iters": 2}


def estimates(ctx: Context) -> list[Row]:
    """For every preset: the page's estimate of its run here, the run itself (training,
    evaluations and samples, as the page waits for them), and estimate / real."""
    from playground import estimate

    tok, train_ids, val_ids = char_data(ctx)
    rows = []
    for name, preset in PRESETS.items():
        model_cfg = replace(preset.model, vocab_size=tok.vocab_size)
        train_cfg = replace(preset.train, device="cpu")
        note = ""
        if preset.gpu_recipe:
            train_cfg = replace(train_cfg, **GPU_RECIPE_PROBE)
            note = "its first 6 steps and 2 evaluations of 2 batches; "
        if ctx.quick:
            model_cfg = quick_model(model_cfg)
            train_cfg = replace(train_cfg, max_steps=6, eval_interval=3, eval_iters=2,
                                batch_size=4, warmup_steps=1)
        start = time.perf_counter()
        guess = estimate.estimate_run(model_cfg, train_cfg, estimate.run_speed(model_cfg, train_cfg))
        probe_s = time.perf_counter() - start
        torch.manual_seed(train_cfg.seed)
        trainer = Trainer(GPT(model_cfg), train_ids, val_ids, train_cfg, tokenizer=tok)
        start = time.perf_counter()
        for _ in trainer.run():
            pass
        real = time.perf_counter() - start
        ratio = guess.seconds / real
        rows.append(Row("estimates", f"{name}: estimate / real", ratio, "x",
                        f"{1 / ESTIMATE_LIMIT:.2f}-{ESTIMATE_LIMIT:g}",
                        met=1 / ESTIMATE_LIMIT <= ratio <= ESTIMATE_LIMIT,
                        note=f"{note}estimated {guess.seconds:.1f} s (probe {probe_s:.1f} s), "
                             f"took {real:.1f} s; {train_cfg.max_steps:,} steps"))
    return rows


# ---------------------------------------------------------------------------------------------
# Ablations: each switch of the speedrun turned back, one at a time


def ablation_variants(model: ModelConfig, train: TrainConfig) -> dict[str, tuple[ModelConfig, TrainConfig]]:
    """The speedrun recipe and one variant per switch it uses, each with that switch undone.

    >>> from playground.config import PRESETS
    >>> p = PRESETS["cpu-speedrun"]
    >>> sorted(ablation_variants(p.model, p.train))[:3]
    ['AdamW instead of Muon', 'GELU instead of ReLU²', 'Muon momentum 0.95 instead of 0.8']
    """
    variants = {"the recipe": (model, train)}
    if train.optimizer == "muon":
        # AdamW takes every matrix then, at its own rate for them: nanoGPT's 3x (lr stays)
        variants["AdamW instead of Muon"] = (model, replace(train, optimizer="adamw"))
        default = TrainConfig().muon_momentum  # torch.optim.Muon's own default
        if train.muon_momentum != default:
            variants[f"Muon momentum {default:g} instead of {train.muon_momentum:g}"] = (
                model, replace(train, muon_momentum=default))
    if model.mlp_ratio != ModelConfig().mlp_ratio:
        default = ModelConfig().mlp_ratio
        variants[f"mlp_ratio {default:g} instead of {model.mlp_ratio:g}"] = (
            replace(model, mlp_ratio=default), train)
    if model.activation == "relu2":
        variants["GELU instead of ReLU²"] = (replace(model, activation="gelu"), train)
    if model.qk_norm:
        variants["no QK-norm"] = (replace(model, qk_norm=False), train)
    if model.zero_init:
        variants["no zero-init"] = (replace(model, zero_init=False), train)
    if model.token_shift:
        variants["no token shift"] = (replace(model, token_shift=False), train)
    else:  # quick's switch: what it does at the speedrun's budget
        variants["with token shift"] = (replace(model, token_shift=True), train)
    if model.pos == "rope":
        variants["learned positions instead of RoPE"] = (replace(model, pos="learned"), train)
    # issue 26's candidates: undone where the recipe has them, tried where it has not
    for name, field, on in [("bigram embedding", "bigram", True),
                            ("value embeddings", "value_embed", True),
                            ("logit soft-cap 15", "logit_softcap", 15.0)]:
        if getattr(model, field):
            variants[f"no {name}"] = (replace(model, **{field: type(on)()}), train)
        else:
            variants[f"with {name}"] = (replace(model, **{field: on}), train)
    if train.optimizer == "muon":
        if train.polar_express:
            variants["torch's Newton-Schulz instead of Polar Express"] = (
                model, replace(train, polar_express=False))
        else:
            variants["with Polar Express"] = (model, replace(train, polar_express=True))
    return variants


def run_to_budget(model_cfg: ModelConfig, train_cfg: TrainConfig, train_ids, val_ids,
                  target: float) -> dict:
    """Train the whole schedule, evaluating every ``train_cfg.eval_interval`` steps: the first
    step at ``target`` or below, the val at the end, and the median training ms/step."""
    torch.manual_seed(train_cfg.seed)
    trainer = Trainer(GPT(model_cfg), train_ids, val_ids, train_cfg, device="cpu")
    first_hit, last, previous, step_times = None, None, None, []
    for record in trainer.run():
        if isinstance(record, StepRecord):
            if isinstance(previous, StepRecord):
                step_times.append(record.elapsed - previous.elapsed)
        elif isinstance(record, EvalRecord) and record.step > 0:
            last = record
            if first_hit is None and record.val_loss <= target:
                first_hit = record.step
        previous = record
    return {"first_hit": first_hit, "val_end": last.val_loss if last else float("nan"),
            "ms_per_step": 1000 * median(step_times) if step_times else float("nan")}


def ablations(ctx: Context) -> list[Row]:
    preset = PRESETS["cpu-speedrun"]
    tok, train_ids, val_ids = char_data(ctx)
    model_cfg = replace(preset.model, vocab_size=tok.vocab_size)
    every, iters = 40, 50
    train_cfg = replace(preset.train, device="cpu", sample_tokens=0)
    if ctx.quick:
        model_cfg = quick_model(model_cfg)
        train_cfg = replace(train_cfg, max_steps=4, warmup_steps=1, batch_size=4)
        every, iters = 2, 2
    train_cfg = replace(train_cfg, eval_interval=every, eval_iters=iters)
    rows = []
    for name, (m, t) in ablation_variants(model_cfg, train_cfg).items():
        result = run_to_budget(m, t, train_ids, val_ids, ABLATION_TARGET)
        hit = result["first_hit"]
        rows.append(Row(
            "ablations", f"{name}: val at the end", result["val_end"], "nats",
            note=(f"first <= {ABLATION_TARGET} at step {hit:,}" if hit else
                  f"never <= {ABLATION_TARGET} in {t.max_steps:,} steps")
                 + f"; {result['ms_per_step']:.1f} ms/step"))
    return rows


# ---------------------------------------------------------------------------------------------
# Scaling: the recipe's cost as width and context grow


def step_seconds(model_cfg: ModelConfig, train_cfg: TrainConfig, train_ids, val_ids,
                 steps: int, warmup: int) -> float:
    """Median seconds per training step after ``warmup`` untimed steps."""
    cfg = replace(train_cfg, max_steps=warmup + steps, eval_interval=10_000_000, eval_iters=1,
                  sample_tokens=0, warmup_steps=0)
    trainer = Trainer(GPT(model_cfg), train_ids, val_ids, cfg, device="cpu")
    times = [r.elapsed for r in trainer.run() if isinstance(r, StepRecord)]
    return median([b - a for a, b in zip(times[warmup:], times[warmup + 1:])])


SCALING_SHAPES = [(64, 64), (128, 64), (256, 64), (512, 64), (128, 128), (128, 256), (128, 512)]


def scaling(ctx: Context) -> list[Row]:
    preset = PRESETS["cpu-speedrun"]
    tok, train_ids, val_ids = char_data(ctx)
    train_cfg = replace(preset.train, device="cpu", dtype="float32")
    shapes, steps, warmup = SCALING_SHAPES, 8, 2
    if ctx.quick:
        shapes, steps, warmup = [(16, 16), (32, 16)], 2, 1
        train_cfg = replace(train_cfg, batch_size=4)
    peak = ctx.peak(torch.float32)
    rows = []
    for width, context in shapes:
        model_cfg = replace(preset.model, vocab_size=tok.vocab_size, n_embd=width,
                            block_size=context, n_head=max(1, width // 32))
        seconds = step_seconds(model_cfg, train_cfg, train_ids, val_ids, steps, warmup)
        n = GPT(model_cfg).num_params(non_embedding=True)
        tokens = train_cfg.batch_size * context
        fpt = flops_per_token(model_cfg.n_layer, model_cfg.n_head, model_cfg.head_size,
                              context, n)
        mfu = fpt * tokens / seconds / peak
        rows.append(Row("scaling", f"width {width}, context {context}: ms/step", 1000 * seconds,
                        "ms", note=f"{tokens / seconds:,.0f} tokens/s, MFU {100 * mfu:.1f}% of "
                                   f"the fp32 matmul peak; {n:,} non-embedding params"))
    return rows


# ---------------------------------------------------------------------------------------------
# GPU: nanoGPT's GPU recipe and the GPU speedrun, for the day a CUDA device is at hand


GPU_TARGETS = {"nanogpt-gpu": (1.47, 60.0), "gpu-speedrun": (1.47, 30.0)}  # val loss, seconds


def gpu(ctx: Context) -> list[Row]:
    """Time to val 1.47 on CUDA (bf16 autocast, flash SDPA, TF32, fused AdamW), tokens/s and
    MFU against the GPU's measured bf16 matmul peak; one skipped row per preset without CUDA."""
    if not torch.cuda.is_available() or ctx.quick:
        return [Row("gpu", f"{name}: seconds to val loss <= {target:g}", None, "s",
                    f"<= {limit:g} s", note="no CUDA device here: skipped")
                for name, (target, limit) in GPU_TARGETS.items()]
    device = torch.device("cuda")
    peak = ctx.peak(torch.bfloat16, device)
    rows = [Row("gpu", "bf16 matmul peak (measured)", peak, "FLOP/s",
                note=torch.cuda.get_device_name(0))]
    for name, (target, limit) in GPU_TARGETS.items():
        preset = PRESETS[name]
        train_cfg = replace(preset.train, device="cuda")
        result = train_until(preset.model, train_cfg, ctx.shakespeare(), target, device="cuda")
        tokens_per_step = train_cfg.batch_size * preset.model.block_size
        model = GPT(replace(preset.model, vocab_size=65))
        fpt = flops_per_token(preset.model.n_layer, preset.model.n_head, preset.model.head_size,
                              preset.model.block_size, model.num_params(non_embedding=True))
        per_step = result["train_s_per_step"]
        rows += [
            Row("gpu", f"{name}: seconds to val loss <= {target:g}",
                result["wall_s"] if result["hit"] else None, "s", f"<= {limit:g} s",
                met=check(result["wall_s"], limit, False) if result["hit"] else False,
                note=f"step {result['step']:,}, val {result['val_loss']:.3f} (200 batches: "
                     f"{result['val_loss_200']:.3f}), dtype {train_cfg.dtype}, "
                     f"compile {train_cfg.compile}"),
            Row("gpu", f"{name}: tokens/s", tokens_per_step / per_step, "tok/s"),
            Row("gpu", f"{name}: MFU (bf16 peak)", fpt * tokens_per_step / per_step / peak,
                "fraction", note="6N + 12LHQT FLOP/token"),
        ]
    return rows
