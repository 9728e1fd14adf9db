"""How long a training run takes here: FLOPs from the configs, over this machine's speed.

Three parts, each a plain function or value:

* **FLOPs** of one optimiser step (forward and backward, PaLM's 6N + 12LTd per token plus the
  output layer, and Muon's Newton-Schulz iterations when it is the optimiser) and of one
  evaluation (forward only, over ``2 * eval_iters`` batches), from ``ModelConfig`` and
  ``TrainConfig`` alone;
* a **speed** of this machine for a run, ``Speed(flops_per_s, overhead_s)``: a step costs its
  fixed overhead (Python, kernel launches, the optimiser) plus its FLOPs at that rate.
  ``run_speed`` fits both numbers to the run's own step (its model with every switch, its
  optimiser, number format and threads: ``Trainer`` itself) timed at two micro-batch sizes,
  and its own evaluation, once per process and configuration; a run too large to step
  cheaply here is priced from two fixed probe models instead (``measure_speed``);
* an **estimate**, ``Estimate``: seconds per step and per evaluation, times how many are
  left, and ``refined`` from the run's own records as it goes (the measured step time, the
  measured length of the last evaluation).

>>> from playground.config import ModelConfig, TrainConfig
>>> model = ModelConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
>>> train = TrainConfig(max_steps=2000, batch_size=12, eval_interval=250, eval_iters=20)
>>> f"{step_flops(model, train) / 1e9:.2f} GFLOP per step"
'3.96 GFLOP per step'
>>> est = estimate_run(model, train, Speed(flops_per_s=20e9, overhead_s=0.004))
>>> est.steps_left, est.evals_left, round(est.seconds)
(2000, 9, 429)
>>> duration_text(est.seconds), duration_text(est.seconds, "zh-CN")
('7 min 09 s', '7 分 09 秒')

The speed is a rough figure (real kernels are faster on wide matrices than on the probe's), so
the page shows it as "about" and replaces it with the run's own step time from the first steps.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import statistics
import time
from dataclasses import dataclass
from typing import Iterable

import torch

from playground.config import ModelConfig, TrainConfig
from playground.i18n import Message, localize, msg
from playground.runtime import compute, hosting
from playground.runtime.hosting import Hosting

NS_STEPS = 5  # Newton-Schulz iterations per Muon step (torch.optim.Muon's default)
# the probes: one nearly all overhead, one mostly matmuls (~2.5 GFLOP a step, ~0.1 s on a laptop)
PROBE_SMALL = (ModelConfig(vocab_size=65, block_size=32, n_layer=1, n_head=2, n_embd=32),
               TrainConfig(batch_size=4))
PROBE_LARGE = (ModelConfig(vocab_size=65, block_size=64, n_layer=2, n_head=4, n_embd=256),
               TrainConfig(batch_size=4))
PROBE_STEPS = 3  # timed steps per probe, after one warm-up step...
MATMUL_ROWS_CAP = 2048
MATMUL_REPS = 8
PROBE_BUDGET_S = 0.6  # ...or fewer (one at least) once a probe has taken this long (busy cores)
# The run's own step is timed at micro-batches of up to this many tokens (a quarter of it for
# the second point): the time grows linearly beyond, and a GPU recipe's whole batch would take
# seconds a step on a CPU.
OWN_PROBE_TOKENS = 2048
# The probe's micro-batch is halved until its step needs at most this memory and work, and a run
# for which even one sequence needs more is priced from the probe models: the estimate is asked
# for before admission and on every change of the settings, and must not itself fill or hold
# the machine (20 GFLOP: about half a second a step on two cores).
OWN_PROBE_MAX_BYTES = 256 * 2**20
OWN_PROBE_MAX_FLOPS = 20e9


# --- FLOPs --------------------------------------------------------------------------------

TOKENIZER_BYTES_PER_CHAR = 96  # training one: BPE (2,000 tokens) in its child process peaked
#   at 419 MB on 4.8 MB of text, 79 bytes a character (5.8 on Tiny Shakespeare x4, whose words
#   repeat more); then the text as ids, 8 more


def tokenizer_memory(chars: int) -> int:
    """Bytes training a tokenizer on ``chars`` characters of text may take, at the peak.

    >>> tokenizer_memory(1_000_000) // 2**20
    91
    """
    return TOKENIZER_BYTES_PER_CHAR * max(0, int(chars))


def matmul_params(model: ModelConfig) -> int:
    """Weights that take part in a matrix multiply per token: the blocks' and the output layer's.

    Embedding tables are looked up, not multiplied, so they cost nothing here; the output
    layer multiplies whether or not it is tied to the token embedding.

    >>> matmul_params(ModelConfig(vocab_size=65, n_layer=4, n_embd=128))  # 4 * 12 * 128² + 65 * 128
    794752
    """
    d = model.n_embd
    mlp = (3 if model.activation == "swiglu" else 2) * d * model.hidden_size
    return model.n_layer * (4 * d * d + mlp) + d * model.vocab_size


def forward_flops_per_token(model: ModelConfig) -> float:
    """One token's forward pass: 2 FLOPs per matmul weight, and the attention scores and
    weighted sum (2 * T * d each per layer, computed over the whole context).

    >>> forward_flops_per_token(ModelConfig(vocab_size=65, block_size=64, n_layer=4, n_embd=128))
    1720576.0
    """
    return 2.0 * matmul_params(model) + 4.0 * model.n_layer * model.block_size * model.n_embd


def muon_flops(model: ModelConfig) -> float:
    """Muon's Newton-Schulz iterations for every matrix inside the blocks, per optimiser step.

    Each iteration on an (m, n) matrix with m <= n costs X Xᵀ (2m²n), A² (2m³) and B X (2m²n).

    >>> muon_flops(ModelConfig(n_layer=1, n_embd=8, mlp_ratio=4.0))  # qkv, proj, fc, proj
    143360.0
    """
    d, h = model.n_embd, model.hidden_size
    shapes = [(3 * d, d), (d, d)] + ([(h, d)] * 2 + [(d, h)] if model.activation == "swiglu"
                                     else [(h, d), (d, h)])
    per_layer = 0.0
    for rows, cols in shapes:
        m, n = min(rows, cols), max(rows, cols)
        per_layer += NS_STEPS * (4.0 * m * m * n + 2.0 * m ** 3)
    return model.n_layer * per_layer


def step_flops(model: ModelConfig, train: TrainConfig) -> float:
    """One optimiser step: forward and backward (3x the forward) over the whole batch, plus
    Muon's orthogonalisation when ``train.optimizer`` is "muon"."""
    tokens = train.batch_size * model.block_size
    flops = 3.0 * forward_flops_per_token(model) * tokens
    return flops + (muon_flops(model) if train.optimizer == "muon" else 0.0)


