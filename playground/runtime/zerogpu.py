"""Training runs for the page: straight in this process, or in chunks on a ZeroGPU Space.

On a ZeroGPU Space (the ``spaces`` package is installed and ``SPACES_ZERO_GPU`` is set:
``Hosting.on_zero_gpu``) a GPU exists only inside functions decorated with ``spaces.GPU``,
each call is limited in time, and the call runs in a forked child process whose changes never
reach this one. So a long run goes in chunks: each chunk rebuilds the model and the trainer
from the weights and the trainer state, trains for at most ``Hosting.chunk_s`` seconds
(``PLAYGROUND_CHUNK_SECONDS``, 45), and yields the records and then the new state back. Everywhere else ``LocalRun`` drives one ``Trainer`` in this process, and
the ``gpu`` decorator does nothing.

Each chunk asks for the GPU time it needs (``chunk_duration``): its budget, or what the run
has left when that is less (the last chunk), plus the start-up and the step and evaluation
it may run past its budget, measured on the run's earlier chunks. A visitor's daily quota is
spent on training, not on time asked for and left unused. A refusal that says how much quota
is left is first tried again with a chunk that fits. When ZeroGPU then refuses a chunk for the
visitor's quota, the run carries on in this process on the CPU, from the last chunk's exact
state and in fair-share turns with every other run here, as a ``LocalRun`` would (an ``OnCpu``
record says so, for the page to show). When ZeroGPU loses a chunk, the run ends as "stopped"
with the weights of the last chunk that came back, so the page offers the download and
"Continue training" as after Stop.
``torch.compile`` does not work there, and a chunked run refuses it before it starts.

Both offer ``records()``, ``stop()``, ``state()``, ``model`` and ``history``. ``LocalRun.stop``
asks the trainer directly; ``ChunkedRun.stop`` writes a small flag file that the chunk checks
after every step (a forked child sees the file system, not our memory).

>>> gpu(duration=60)(len)("abc")   # without ZeroGPU the decorator changes nothing
3
"""

from __future__ import annotations

try:  # first, before torch: the spaces package insists on coming before any CUDA use
    import spaces

    gpu = spaces.GPU
except ImportError:
    def gpu(fn=None, **_):
        """The same call shapes as ``spaces.GPU`` (bare or with arguments), doing nothing."""
        return fn if fn is not None else (lambda f: f)

import contextlib  # noqa: E402
import logging  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Iterator  # noqa: E402

import torch  # noqa: E402

from playground import estimate  # noqa: E402
from playground.config import ConfigError, ModelConfig, TrainConfig  # noqa: E402
from playground.i18n import Message, msg  # noqa: E402
from playground.model import GPT  # noqa: E402
from playground.prepare import PreparedRun, RunData, build_trainer  # noqa: E402
from playground.train import EndRecord, EvalRecord, Record, StepRecord  # noqa: E402
from playground.runtime import fairshare, hosting  # noqa: E402

log = logging.getLogger(__name__)

# GPU seconds asked beyond a chunk's budget. Before the run's first chunk nothing is known of
# its speed: start-up (a new GPU process, CUDA, the model rebuilt), the first evaluation and a
# step past the budget all come out of this. Later chunks ask for START_SECONDS plus two steps
# and an evaluation as the run measured them (a chunk stops only where no evaluation is due).
FIRST_CHUNK_MARGIN = 20.0
START_SECONDS = 8.0
MIN_CHUNK_SECONDS = 3.0  # a smaller budget than this is not worth a GPU call

# What a run costs of a visitor's daily quota is known before Start only from an assumed speed
# of ZeroGPU's card (half an RTX PRO 6000 Blackwell, ``size="large"``): no GPU has timed this
# code there yet. 60 TFLOP/s is about a quarter of that half card's bf16 peak, and 8 ms a step
# (3 ms a forward pass) the launch cost of a small model's kernels. ZeroGPU counts a second of
# that card as 1.5 (spaces' configs.json, "duration_factor").
ZEROGPU_SPEED = estimate.Speed(flops_per_s=60e12, overhead_s=0.008, device="cuda",
                               forward_overhead_s=0.003)
QUOTA_FACTOR = 1.5
DAILY_QUOTA_S = {"anonymous": 120, "signed_in": 300, "pro": 2400}  # hub-docs, 2026


@dataclass
class ChunkState:
    """What a chunk hands back: CPU weights and the trainer state (history included)."""

    weights: dict[str, torch.Tensor]
    trainer_state: dict[str, Any]


