"""The training loop, as a generator of plain records.

``Trainer.run()`` yields one ``StepRecord`` per optimiser step, an ``EvalRecord`` before the
first step, every ``eval_interval`` steps and at the end, and one ``EndRecord`` last. It never
prints or plots: the CLI prints the records, the app plots them, the tests assert on them.

The recipe is nanoGPT's: random windows of ``block_size + 1`` tokens drawn with a seeded
generator, AdamW with weight decay on matrices only (or Muon for the blocks' matrices:
``TrainConfig.optimizer``, ``playground.optim``), linear warmup then cosine decay to
``min_lr``, gradient clipping, optional gradient accumulation, label smoothing and mixed
precision. A seed makes a CPU run repeatable exactly, and ``state_dict`` holds everything
needed to resume a run so that N steps, a save and M more steps equal N + M steps straight.

Two random streams are offered (``TrainConfig.rng_stream``). "separate" (the default) draws
training batches and evaluation batches from their own seeded generators, so two runs with
the same seed see the same batches whatever their models or evaluation settings: what a
comparison of one change needs. "nanogpt" draws everything from one generator in the order
nanoGPT's ``train.py`` does: seed, initial weights, the first batch, then each evaluation
after the next step's batch; with the same arithmetic, the nanoGPT presets then give the very
losses nanoGPT's own code gives.

With a ``DistInfo`` from ``playground.runtime.distributed`` (several processes under torchrun) the
same loop trains data-parallel: ``batch_size`` stays the global batch. Every process draws
the same global batch from the same seeded generator and keeps its own slice of it (rank r
of N takes windows r*B/N to (r+1)*B/N), so N processes see exactly the windows one process
would, and DistributedDataParallel averages the gradients; losses are averaged over the
processes, and a stop request or a NaN in any process ends the run at the same step in all.

>>> import torch
>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.model import GPT
>>> _ = torch.manual_seed(0)
>>> model = GPT(ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=2, n_embd=16))
>>> ids = torch.arange(400) % 8                      # a text that counts 0 1 2 ... 7 0 1 ...
>>> cfg = TrainConfig(max_steps=40, batch_size=8, lr=1e-2, min_lr=1e-3, warmup_steps=5,
...                   eval_interval=20, eval_iters=2, device="cpu")
>>> trainer = Trainer(model, ids[:360], ids[360:], cfg)
>>> records = list(trainer.run())
>>> [type(r).__name__ for r in records if not isinstance(r, StepRecord)]
['EvalRecord', 'EvalRecord', 'EvalRecord', 'EndRecord']
>>> records[-1].reason, records[-2].val_loss < 0.5 < records[0].val_loss
('done', True)
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Sequence

import torch

from playground.config import ConfigError, SampleConfig, TrainConfig
from playground.optim import build_optimizer, load_optimizer_state, set_lr
from playground.runtime.device import autocast_context
from playground.runtime.execution import place_model, with_threads
from playground.insight.baselines import bits_per_char  # noqa: F401  (also part of this module's API)
from playground.runtime.distributed import DistInfo, RankFailed, agree_any, all_reduce_mean
from playground.i18n import Message, msg

log = logging.getLogger(__name__)

STEP_HISTORY_LIMIT = 5000  # step records kept in the history at most (see history_stride)
THROUGHPUT_WINDOW = 20  # steps in the moving window behind tokens_per_s
# An untrained model writes noise, and a line of it shows that as well as a paragraph: the
# sample at step 0 stops here. It is one token at a time, and a class of visitors starting
# together waits for every one of theirs before its first step (issue 13)
START_SAMPLE_TOKENS = 60


# ---------------------------------------------------------------------------------------------
# Records: what the loop reports. Frozen and flat; only ``checkpoint`` turns them into JSON.


@dataclass(frozen=True)
class StepRecord:
    kind: ClassVar[str] = "step"
    step: int  # optimiser steps done, this one included (1 for the first step)
    tokens: int  # training tokens seen so far
    loss: float  # this step's training loss (label smoothing included), in nats per token
    lr: float  # the learning rate this step used
    tokens_per_s: float  # all processes together, over the last THROUGHPUT_WINDOW steps, no evals
    elapsed: float  # wall-clock seconds since the run began, evaluations included
    # the gradients' total L2 norm before clipping (clipped when above grad_clip); None where
    # it was not measured (bundles saved before it was: checkpoint._upgrade)
    grad_norm: float | None = None


@dataclass(frozen=True)
class EvalRecord:
    kind: ClassVar[str] = "eval"
    step: int
    tokens: int
    train_loss: float  # mean cross-entropy over eval_iters batches, no label smoothing
    val_loss: float
    train_bpc: float  # bits per character: loss / ln 2 / characters per token
    val_bpc: float
    elapsed: float
    sample: str | None = None  # a short text the model wrote, when sample_tokens > 0
    #   (for a toy task: held-out problems as the model answers them, marked right or wrong)
    # a toy task's exact-match accuracy on its held-out problems (playground.tasks); None
    # for any other text
    accuracy: float | None = None


@dataclass(frozen=True)
class EndRecord:
    kind: ClassVar[str] = "end"
    step: int
    reason: str  # done | stopped | nan | oom | error
    message: str  # a Message when the loop wrote it, so the page can say it in Chinese too


Record = StepRecord | EvalRecord | EndRecord
RECORD_TYPES = (StepRecord, EvalRecord, EndRecord)  # ``checkpoint`` writes them as JSON, by kind


@dataclass(frozen=True)
class EvalProgress:
    """How far an evaluation under way has got: ``done`` of ``total`` batches (both splits).

    Not a record: never kept in the history nor saved, and yielded only by
    ``run(eval_progress=True)``, so a page can say "evaluating: 120 / 400 batches" while a
    long evaluation runs (and its Stop button is seen to work).
    """

    step: int
    done: int
    total: int


# ---------------------------------------------------------------------------------------------
# Pure helpers


def lr_at(step: int, config: TrainConfig) -> float:
    """Learning rate for the step that starts with ``step`` updates done (nanoGPT's get_lr).

    Linear warmup to ``lr`` over ``warmup_steps``, cosine decay to ``min_lr`` at
    ``decay_steps``, then ``min_lr``.

    >>> cfg = TrainConfig(max_steps=100, lr=1e-3, min_lr=1e-4, warmup_steps=10)
    >>> [round(lr_at(s, cfg), 6) for s in (0, 9, 10, 55, 100, 500)]
    [9.1e-05, 0.000909, 0.001, 0.00055, 0.0001, 0.0001]
    """
    if step < config.warmup_steps:
        return config.lr * (step + 1) / (config.warmup_steps + 1)
    if step >= config.decay_steps:
        return config.min_lr
    progress = (step - config.warmup_steps) / (config.decay_steps - config.warmup_steps)
    return config.min_lr + 0.5 * (1.0 + math.cos(math.pi * progress)) * (config.lr - config.min_lr)


def prepare_data(corpus_text: str, tokenizer, val_fraction: float = 0.1,
                 block_size: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Encode a text once and split its tokens: the first part trains, the last validates.

    Returns two 1-D int64 tensors. With ``block_size``, both parts must hold at least one
    training window (``block_size + 1`` tokens), or a ``ConfigError`` says what to change.

    >>> from playground.tokenizer import train_tokenizer
    >>> tok = train_tokenizer("char", "abcd" * 25)
    >>> train_ids, val_ids = prepare_data("abcd" * 25, tok, val_fraction=0.1)
    >>> len(train_ids), len(val_ids), tok.decode(val_ids[:4].tolist())
    (90, 10, 'cdab')
    """
    if not 0.0 < val_fraction < 1.0:
        raise ConfigError(msg("val_fraction must be between 0 and 1, got {value}.",
                              value=f"{val_fraction:g}"))
    encode_array = getattr(tokenizer, "encode_array", None)
    ids = encode_array(corpus_text) if encode_array is not None else tokenizer.encode(corpus_text)
    ids = torch.as_tensor(ids, dtype=torch.long)
    n_train = int(len(ids) * (1.0 - val_fraction))
    train_ids, val_ids = ids[:n_train], ids[n_train:]
    if block_size is not None:
        check_length(train_ids, "training", block_size)
        check_length(val_ids, "validation", block_size)
    return train_ids, val_ids


def random_state_after_init(model_config, seed: int) -> torch.Tensor:
    """The CPU generator's state right after a model of ``model_config`` is built from ``seed``.

    nanoGPT seeds the global generator once, builds its model, and draws every batch from
    what follows; the "nanogpt" stream starts here. (Built in a forked state, so the global
    generator is untouched.)
    """
    from playground.model import GPT

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        GPT(model_config)
        return torch.get_rng_state()


class BatchStreams:
    """Where the random windows of training and evaluation batches start.

    Two variants (``TrainConfig.rng_stream``), picked when the trainer is built:
    ``separate_streams`` gives training and evaluation their own seeded generators, so the
    batches are the same whatever the model; ``nanogpt_stream`` draws both from one
    generator that continues from the draws that built the weights, in nanoGPT's order.
    A window is ``block_size + 1`` tokens (inputs and the next tokens).

    >>> streams = separate_streams(None, seed=0)
    >>> a = streams.train_starts(100, 4, block_size=8); _ = streams.eval_starts(100, 4, 8)
    >>> a.equal(separate_streams(None, seed=0).train_starts(100, 4, block_size=8))
    True
    """

    def __init__(self, train: torch.Generator, eval: torch.Generator):
        self.train, self.eval = train, eval

    def train_starts(self, n_ids: int, batch_size: int, block_size: int) -> torch.Tensor:
        return torch.randint(n_ids - block_size, (batch_size,), generator=self.train)

    def eval_starts(self, n_ids: int, batch_size: int, block_size: int) -> torch.Tensor:
        return torch.randint(n_ids - block_size, (batch_size,), generator=self.eval)

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {"train_rng": self.train.get_state(), "eval_rng": self.eval.get_state()}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        self.train.set_state(state["train_rng"])
        self.eval.set_state(state["eval_rng"])  # the same generator again for nanogpt_stream


def separate_streams(model_config, seed: int) -> BatchStreams:
    """Training batches from ``seed``, evaluation batches from ``seed + 1``."""
    return BatchStreams(torch.Generator().manual_seed(seed),
                        torch.Generator().manual_seed((seed + 1) % 2**63))


def nanogpt_stream(model_config, seed: int) -> BatchStreams:
    """One generator for both, starting where building the model from ``seed`` left it."""
    generator = torch.Generator()
    generator.set_state(random_state_after_init(model_config, seed))
    return BatchStreams(generator, generator)


STREAMS = {"separate": separate_streams, "nanogpt": nanogpt_stream}  # by TrainConfig.rng_stream


# the two parts of the text, as the messages name them
_PARTS = {"training": msg("training"), "validation": msg("validation")}


def check_length(ids: torch.Tensor, part: str, block_size: int) -> None:
    """Refuse a split (``part``: "training" or "validation") too short for one window."""
    if len(ids) < block_size + 1:
        raise ConfigError(msg("The {part} part of the text is {n} tokens long, but each training "
                              "window needs block_size + 1 = {needed} tokens. Use a longer text, "
                              "a smaller block_size, or a different val_fraction.",
                              part=_PARTS[part], n=f"{len(ids):,}",
                              needed=f"{block_size + 1:,}"))


def _check_split(config: TrainConfig, world_size: int) -> None:
    """The global batch must split evenly into processes, then into micro-batches.

    Only a torchrun launch (the CLI) has several processes, so this stays in English.
    """
    parts = world_size * config.grad_accum
    if world_size > 1 and config.batch_size % parts:
        lower, higher = config.batch_size // parts * parts, (config.batch_size // parts + 1) * parts
        raise ConfigError(
            f"batch_size={config.batch_size} is the global batch, shared by {world_size} "
            f"processes of grad_accum={config.grad_accum} micro-batches each, so it must be a "
            f"multiple of {parts}. Try batch_size {higher}" + (f" or {lower}." if lower else "."))


def _is_out_of_memory(error: BaseException) -> bool:
    if isinstance(error, (torch.OutOfMemoryError, MemoryError)):
        return True
    text = str(error).lower()
    return isinstance(error, RuntimeError) and (
        "out of memory" in text or "can't allocate memory" in text)


class _NonFiniteLoss(Exception):
    def __init__(self, loss: float):
        self.loss = loss


def _result(generator):
    """What a generator returns, run to its end (anything it yields is dropped)."""
    while True:
        try:
            next(generator)
        except StopIteration as end:
            return end.value


class _EvalStopped(Exception):
    """Stop was asked for during an evaluation (a big one takes minutes on a CPU)."""


def history_stride(step: int) -> int:
    """Which step records a run at ``step`` keeps: those of the steps this divides, the
    smallest power of two that keeps at most ``STEP_HISTORY_LIMIT``. Every step while a run
    is short (one stopped early keeps every step it made), then every 2nd, 4th... as it goes
    on; it depends only on the step, so a resumed run thins as a straight one does.

    >>> [history_stride(s) for s in (1, STEP_HISTORY_LIMIT, STEP_HISTORY_LIMIT + 1)]
    [1, 1, 2]
    """
    stride = 1
    while step > stride * STEP_HISTORY_LIMIT:
        stride *= 2
    return stride


def keep_record(history: list[Record], record: Record) -> None:
    """Add ``record`` to ``history`` (in place), step records thinned by ``history_stride``:
    a trainer's history and a page's live copy of it stay the same and bounded.

    >>> history = []
    >>> for step in range(1, 2 * STEP_HISTORY_LIMIT + 1):
    ...     keep_record(history, StepRecord(step, 0, 0.0, 0.0, 0.0, 0.0))
    >>> len(history), history[0].step, history[-1].step
    (5000, 2, 10000)
    """
    if not isinstance(record, StepRecord):
        history.append(record)
        return
    stride = history_stride(record.step)
    if stride > history_stride(record.step - 1):  # just doubled: every other step kept goes
        history[:] = [r for r in history if not isinstance(r, StepRecord) or r.step % stride == 0]
    if record.step % stride == 0:
        history.append(record)


class _StepStopped(Exception):
    """Stop was asked for in the middle of a training step (one step of a big model takes
    minutes on a CPU): the step is dropped, as if it never began."""


# ---------------------------------------------------------------------------------------------
# The trainer


class Trainer:
    """Trains ``model`` on token ids; ``run()`` is the loop, as a generator of records.

    ``train_ids`` and ``val_ids`` are 1-D sequences of token ids (tensors, arrays or lists).
    ``chars_per_token`` is (training, validation): each split's characters per token, which
    turn its loss into bits per character (``prepare.RunData`` measures them); ``tokenizer``
    is only needed for the sample texts at each evaluation (``config.sample_tokens > 0``).
    ``playground.prepare.prepare_run`` assembles all of this from a corpus and settings.

    Every random draw comes from generators of the trainer's own, never PyTorch's global one,
    so runs side by side in one process (several visitors) each stay repeatable: batches from
    ``self.streams`` (``BatchStreams``, the variant ``config.rng_stream`` names; with
    "separate" evaluating never shifts the training batches), dropout from ``self.dropout_rng``
    (seeded with ``config.seed`` plus the rank, on the run's device), which the model's dropout
    layers draw from (``GPT.use_dropout_generator``). The CPU thread count is the run's while it
    computes (``Placement.threads``) and the process's own between records.

    ``dist`` (from ``playground.runtime.distributed.init_distributed``) makes this one process of a
    data-parallel run: the model is wrapped in DistributedDataParallel, the device defaults
    to ``dist.device``, and ``run()``, ``evaluate()`` and every step are collectives that all
    processes must call together. ``self.model`` stays the plain model, ready to save.
    """

    def __init__(self, model: torch.nn.Module, train_ids: Sequence[int] | torch.Tensor,
                 val_ids: Sequence[int] | torch.Tensor, config: TrainConfig, *,
                 device: torch.device | str | None = None,
                 chars_per_token: tuple[float, float] = (1.0, 1.0),
                 tokenizer=None, dist: DistInfo | None = None, task=None):
        self.config = config
        self.task = task  # a playground.tasks.Task: its accuracy at every evaluation
        self.dist = dist or DistInfo()
        _check_split(config, self.dist.world_size)
        # (training, validation): each split's own characters per token (prepare.RunData)
        self.chars_per_token = tuple(float(c) for c in chars_per_token)
        if len(self.chars_per_token) != 2 or not all(c > 0 for c in self.chars_per_token):
            raise ConfigError(msg("chars_per_token must be positive, got {value}.",
                                  value=repr(chars_per_token)))
        self.tokenizer = tokenizer
        placed = place_model(model, config, device=device, dist=self.dist)
        self.device, self.dtype = placed.device, placed.dtype
        self._forward, self._train_forward = placed.forward, placed.train_forward
        self.threads: int | Callable[[], int] = placed.threads  # (or one per record: the app's)

        self.model = model
        self.block_size = model.config.block_size
        vocab_size = model.config.vocab_size
        self.train_ids = self._checked_ids(train_ids, "training", vocab_size)
        self.val_ids = self._checked_ids(val_ids, "validation", vocab_size)
        self.micro_batch = config.batch_size // config.grad_accum
        self._positions = torch.arange(self.block_size + 1, device=self.device)  # (T + 1,)

        self.optimizer = build_optimizer(model, config, self.device.type)  # AdamW, or Muon + AdamW
        # fp16 needs its loss scaled so small gradients survive; bf16 and fp32 do not
        self.scaler = torch.amp.GradScaler(self.device.type) if self.dtype == torch.float16 else None
        self._params = [p for group in self.optimizer.param_groups for p in group["params"]]

        # dropout differs between processes; rank 0 draws what a single process would
        self.dropout_rng = torch.Generator(self.device).manual_seed(
            (config.seed + self.dist.rank) % 2**63)
        model.use_dropout_generator(self.dropout_rng)
        self.streams = STREAMS[config.rng_stream](model.config, config.seed)
        self._next_starts: torch.Tensor | None = None  # the next step's batch, once drawn
        self.step = 0
        self.elapsed = 0.0  # seconds spent in run(), summed over calls
        self.train_time = 0.0  # of which in optimiser steps (evaluations excluded)
        self.history: list[Record] = []  # the records kept (see _remember), oldest first
        self._stop = threading.Event()
        self._in_step = False  # inside _train_step: Stop may end it midway (_stop_hooks)
        self._step_times: collections.deque[float] = collections.deque(maxlen=THROUGHPUT_WINDOW)

    def _checked_ids(self, ids, part: str, vocab_size: int) -> torch.Tensor:
        ids = torch.as_tensor(ids, dtype=torch.long).reshape(-1)
        check_length(ids, part, self.block_size)
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= vocab_size:
            raise ConfigError(msg("The {part} tokens run from {low} to {high}, but the model "
                                  "knows only {vocab_size} tokens (0 to {last}). Build the model "
                                  "with the tokenizer's vocab_size.",
                                  part=_PARTS[part], low=low, high=high,
                                  vocab_size=vocab_size, last=vocab_size - 1))
        return ids.to(self.device)

    # -- public controls ----------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once ``config.max_steps`` steps are done."""
        return self.step >= self.config.max_steps

    @property
    def tokens(self) -> int:
        return self.step * self.config.batch_size * self.block_size

    def stop(self) -> None:
        """Ask the loop to end after the current step (safe from any thread)."""
        self._stop.set()

    # -- the loop -----------------------------------------------------------------------------

    def run(self, max_steps: int | None = None, *,
            eval_progress: bool = False) -> Iterator[Record | EvalProgress]:
        """Train until ``config.max_steps``, or at most ``max_steps`` more steps; yield records.

        Calling ``run`` again continues where the last call ended (same step, optimiser and
        random streams), so a run can be driven in chunks. The last record is an
        ``EndRecord``; after it the model is in train mode, finite and ready to save.
        ``eval_progress`` adds an ``EvalProgress`` after every evaluation batch (not a record).
        Each record is computed with the run's CPU threads, and handed over with the
        process's own restored (``runtime.execution.with_threads``).
        """
        return with_threads(self._run(max_steps, eval_progress), self.threads)

    def _run(self, max_steps: int | None, eval_progress: bool) -> Iterator[Record | EvalProgress]:
        cfg = self.config
        end = cfg.max_steps if max_steps is None else min(cfg.max_steps, self.step + max_steps)
        self.model.train()
        started = time.perf_counter()
        base_elapsed = self.elapsed

        def elapsed() -> float:
            return base_elapsed + time.perf_counter() - started

        hooks = self._stop_hooks()
        try:
            if self.step == 0 and not any(isinstance(r, EvalRecord) for r in self.history):
                yield self._remember((yield from self._evaluate(elapsed, eval_progress)))
            while self.step < end:
                if agree_any(self._stop.is_set(), self.dist):
                    self._stop.clear()
                    yield self._remember(EndRecord(
                        self.step, "stopped", msg("Stopped at step {step} as asked.",
                                                  step=f"{self.step:,}")))
                    return
                record = self._train_step(elapsed)
                yield self._remember(record)
                if self.step % cfg.eval_interval == 0 or self.step == cfg.max_steps:
                    yield self._remember((yield from self._evaluate(elapsed, eval_progress)))
            if self.done:
                message = msg("Finished all {max_steps} steps.", max_steps=f"{cfg.max_steps:,}")
            else:
                message = msg("Paused at step {step} of {max_steps}; run() continues.",
                              step=f"{self.step:,}",
                              max_steps=f"{cfg.max_steps:,}")
            yield self._remember(EndRecord(self.step, "done", message))
        except _NonFiniteLoss as error:
            yield self._remember(EndRecord(self.step, "nan", self._nan_message(error.loss)))
        except (_EvalStopped, _StepStopped):  # dropped: a resumed run goes on as if it never began
            self._stop.clear()
            yield self._remember(EndRecord(self.step, "stopped", msg(
                "Stopped at step {step} as asked.", step=f"{self.step:,}")))
        except Exception as error:  # the process and the model must outlive any failure
            if self.dist.enabled:
                # the other processes wait in a collective this one left, so the run ends
                # here with nothing saved; torchrun reports this traceback (once)
                raise RankFailed(
                    f"Process {self.dist.rank} of {self.dist.world_size} failed at step "
                    f"{self.step + 1:,}: {type(error).__name__}: {error}") from error
            yield self._remember(self._failure(error))
        finally:
            for hook in hooks:
                hook.remove()
            self.elapsed = elapsed()

    def _stop_hooks(self) -> list:
        """Hooks on every block that let Stop end a training step midway, before a block's
        forward or as the gradients pass it on the way back (``_StepStopped``), so a big
        model's one long step does not hold Stop for minutes. None with DDP (every process
        must drop the same step) or compile (a hook would break its graphs)."""
        if self.dist.enabled or self.config.compile:
            return []

        def check(*_):
            if self._in_step and self._stop.is_set():
                raise _StepStopped

        def on_the_way_back(module, args, out):
            x = out[0] if isinstance(out, tuple) else out
            if self._in_step and isinstance(x, torch.Tensor) and x.requires_grad:
                x.register_hook(check)

        model = getattr(self.model, "module", self.model)
        hooks = []
        for block in getattr(model, "blocks", ()):
            hooks.append(block.register_forward_pre_hook(check))
            hooks.append(block.register_forward_hook(on_the_way_back))
        return hooks

    def _train_step(self, elapsed) -> StepRecord:
        """One optimiser step over ``grad_accum`` micro-batches; weights change only if finite.

        A Stop midway drops the step: its gradients go, the dropout generator is as before,
        and the same batch is the next step's (``_StepStopped``)."""
        dropout_state = self.dropout_rng.get_state()
        self._in_step = True
        try:
            return self._train_step_now(elapsed)
        except _StepStopped:
            self.optimizer.zero_grad(set_to_none=True)
            self.dropout_rng.set_state(dropout_state)
            raise
        except BaseException:  # a NaN, a failure: that batch was used, as by a finished step
            self._next_starts = None
            raise
        finally:
            self._in_step = False

    def _train_step_now(self, elapsed) -> StepRecord:
        cfg, opt = self.config, self.optimizer
        t0 = time.perf_counter()
        lr = lr_at(self.step, cfg)
        set_lr(opt, lr, cfg)  # Muon's groups: muon_lr scaled alike
        x, y = self._gather(self.train_ids, self._next_batch_starts())  # (B / N, T) each
        total = None
        for i, (xm, ym) in enumerate(zip(x.chunk(cfg.grad_accum), y.chunk(cfg.grad_accum))):
            with self._no_sync(last=i == cfg.grad_accum - 1):
                with autocast_context(self.device, self.dtype):
                    loss = self._train_forward(xm, ym, label_smoothing=cfg.label_smoothing)[1]
                if cfg.grad_accum > 1:
                    loss = loss / cfg.grad_accum  # the gradients add up to the mean over the batch
                (self.scaler.scale(loss) if self.scaler else loss).backward()
            total = loss.detach() if total is None else total + loss.detach()
        # the global batch's loss; a NaN in any process reaches all, so all stop together
        loss_value = all_reduce_mean(total, self.dist).item()
        if self.scaler:
            self.scaler.unscale_(opt)  # the norm (and the clipping) is of the true gradients
        if cfg.grad_clip > 0:
            norm = torch.nn.utils.clip_grad_norm_(self._params, cfg.grad_clip).item()
        else:  # measured all the same, for the page's gradient-norm plot and the coach
            norm = torch.nn.utils.get_total_norm(
                [p.grad for p in self._params if p.grad is not None]).item()
        # the fp16 scaler skips steps with overflowing gradients by itself
        grads_finite = cfg.grad_clip == 0 or self.scaler is not None or math.isfinite(norm)
        if not (math.isfinite(loss_value) and grads_finite):
            opt.zero_grad(set_to_none=True)  # the weights keep their last finite values
            raise _NonFiniteLoss(loss_value)
        if self.scaler:
            self.scaler.step(opt)
            self.scaler.update()
        else:
            opt.step()
        opt.zero_grad(set_to_none=True)
        self._next_starts = None  # used: the next step draws its own
        self.step += 1
        seconds = time.perf_counter() - t0
        self.train_time += seconds
        self._step_times.append(seconds)
        tokens_per_s = len(self._step_times) * cfg.batch_size * self.block_size / sum(self._step_times)
        return StepRecord(self.step, self.tokens, loss_value, lr, tokens_per_s, elapsed(), norm)

    def _no_sync(self, last: bool):
        """DDP's ``no_sync`` on all but the last micro-batch: gradients are averaged once."""
        if last or self._train_forward is self._forward:
            return contextlib.nullcontext()
        return self._train_forward.no_sync()

    def _next_batch_starts(self) -> torch.Tensor:
        """Where the next step's windows start, drawn once (evaluations draw it first)."""
        if self._next_starts is None:
            self._next_starts = self.streams.train_starts(
                len(self.train_ids), self.config.batch_size, self.block_size)
        return self._next_starts

    def _gather(self, ids: torch.Tensor, starts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The windows of ``ids`` that begin at ``starts``: inputs and next tokens, (B, T) each.

        With N processes, the starts are of the global batch: all draw the same ones (their
        generators are seeded alike) and this process keeps its slice, (B / N, T) each.
        """
        if self.dist.enabled:
            share = len(starts) // self.dist.world_size
            starts = starts[self.dist.rank * share:(self.dist.rank + 1) * share]
        window = ids[starts.to(self.device)[:, None] + self._positions]  # (B, T + 1) in one gather
        return window[:, :-1].contiguous(), window[:, 1:].contiguous()

    def evaluate(self) -> tuple[float, float]:
        """Mean loss on ``eval_iters`` training and validation batches: (train, val).

        Batches have the micro-batch size and come from the evaluation generator; the model
        runs in eval mode (no dropout) and returns to train mode afterwards. With several
        processes each evaluates its slice of every batch and the means are averaged. In one
        process, a ``stop()`` during the evaluation ends it after the current batch.
        """
        return _result(with_threads(self._evaluation(progress=False), self.threads))

    @torch.no_grad()  # on a generator: only while it runs, not while its caller holds it
    def _evaluation(self, progress: bool):
        """``evaluate`` as a generator: an ``EvalProgress`` after each batch when ``progress``;
        returns (train, val)."""
        cfg = self.config
        iters = cfg.first_eval_iters if self.step == 0 and cfg.first_eval_iters else cfg.eval_iters
        total = 2 * iters
        self.model.eval()
        try:
            means = []
            for ids in (self.train_ids, self.val_ids):
                losses = torch.zeros(iters, device=self.device)
                for i in range(iters):
                    # every process must run every batch of a collective evaluation
                    if self._stop.is_set() and not self.dist.enabled:
                        raise _EvalStopped
                    starts = self.streams.eval_starts(len(ids), self.micro_batch, self.block_size)
                    x, y = self._gather(ids, starts)
                    with autocast_context(self.device, self.dtype):
                        losses[i] = self._forward(x, y)[1]
                    if progress:
                        yield EvalProgress(self.step, len(means) * iters + i + 1, total)
                means.append(losses.mean())
        finally:
            self.model.train()
        train_loss, val_loss = all_reduce_mean(torch.stack(means), self.dist).tolist()
        return train_loss, val_loss

    def _evaluate(self, elapsed, progress: bool = False):
        """The evaluation at this step as a generator (``EvalProgress`` when ``progress``);
        returns its ``EvalRecord``."""
        # nanoGPT has drawn the next step's batch when it evaluates; with one stream the order
        # matters, and with separate streams drawing it now changes nothing
        self._next_batch_starts()
        before = self.streams.eval.get_state()
        try:
            train_loss, val_loss = yield from self._evaluation(progress)
        except _EvalStopped:
            self.streams.eval.set_state(before)  # a resumed run draws what a straight one would
            raise
        accuracy, sample = self._task_score() if self.task is not None else (None, self._sample())
        return EvalRecord(
            self.step, self.tokens, train_loss, val_loss,
            bits_per_char(train_loss, self.chars_per_token[0]),
            bits_per_char(val_loss, self.chars_per_token[1]),
            elapsed(), sample, accuracy)

    def _task_score(self) -> tuple[float | None, str | None]:
        """The task's held-out accuracy and a few problems marked right or wrong (rank 0)."""
        if self.tokenizer is None or not self.dist.is_main:
            return None, None
        from playground.tasks import score

        return score(self.task, self.model, self.tokenizer)

    def _sample(self) -> str | None:
        """A short seeded sample; generate() draws from its own generator, not the global one."""
        if not (self.config.sample_tokens and self.tokenizer is not None and self.dist.is_main):
            return None
        from playground.generate import generate_text

        tokens = self.config.sample_tokens
        if self.step == 0:
            tokens = min(tokens, START_SAMPLE_TOKENS)
        sampling = SampleConfig(max_new_tokens=tokens, seed=self.config.seed)
        # top_n=0: no list of likeliest tokens per token, which nothing here reads
        return generate_text(self.model, self.tokenizer, "", sampling, top_n=0)

    def _remember(self, record: Record) -> Record:
        keep_record(self.history, record)
        return record

    # -- failures -----------------------------------------------------------------------------

    def _nan_message(self, loss: float) -> Message:
        lr = lr_at(self.step, self.config)
        key = ("The loss became {loss} at step {step}, so training stopped there. The weights are "
               "those from before that step. A learning rate that is too high is the usual cause: "
               "try lr={suggested_lr} (this step used {lr}), or turn on grad_clip=1.0."
               if self.config.grad_clip == 0 else
               "The loss became {loss} at step {step}, so training stopped there. The weights are "
               "those from before that step. A learning rate that is too high is the usual cause: "
               "try lr={suggested_lr} (this step used {lr}).")
        return msg(key, loss=str(loss), step=f"{self.step + 1:,}",
                   suggested_lr=f"{self.config.lr / 3:.3g}", lr=f"{lr:.3g}")

    def _failure(self, error: Exception) -> EndRecord:
        self.optimizer.zero_grad(set_to_none=True)  # frees the gradients; weights stay as they are
        gc.collect()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        if _is_out_of_memory(error):
            return EndRecord(self.step, "oom", msg(
                "Ran out of memory at step {step} on {device}. Try a smaller batch_size (now "
                "{batch_size}), more grad_accum micro-batches, a shorter block_size (now "
                "{block_size}) or a smaller model. The weights from step {kept_step} are kept.",
                step=f"{self.step + 1:,}", device=self.device.type,
                batch_size=self.config.batch_size, block_size=self.block_size,
                kept_step=f"{self.step:,}"))
        log.exception("training failed at step %d", self.step + 1)
        # an error raised with a Message keeps it, so the page can translate the reason too
        own = len(error.args) == 1 and isinstance(error.args[0], Message)
        reason = error.args[0] if own else str(error)
        # a reason that is a whole sentence brings its own full stop
        sentence = reason.rstrip().endswith((".", "!", "?", "。"))
        return EndRecord(self.step, "error", msg(
            "Training failed at step {step}: {error_type}: {error} The weights from step "
            "{kept_step} are kept."
            if sentence else
            "Training failed at step {step}: {error_type}: {error}. The weights from step "
            "{kept_step} are kept.",
            step=f"{self.step + 1:,}", error_type=type(error).__name__, error=reason,
            kept_step=f"{self.step:,}"))

    # -- resuming -----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Everything besides the weights that a resumed run needs: tensors and plain values."""
        state = {
            "step": self.step,
            "elapsed": self.elapsed,
            "train_time": self.train_time,
            "optimizer": self.optimizer.state_dict(),
            **self.streams.state_dict(),
            "next_starts": self._next_starts,
            "torch_rng": self.dropout_rng.get_state(),  # the dropout generator's (a GPU's: 16 bytes)
            "history": list(self.history),  # records: checkpoint writes them as JSON
        }
        if self.scaler is not None:
            state["scaler"] = self.scaler.state_dict()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue a run from ``state_dict()``; the model's weights must be loaded already."""
        self.step = int(state["step"])
        self.elapsed = float(state["elapsed"])
        self.train_time = float(state["train_time"])
        load_optimizer_state(self.optimizer, state["optimizer"], self.config)
        self.streams.load_state_dict(state)
        self._next_starts = state["next_starts"]
        self._load_dropout_rng(state)
        if self.scaler is not None and "scaler" in state:
            self.scaler.load_state_dict(state["scaler"])
        self.history = list(state["history"])
        self._step_times.clear()

    def _load_dropout_rng(self, state: dict[str, Any]) -> None:
        """The dropout stream as saved, where this process can continue it: rank 0, on the
        device kind that saved it. Other ranks and other devices start afresh from the seed,
        the rank and the step."""
        if not self.dist.rank:
            try:
                self.dropout_rng.set_state(state["torch_rng"])
                return
            except (RuntimeError, TypeError, ValueError):  # another device's generator
                pass
        seed = self.config.seed + self.dist.rank + self.dist.world_size * self.step
        self.dropout_rng.manual_seed(seed % 2**63)