def eval_flops(model: ModelConfig, train: TrainConfig) -> float:
    """One evaluation: ``eval_iters`` micro-batches of each split, forward only."""
    micro = train.batch_size // train.grad_accum
    return 2.0 * train.eval_iters * micro * model.block_size * forward_flops_per_token(model)


def evaluations_left(done: int, max_steps: int, eval_interval: int, first_owed: bool) -> int:
    """Evaluations still to come after ``done`` steps: every ``eval_interval`` steps, one at
    the end, and the one before the first step when ``first_owed`` (as ``Trainer.run`` does).

    >>> evaluations_left(0, 300, 50, True), evaluations_left(120, 300, 50, False)
    (7, 4)
    >>> evaluations_left(0, 310, 100, True)   # 0, 100, 200, 300 and the end, 310
    5
    """
    after = max_steps // eval_interval - min(done, max_steps) // eval_interval
    end = 1 if max_steps % eval_interval and done < max_steps else 0
    return after + end + (1 if first_owed else 0)


# --- this machine's speed -----------------------------------------------------------------

@dataclass(frozen=True)
class Speed:
    """How fast this machine trains: a fixed cost per optimiser step plus FLOPs at a rate.

    >>> Speed(flops_per_s=1e9, overhead_s=0.01).step_seconds(2e9)
    2.01
    """

    flops_per_s: float
    overhead_s: float  # per training step
    device: str = "cpu"
    # per forward-only pass, where measured; else half a step's
    forward_overhead_s: float | None = None

    def step_seconds(self, flops: float) -> float:
        return self.overhead_s + flops / self.flops_per_s

    def forward_seconds(self, flops: float) -> float:
        overhead = self.overhead_s / 2 if self.forward_overhead_s is None else self.forward_overhead_s
        return overhead + flops / self.flops_per_s