def _to_cpu(obj: Any) -> Any:
    """The same nested structure with every tensor copied to the CPU (to pickle it back)."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: _to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_cpu(v) for v in obj)
    return obj


def _eval_due(record: Any, config: TrainConfig) -> bool:
    """True right after a step that the trainer evaluates next (closing there would skip it)."""
    return isinstance(record, StepRecord) and (
        record.step % config.eval_interval == 0 or record.step == config.max_steps)


# --- how much GPU time a chunk asks for --------------------------------------------------------

def run_speed(trainer_state: dict | None) -> tuple[float, float] | None:
    """(seconds per step, seconds per evaluation) a run has shown so far; None before it has
    done a step. Evaluations (with their samples) are the run's time outside its steps.

    >>> from playground.train import EvalRecord
    >>> evals = [EvalRecord(s, 0, 1.0, 1.0, 1.0, 1.0, 0.0) for s in (0, 50)]
    >>> run_speed({"step": 100, "elapsed": 12.0, "train_time": 10.0, "history": evals})
    (0.1, 1.0)
    """
    if not trainer_state or not trainer_state.get("step"):
        return None
    evals = sum(isinstance(r, EvalRecord) for r in trainer_state.get("history", ()))
    step_s = float(trainer_state["train_time"]) / int(trainer_state["step"])
    eval_s = max(0.0, float(trainer_state["elapsed"]) - float(trainer_state["train_time"]))
    return step_s, eval_s / max(1, evals)


def seconds_left(trainer_state: dict | None, config: TrainConfig,
                 speed: tuple[float, float] | None = None) -> float | None:
    """About how long the rest of the run takes at its speed so far (or at ``speed``: seconds
    per step and per evaluation), its evaluations included (the one at the end too); None
    before its first step.

    >>> cfg = TrainConfig(max_steps=120, eval_interval=50)
    >>> state = {"step": 100, "elapsed": 12.0, "train_time": 10.0, "history": []}
    >>> round(seconds_left(state, cfg), 3), seconds_left(state, cfg, speed=(1.0, 5.0))
    (4.0, 25.0)
    """
    speed = speed or run_speed(trainer_state)
    if speed is None or not trainer_state:
        return None
    step = int(trainer_state["step"])
    steps = max(0, config.max_steps - step)
    evals = (config.max_steps // config.eval_interval - step // config.eval_interval
             + (config.max_steps % config.eval_interval != 0)) if steps else 0
    return steps * speed[0] + evals * speed[1]


def chunk_overhead(trainer_state: dict | None) -> float:
    """GPU seconds a chunk asks for beyond its budget (``FIRST_CHUNK_MARGIN`` at first)."""
    speed = run_speed(trainer_state)
    if speed is None:
        return FIRST_CHUNK_MARGIN
    step_s, eval_s = speed
    return START_SECONDS + 2 * step_s + eval_s


def chunk_duration(model_config: dict, weights: dict, data: RunData, train_config: dict,
                   trainer_state: dict | None, tokenizer, stop_path: str,
                   seconds: float | None = None) -> int:
    """The GPU seconds ``train_chunk`` asks ZeroGPU for, given the same arguments: the
    chunk's budget, or the time the run has left when that is less, plus ``chunk_overhead``.

    >>> cfg = TrainConfig(max_steps=120, eval_interval=50).to_dict()
    >>> chunk_duration({}, {}, None, cfg, None, None, "", seconds=45)  # the first chunk
    65
    >>> state = {"step": 100, "elapsed": 12.0, "train_time": 10.0, "history": []}
    >>> chunk_duration({}, {}, None, cfg, state, None, "", seconds=45)  # 4 s of work left
    15
    """
    seconds = hosting.current().chunk_s if seconds is None else seconds
    left = seconds_left(trainer_state, TrainConfig.from_dict(train_config))
    budget = seconds if left is None else min(seconds, left)
    return math.ceil(budget + chunk_overhead(trainer_state))


def quota_cost(model_config: ModelConfig, train_config: TrainConfig,
               chunk_s: float | None = None) -> float:
    """About how many seconds of a visitor's daily ZeroGPU quota a run of these configs takes:
    its training and evaluations at ``ZEROGPU_SPEED``, each chunk's start-up, counted as
    ZeroGPU counts them (``QUOTA_FACTOR``).

    >>> cost = quota_cost(ModelConfig(), TrainConfig(max_steps=2000, eval_interval=250))
    >>> 10 < cost < DAILY_QUOTA_S["signed_in"]
    True
    """
    chunk_s = hosting.current().chunk_s if chunk_s is None else chunk_s
    gpu_s = estimate.estimate_run(model_config, train_config, ZEROGPU_SPEED).seconds
    chunks = max(1, math.ceil(gpu_s / chunk_s)) if chunk_s > 0 else train_config.max_steps
    return QUOTA_FACTOR * (gpu_s + chunks * START_SECONDS)


def quota_line(model_config: ModelConfig, train_config: TrainConfig) -> Message:
    """What the page says above Start on ZeroGPU: the run's cost of the daily quota, and what
    signing in gives.

    >>> str(quota_line(ModelConfig(), TrainConfig(max_steps=10))).split(" (")[0]
    '**About 12 s of your daily ZeroGPU time**'
    """
    return msg("**About {cost} of your daily ZeroGPU time** (estimated). Visitors who are not "
               "signed in to Hugging Face get {anonymous} min a day, signed-in ones {signed_in} "
               "min: sign in for more. When it runs out, training goes on on the CPU, slower.",
               cost=estimate.duration_message(quota_cost(model_config, train_config)),
               anonymous=DAILY_QUOTA_S["anonymous"] // 60,
               signed_in=DAILY_QUOTA_S["signed_in"] // 60)


# ZeroGPU's refusal when the visitor's quota is short: "... (75s requested vs. 40s left) ..."
_QUOTA_LEFT = re.compile(r"\((\d+)s requested vs\. (\d+)s left\)")


def fitting_budget(error: BaseException, asked: int, trainer_state: dict | None) -> float | None:
    """The budget of a chunk that fits in what ZeroGPU says is left of the quota, when its
    refusal says so and such a chunk is worth a call; else None.

    ZeroGPU may count a second asked as more than one (its ``requested`` is ours times its
    factor), so the budget is scaled by the same factor.

    >>> quota = Exception("You have exceeded your free ZeroGPU quota (65s requested vs. 30s left).")
    >>> fitting_budget(quota, 65, None)  # 30 s left, less the first chunk's margin of 20 s
    9.0
    >>> fitting_budget(Exception("(65s requested vs. 15s left)"), 65, None) is None
    True
    """
    found = _QUOTA_LEFT.search(str(getattr(error, "message", "") or error))
    if not found or not asked:
        return None
    requested, left = int(found.group(1)), int(found.group(2))
    fits = math.floor(left * asked / requested) if requested else 0
    budget = fits - math.ceil(chunk_overhead(trainer_state)) - 1.0  # chunk_duration rounds up
    return budget if budget >= MIN_CHUNK_SECONDS else None


def is_quota_refusal(error: BaseException) -> bool:
    """Whether ZeroGPU refused the call for the visitor's quota (its ``gr.Error`` titles)."""
    title = str(getattr(error, "title", "") or "")
    return title.startswith("ZeroGPU") and ("quota" in title or "duration" in title
                                            or "credits" in title)