def fit_speed(small: tuple[float, float], large: tuple[float, float], device: str = "cpu") -> Speed:
    """The speed through two measured (FLOPs, seconds) points: t = overhead + FLOPs / rate.

    A noisy pair (the larger probe not slower) falls back to the larger probe alone.

    >>> speed = fit_speed((1e8, 0.003), (3e9, 0.062))
    >>> f"{speed.flops_per_s / 1e9:.1f} GFLOP/s, {speed.overhead_s * 1000:.2f} ms a step"
    '49.2 GFLOP/s, 0.97 ms a step'
    >>> fit_speed((1e8, 0.003), (3e9, 0.003)).overhead_s   # noise: the larger probe alone
    0.0
    """
    (f1, t1), (f2, t2) = small, large
    if t2 > t1 * 1.05 and f2 > f1:
        rate = (f2 - f1) / (t2 - t1)
        return Speed(rate, max(0.0, t1 - f1 / rate), device)
    return Speed(f2 / t2, 0.0, device)


def _probe_seconds(model_cfg: ModelConfig, batch_size: int, device: torch.device,
                   dtype: torch.dtype) -> float:
    """Median seconds of a training step (forward, backward, clipping, AdamW) of a fresh model
    on random tokens, after one warm-up step; fewer steps once ``PROBE_BUDGET_S`` is spent."""
    from playground.model import GPT
    from playground.runtime.device import autocast_context

    model = GPT(model_cfg).to(device)
    optimizer = model.configure_optimizer(0.1, 1e-3, (0.9, 0.99), device.type)
    x = torch.randint(0, model_cfg.vocab_size, (batch_size, model_cfg.block_size), device=device)
    def one_step() -> float:
        start = time.perf_counter()
        with autocast_context(device, dtype):
            loss = model(x, x)[1]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        loss.item()  # waits for the device
        return time.perf_counter() - start

    return _median_seconds(one_step)


def _median_seconds(one_step) -> float:
    """Median of the seconds ``one_step()`` reports, after one warm-up call (it pays for
    allocation and kernel selection); fewer calls once ``PROBE_BUDGET_S`` is spent."""
    one_step()
    times = [one_step()]
    while len(times) < PROBE_STEPS and sum(times) < PROBE_BUDGET_S:
        times.append(one_step())
    return statistics.median(times)


@functools.lru_cache(maxsize=8)
def measure_speed(device: str = "cpu", dtype: str = "float32") -> Speed:
    """This machine's ``Speed`` on ``device`` in ``dtype`` at the probes' size, from two short
    probes (about 0.2 s on an idle laptop CPU, a few seconds on busy cores).

    Measured once per process, device and dtype; PyTorch's global random state is left as
    it was. ``run_speed`` scales it to the matrix sizes of a given run.
    """
    from playground.runtime.device import DTYPE_BY_NAME

    place, number = torch.device(device), DTYPE_BY_NAME[dtype]
    points = []
    with torch.random.fork_rng(devices=[]):
        for model_cfg, train_cfg in (PROBE_SMALL, PROBE_LARGE):
            seconds = _probe_seconds(model_cfg, train_cfg.batch_size, place, number)
            points.append((step_flops(model_cfg, train_cfg), seconds))
    return fit_speed(points[0], points[1], place.type)


def _matmul_shape(model: ModelConfig, train: TrainConfig) -> tuple[int, int]:
    """(rows, width) of a run's typical matmul, the feed-forward layer's: the batch's tokens
    (capped: beyond a few thousand rows the rate no longer grows) by n_embd."""
    micro = train.batch_size // train.grad_accum
    return min(MATMUL_ROWS_CAP, micro * model.block_size), model.n_embd


@functools.lru_cache(maxsize=64)
def matmul_rate(device: str, dtype: str, rows: int, width: int) -> float:
    """FLOP/s of one (rows, width) @ (width, 4 width) matmul here: the fastest of a few."""
    from playground.runtime.device import DTYPE_BY_NAME, matmul_times

    place, number = torch.device(device), DTYPE_BY_NAME[dtype]
    a = torch.randn(rows, width, device=place).to(number)
    b = torch.randn(width, 4 * width, device=place).to(number)
    times = matmul_times(a, b, MATMUL_REPS, place)
    # the fastest: what the machine can do, undisturbed by other processes' bursts (the step
    # probes measure how busy it is; this only compares matrix sizes)
    return 2.0 * rows * width * 4 * width / max(min(times), 1e-9)


@compute.routed
def run_speed(model: ModelConfig, train: TrainConfig) -> Speed:
    """The ``Speed`` a run of these configs sees here: its own step and evaluation timed
    (``own_step_speed``), or, for a run too large to step cheaply even one sequence at a
    time, the probe models' speed scaled to its matrices (``probe_speed``).
    """
    if _own_probe_batches(model, train)[1]:
        return own_step_speed(model, _speed_key(train))
    return probe_speed(model, train)


def _speed_key(train: TrainConfig) -> TrainConfig:
    """``train`` without the settings that do not change what a step costs, so runs that
    differ only in them share one measurement."""
    return dataclasses.replace(train, max_steps=1, eval_interval=1, eval_iters=1, sample_tokens=0,
                               seed=0, warmup_steps=0, lr_decay_steps=0)