@dataclass(frozen=True)
class OnCpu:
    """ZeroGPU refused the run a chunk for the visitor's quota, and the run goes on on this
    machine's CPU from ``step``: yielded at the switch (``seconds_left`` None), then once more
    after its first step there, with about how long the rest takes on the CPU."""

    step: int
    seconds_left: float | None = None

    def message(self) -> Message:
        """The line the page shows.

        >>> str(OnCpu(40, 150.0).message())
        'Your GPU time for today is used up; training goes on on the CPU, about 3 min left.'
        """
        if self.seconds_left is None:
            return msg("Your GPU time for today is used up; training goes on on the CPU.")
        return msg("Your GPU time for today is used up; training goes on on the CPU, about "
                   "{minutes} min left.", minutes=max(1, math.ceil(self.seconds_left / 60)))

    def ended_message(self) -> Message:
        """The line under the run's last status: where its GPU time ended.

        >>> str(OnCpu(40, 150.0).ended_message())
        'Your GPU time for today ran out at step 40; the rest of the run trained on the CPU.'
        """
        return msg("Your GPU time for today ran out at step {step}; the rest of the run trained "
                   "on the CPU.", step=f"{self.step:,}")


@gpu(duration=chunk_duration)  # asked anew for every call, from the same arguments
def train_chunk(model_config: dict, weights: dict, data: RunData, train_config: dict,
                trainer_state: dict | None, tokenizer, stop_path: str,
                seconds: float | None = None) -> Iterator[Any]:
    """One GPU call: rebuild, train for at most ``seconds``, yield records, then a ChunkState.

    Ends early with the trainer's own ``EndRecord`` when the run is done or ``stop_path``
    exists. Every chunk trains at least one step, even when the first evaluation alone takes
    longer than ``seconds``: the run moves on, and the next chunk knows its speed. Only
    picklable values go in and out (ZeroGPU pickles both directions).
    """
    model = GPT(ModelConfig.from_dict(model_config))
    model.load_state_dict(weights)
    trainer = build_trainer(model, data, TrainConfig.from_dict(train_config), tokenizer,
                            trainer_state)
    seconds = hosting.current().chunk_s if seconds is None else seconds
    started, first_step = time.monotonic(), trainer.step
    run = trainer.run()
    for record in run:
        yield record
        if isinstance(record, EndRecord):
            break
        if os.path.exists(stop_path):
            trainer.stop()  # the next record is EndRecord("stopped")
        elif (time.monotonic() - started > seconds and trainer.step > first_step
              and not _eval_due(record, trainer.config)
              and not trainer.done):  # once done, the end record comes next: no call for it
            run.close()  # between steps, no evaluation owed: the state resumes exactly
            break
    yield ChunkState(_to_cpu(model.state_dict()), _to_cpu(trainer.state_dict()))