def _own_probe_batches(model: ModelConfig, train: TrainConfig) -> tuple[int, int]:
    """(small, large): the micro-batches, in sequences, at which the run's own step is timed:
    up to ``OWN_PROBE_TOKENS`` and within the probe's memory and work; (0, 0) when even one
    sequence is beyond them.

    >>> _own_probe_batches(ModelConfig(block_size=64), TrainConfig(batch_size=12))
    (3, 12)
    >>> _own_probe_batches(ModelConfig(n_layer=48, n_embd=1024), TrainConfig(batch_size=12))
    (0, 0)
    """
    from playground.model import estimate_memory

    micro = train.batch_size // train.grad_accum
    large = max(1, min(micro, OWN_PROBE_TOKENS // model.block_size))
    while large >= 1:
        probe = _own_probe_train(model, train, large)
        if (estimate_memory(model, probe) <= OWN_PROBE_MAX_BYTES
                and step_flops(model, probe) <= OWN_PROBE_MAX_FLOPS):
            return max(1, large // 4), large
        large //= 2
    return 0, 0


def _own_probe_train(model: ModelConfig, train: TrainConfig, batch: int) -> TrainConfig:
    # one micro-batch a step, no compile (its 30 s warm-up is the run's, refined as it goes)
    return dataclasses.replace(train, batch_size=batch, grad_accum=1, max_steps=PROBE_STEPS + 1,
                               eval_iters=1, sample_tokens=0, compile=False)


def own_step_speed(model: ModelConfig, train: TrainConfig) -> Speed:
    """This machine's ``Speed`` for the run's own step: a ``Trainer`` of these configs (every
    switch, the optimiser, the device, number format and threads it would pick) on random
    tokens, timed at two micro-batch sizes after a warm-up step, and its evaluation's forward
    pass; once per process and configuration, PyTorch's random state left as it was.
    """
    # the configs are mutable dataclasses, so the cache is keyed on their fields
    return _own_step_speed(json.dumps(dataclasses.asdict(model), sort_keys=True),
                           json.dumps(dataclasses.asdict(train), sort_keys=True))


@functools.lru_cache(maxsize=32)
def _own_step_speed(model_fields: str, train_fields: str) -> Speed:
    from playground.model import GPT
    from playground.train import Trainer

    model, train = ModelConfig(**json.loads(model_fields)), TrainConfig(**json.loads(train_fields))
    points, trainer = [], None
    with torch.random.fork_rng(devices=[]):
        for batch in _own_probe_batches(model, train):
            cfg = _own_probe_train(model, train, batch)
            ids = torch.randint(0, model.vocab_size, ((batch + 2) * (model.block_size + 1),))
            trainer = Trainer(GPT(model), ids, ids, cfg)
            points.append((step_flops(model, cfg), _median_step_seconds(trainer)))
        trainer.evaluate()  # the first pays for allocation
        start = time.perf_counter()
        trainer.evaluate()  # one batch of each split: two forward passes
        forward_s = (time.perf_counter() - start) / 2
    speed = fit_speed(points[0], points[1], trainer.device.type)
    forward_flops = forward_flops_per_token(model) * trainer.micro_batch * model.block_size
    return dataclasses.replace(
        speed, forward_overhead_s=max(0.0, forward_s - forward_flops / speed.flops_per_s))


def _median_step_seconds(trainer) -> float:
    """Median seconds of ``trainer``'s optimiser steps (``_median_seconds``), each with the
    CPU threads the run would compute with (``Trainer.run`` and ``evaluate`` set them too)."""
    from playground.runtime.execution import cpu_threads

    def one_step() -> float:
        start = time.perf_counter()
        trainer._train_step(lambda: 0.0)
        return time.perf_counter() - start

    with cpu_threads(trainer.threads):
        return _median_seconds(one_step)


def probe_speed(model: ModelConfig, train: TrainConfig) -> Speed:
    """The ``Speed`` of the probe models (AdamW, float32 or the run's number format), scaled by
    how much faster this machine multiplies the run's matrices than the probe's (wide matrices
    are faster per FLOP): the price of a run too large to step here for an estimate.
    """
    from playground.runtime.device import pick_device, pick_dtype

    device = pick_device(train.device)
    number = pick_dtype(train.dtype, device, model.n_embd)
    dtype = {torch.bfloat16: "bfloat16", torch.float16: "float16"}.get(number, "float32")
    base = measure_speed(str(device), dtype)
    probe = matmul_rate(str(device), dtype, *_matmul_shape(*PROBE_LARGE))
    this = matmul_rate(str(device), dtype, *_matmul_shape(model, train))
    return dataclasses.replace(base, flops_per_s=base.flops_per_s * this / probe)


# --- estimates ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """Seconds a run has left: ``steps_left`` steps of ``step_s`` and ``evals_left``
    evaluations of ``eval_s`` (a sample included).

    >>> est = Estimate(step_s=0.02, eval_s=0.5, done=0, max_steps=300, eval_interval=50,
    ...                first_owed=True, tokens_per_step=1024)
    >>> est.steps_left, est.evals_left, est.seconds
    (300, 7, 9.5)
    """

    step_s: float
    eval_s: float
    done: int  # steps done when this estimate was made
    max_steps: int
    eval_interval: int
    first_owed: bool  # the evaluation before the first step is still to come
    tokens_per_step: int
    evaluating: float = 0.0  # share of an evaluation under way that is done (0 when none)

    @property
    def steps_left(self) -> int:
        return max(0, self.max_steps - self.done)

    @property
    def evals_left(self) -> int:
        return evaluations_left(self.done, self.max_steps, self.eval_interval, self.first_owed)

    @property
    def seconds(self) -> float:
        """Seconds left: the steps, the evaluations to come, the rest of one under way."""
        under_way = (1.0 - self.evaluating) * self.eval_s if self.evaluating else 0.0
        return self.steps_left * self.step_s + self.evals_left * self.eval_s + under_way

    def refined(self, history: Iterable, evaluating: float = 0.0) -> Estimate:
        """This estimate after the records of the run so far (``Trainer`` records).

        The step time becomes the measured one (``tokens_per_s`` of the latest step,
        evaluations excluded); the evaluation time the length of the latest evaluation
        (from the record before it), or the predicted one scaled as the step time was.
        ``evaluating`` is the share of an evaluation under way that is done.
        """
        from playground.train import EvalRecord, StepRecord

        records = list(history)
        steps = [r for r in records if isinstance(r, StepRecord)]
        step_s, eval_s = self.step_s, self.eval_s
        if steps and steps[-1].tokens_per_s > 0:
            step_s = self.tokens_per_step / steps[-1].tokens_per_s
            eval_s = self.eval_s * step_s / self.step_s if self.step_s > 0 else eval_s
        measured = _last_eval_seconds(records)
        if measured is not None:
            eval_s = measured
        done = max([self.done] + [r.step for r in steps])
        first_owed = self.first_owed and not any(isinstance(r, EvalRecord) for r in records)
        return dataclasses.replace(self, step_s=step_s, eval_s=eval_s, done=done,
                                   first_owed=first_owed and not evaluating,
                                   evaluating=evaluating)


def _last_eval_seconds(records: list) -> float | None:
    """How long the latest evaluation took: its elapsed minus that of the record before it."""
    from playground.train import EvalRecord

    for i in range(len(records) - 1, -1, -1):
        if isinstance(records[i], EvalRecord):
            before = next((r.elapsed for r in reversed(records[:i]) if hasattr(r, "elapsed")), None)
            if before is None:
                return records[i].elapsed if i == 0 else None
            return max(0.0, records[i].elapsed - before)
    return None


def estimate_run(model: ModelConfig, train: TrainConfig, speed: Speed, *, done: int = 0,
                 first_owed: bool | None = None) -> Estimate:
    """The ``Estimate`` of a run of these configs at ``speed``, ``done`` steps in.

    ``first_owed`` (default: ``done == 0``) says whether the evaluation before the first step
    is still to come. Sampling costs a forward pass of one token per sampled token.
    """
    passes = 2 * train.eval_iters  # forward passes: eval_iters batches of each split
    eval_s = passes * speed.forward_seconds(0.0) + eval_flops(model, train) / speed.flops_per_s
    if train.sample_tokens:
        per_token = speed.forward_seconds(forward_flops_per_token(model))
        eval_s += train.sample_tokens * per_token
    return Estimate(step_s=speed.step_seconds(step_flops(model, train)), eval_s=eval_s,
                    done=done, max_steps=train.max_steps, eval_interval=train.eval_interval,
                    first_owed=done == 0 if first_owed is None else first_owed,
                    tokens_per_step=train.batch_size * model.block_size)


def long_run_limit(host: Hosting | None = None) -> float:
    """Seconds above which an estimate gets a warning: ``PLAYGROUND_LONG_RUN_S``, else 600.

    >>> long_run_limit(Hosting()), long_run_limit(Hosting(long_run_s=60.0))
    (600.0, 60.0)
    """
    return (hosting.current() if host is None else host).long_run_s


def duration_text(seconds: float, lang: str = "en") -> str:
    """A duration for people, rounded as an estimate deserves: "45 s", "6 min 55 s", "18 h 20 min".

    >>> [duration_text(s) for s in (0.4, 45, 415, 1500, 66_000, 400_000)]
    ['1 s', '45 s', '6 min 55 s', '25 min', '18 h 20 min', '4 days 15 h']
    >>> duration_text(66_000, "zh-CN")
    '18 小时 20 分'
    """
    return localize(duration_message(seconds), lang)


def duration_message(seconds: float) -> Message:
    """``duration_text`` as a message, for a sentence that is said in its reader's language
    later (a ``ConfigError``'s)."""
    s = max(1, round(seconds))
    if s < 60:
        said = msg("{s} s", s=s)
    elif s < 600:
        said = msg("{m} min {s} s", m=s // 60, s=f"{s % 60:02d}")
    elif s < 3600:
        said = msg("{m} min", m=round(s / 60))
    elif s < 48 * 3600:
        minutes = round(s / 60)
        said = msg("{h} h {m} min", h=minutes // 60, m=f"{minutes % 60:02d}")
    else:
        hours = round(s / 3600)
        said = msg("{d} days {h} h", d=hours // 24, h=hours % 24)
    return said