def share_threads(trainer) -> None:
    """A trainer told ``threads=0`` ("let PyTorch decide") computes with all cores while alone,
    with one while others share the machine (fairshare)."""
    if trainer.config.threads == 0:
        alone = trainer.threads
        trainer.threads = lambda: 1 if fairshare.MACHINE.crowded() else alone


class LocalRun:
    """One ``Trainer`` in this process; the model is trained in place."""

    def __init__(self, plan: PreparedRun, *, workdir: Path, device: str | None = None):
        self.trainer = plan.trainer(device=device)
        self.model = plan.trained.model
        share_threads(self.trainer)

    @property
    def step(self) -> int:
        return self.trainer.step

    @property
    def history(self) -> list[Record]:
        return self.trainer.history

    def records(self, eval_progress: bool = False, max_steps: int | None = None) -> Iterator[Any]:
        """The trainer's records (and ``EvalProgress`` during evaluations when asked), for at
        most ``max_steps`` more steps when given (``Trainer.run``)."""
        return self.trainer.run(max_steps, eval_progress=eval_progress)

    def stop(self) -> None:
        self.trainer.stop()

    def state(self) -> dict[str, Any]:
        return self.trainer.state_dict()


class ChunkedRun:
    """A run driven in ``train_chunk`` calls; ``model`` (on the CPU) gets each chunk's weights.
    Once ZeroGPU refuses a chunk for the quota, a ``Trainer`` here trains ``model`` in place
    (``on_cpu``), and ``step``, ``history``, ``state()`` and ``stop()`` follow it.

    Refuses ``compile`` (``ConfigError``): ZeroGPU cannot run ``torch.compile``, and each chunk
    would compile afresh anyway."""

    def __init__(self, plan: PreparedRun, *, workdir: Path, seconds: float | None = None):
        trained = plan.trained
        if trained.train_config.compile:
            raise ConfigError(msg("compile (torch.compile) does not work on ZeroGPU, where each "
                                  "stretch of training runs in a new GPU process: untick compile "
                                  "and press Start again."))
        self.model = trained.model.cpu()
        self.data, self.train_config, self.tokenizer = plan.data, trained.train_config, trained.tokenizer
        self.seconds = hosting.current().chunk_s if seconds is None else seconds
        self._state = trained.trainer_state
        self.on_cpu = None  # the Trainer that goes on here once the quota is spent
        self.stop_path = workdir / "stop-training"
        self.stop_path.unlink(missing_ok=True)

    @property
    def step(self) -> int:
        if self.on_cpu is not None:
            return self.on_cpu.step
        return int(self._state["step"]) if self._state else 0

    @property
    def history(self) -> list[Record]:
        if self.on_cpu is not None:
            return self.on_cpu.history
        return list(self._state["history"]) if self._state else []

    def records(self, eval_progress: bool = False) -> Iterator[Any]:
        """Chunks until an ``EndRecord`` arrives; the model and state advance after each.

        A chunk that ZeroGPU refuses for the quota hands the run to the CPU (``_carry_on``).
        One that it loses, or refuses for another reason, ends the run as "stopped" with the
        last chunk's weights (``_lost``); records such a chunk yielded before it was lost are
        not in the state, so ``history`` goes with the weights.

        No ``EvalProgress`` (``eval_progress`` is accepted and ignored): a chunk evaluates on
        its GPU in moments, and its records only arrive as the chunk yields them."""
        seconds, retried = self.seconds, False
        try:
            while True:
                end = None
                args = (self.model.config.to_dict(), _to_cpu(self.model.state_dict()), self.data,
                        self.train_config.to_dict(), self._state, self.tokenizer,
                        str(self.stop_path), seconds)
                try:
                    with contextlib.closing(train_chunk(*args)) as chunk:
                        for item in chunk:
                            if isinstance(item, ChunkState):
                                self.model.load_state_dict(item.weights)
                                self._state = item.trainer_state
                            elif isinstance(item, EndRecord):
                                end = item  # held back until the chunk's weights are in self.model
                            else:
                                yield item
                except Exception as error:  # the GPU call, not training: the trainer keeps its own
                    budget = None if retried else fitting_budget(
                        error, chunk_duration(*args), self._state)
                    if budget is not None:  # a smaller chunk fits in the quota left: once
                        seconds, retried = budget, True
                        continue
                    if is_quota_refusal(error):
                        yield from self._carry_on(eval_progress)
                    else:
                        yield self._lost(error)
                    return
                if end is not None:
                    yield end
                    return
                seconds, retried = self.seconds, False
        finally:
            self.stop_path.unlink(missing_ok=True)

    def _carry_on(self, eval_progress: bool) -> Iterator[Any]:
        """The rest of the run on this machine's CPU, from the last chunk's state, in turns
        with every other run here (``fairshare``; its ``Waiting`` records pass through):
        ``OnCpu`` at once, and again with the time left once the first step there is timed."""
        log.info("ZeroGPU quota spent at step %s: the run goes on on the CPU", self.step)
        gpu_speed, at_switch = run_speed(self._state), self._state
        trainer = build_trainer(self.model, self.data, self.train_config, self.tokenizer,
                                self._state, device="cpu")
        share_threads(trainer)
        self.on_cpu = trainer
        if self.stop_path.exists():  # Stop pressed as the quota ran out
            trainer.stop()
        yield OnCpu(trainer.step)
        timed = False
        for record in fairshare.MACHINE.take_turns(trainer.run(eval_progress=eval_progress),
                                                   owner=id(self), report=True):
            yield record
            if isinstance(record, StepRecord) and not timed:
                timed, now = True, trainer.state_dict()
                step_s = (now["train_time"] - (at_switch or {}).get("train_time", 0.0)) / max(
                    1, now["step"] - int((at_switch or {}).get("step", 0)))
                # evaluations slow down as steps do; a run that never had a GPU step
                # has timed its own first evaluation here
                speed = ((step_s, gpu_speed[1] * step_s / gpu_speed[0]) if gpu_speed
                         else run_speed(now))
                yield OnCpu(trainer.step, seconds_left(now, self.train_config, speed))

    def _lost(self, error: BaseException) -> EndRecord:
        """The "stopped" end of a run whose GPU call failed (not for the quota)."""
        # ZeroGPU's own sentence, inside our brackets: its full stop would end ours early
        reason = str(getattr(error, "message", "") or error).strip().rstrip(".") or type(error).__name__
        step = f"{self.step:,}"
        log.error("a ZeroGPU chunk failed at step %s", step, exc_info=error)
        end = EndRecord(self.step, "stopped", msg(
            "The GPU call failed ({reason}). The run stopped at step {step} with the weights of "
            "that step: download them below, or continue training.", reason=reason, step=step))
        if self._state:  # the history says how the run ended, as a trainer's own does
            self._state = {**self._state, "history": [*self._state["history"], end]}
        return end

    def stop(self) -> None:
        self.stop_path.touch()
        if self.on_cpu is not None:
            self.on_cpu.stop()

    def state(self) -> dict[str, Any]:
        return self.on_cpu.state_dict() if self.on_cpu is not None else self._state


def start_run(plan: PreparedRun, *, workdir: Path, chunk_seconds: float | None = None):
    """A ``ChunkedRun`` on ZeroGPU (or when ``chunk_seconds`` is given), else a ``LocalRun``."""
    if chunk_seconds is None and not hosting.current().on_zero_gpu:
        return LocalRun(plan, workdir=workdir)
    return ChunkedRun(plan, workdir=workdir, seconds=chunk_seconds)
