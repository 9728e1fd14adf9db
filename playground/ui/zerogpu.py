"""Training runs for the page: straight in this process, or in chunks on a ZeroGPU Space.

On a ZeroGPU Space (the ``spaces`` package is installed and ``SPACES_ZERO_GPU`` is set) a GPU
exists only inside functions decorated with ``spaces.GPU``, each call is limited in time,
and the call runs in a forked child process whose changes never reach this one. So a long
run goes in chunks: each chunk rebuilds the model and the trainer from the weights and the
trainer state, trains for at most ``CHUNK_SECONDS``, and yields the records and then the
new state back. Everywhere else ``LocalRun`` drives one ``Trainer`` in this process, and
the ``gpu`` decorator does nothing.

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

import os  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Iterator  # noqa: E402

import torch  # noqa: E402

from playground.config import ModelConfig, TrainConfig  # noqa: E402
from playground.model import GPT  # noqa: E402
from playground.prepare import PreparedRun, RunData, build_trainer  # noqa: E402
from playground.train import EndRecord, Record, StepRecord  # noqa: E402

ON_ZERO_GPU = os.environ.get("SPACES_ZERO_GPU", "").strip().lower() in {"1", "true", "yes"}
CHUNK_SECONDS = float(os.environ.get("PLAYGROUND_CHUNK_SECONDS", "45"))


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


@gpu(duration=int(CHUNK_SECONDS + 30))  # GPU seconds per call: the budget, start-up, transfer
def train_chunk(model_config: dict, weights: dict, data: RunData, train_config: dict,
                trainer_state: dict | None, tokenizer, stop_path: str,
                seconds: float = CHUNK_SECONDS) -> Iterator[Any]:
    """One GPU call: rebuild, train for at most ``seconds``, yield records, then a ChunkState.

    Ends early with the trainer's own ``EndRecord`` when the run is done or ``stop_path``
    exists. Only picklable values go in and out (ZeroGPU pickles both directions).
    """
    model = GPT(ModelConfig.from_dict(model_config))
    model.load_state_dict(weights)
    trainer = build_trainer(model, data, TrainConfig.from_dict(train_config), tokenizer,
                            trainer_state)
    started = time.monotonic()
    run = trainer.run()
    for record in run:
        yield record
        if isinstance(record, EndRecord):
            break
        if os.path.exists(stop_path):
            trainer.stop()  # the next record is EndRecord("stopped")
        elif time.monotonic() - started > seconds and not _eval_due(record, trainer.config):
            run.close()  # between steps, no evaluation owed: the state resumes exactly
            break
    yield ChunkState(_to_cpu(model.state_dict()), _to_cpu(trainer.state_dict()))


class LocalRun:
    """One ``Trainer`` in this process; the model is trained in place."""

    def __init__(self, plan: PreparedRun, *, workdir: Path):
        self.trainer = plan.trainer()
        self.model = plan.model

    @property
    def step(self) -> int:
        return self.trainer.step

    @property
    def history(self) -> list[Record]:
        return self.trainer.history

    def records(self, eval_progress: bool = False) -> Iterator[Any]:
        """The trainer's records (and ``EvalProgress`` during evaluations when asked)."""
        return self.trainer.run(eval_progress=eval_progress)

    def stop(self) -> None:
        self.trainer.stop()

    def state(self) -> dict[str, Any]:
        return self.trainer.state_dict()


class ChunkedRun:
    """A run driven in ``train_chunk`` calls; ``model`` (on the CPU) gets each chunk's weights."""

    def __init__(self, plan: PreparedRun, *, workdir: Path, seconds: float = CHUNK_SECONDS):
        self.model = plan.model.cpu()
        self.data, self.train_config, self.tokenizer = plan.data, plan.train_config, plan.tokenizer
        self.seconds = seconds
        self._state = plan.trainer_state
        self.stop_path = workdir / "stop-training"
        self.stop_path.unlink(missing_ok=True)

    @property
    def step(self) -> int:
        return int(self._state["step"]) if self._state else 0

    @property
    def history(self) -> list[Record]:
        return list(self._state["history"]) if self._state else []

    def records(self, eval_progress: bool = False) -> Iterator[Any]:
        """Chunks until an ``EndRecord`` arrives; the model and state advance after each.

        No ``EvalProgress`` (``eval_progress`` is accepted and ignored): a chunk evaluates on
        its GPU in moments, and its records only arrive as the chunk yields them."""
        try:
            while True:
                end = None
                for item in train_chunk(
                        self.model.config.to_dict(), _to_cpu(self.model.state_dict()), self.data,
                        self.train_config.to_dict(), self._state, self.tokenizer,
                        str(self.stop_path), self.seconds):
                    if isinstance(item, ChunkState):
                        self.model.load_state_dict(item.weights)
                        self._state = item.trainer_state
                    elif isinstance(item, EndRecord):
                        end = item  # held back until the chunk's weights are in self.model
                    else:
                        yield item
                if end is not None:
                    yield end
                    return
        finally:
            self.stop_path.unlink(missing_ok=True)

    def stop(self) -> None:
        self.stop_path.touch()

    def state(self) -> dict[str, Any]:
        return self._state


def start_run(plan: PreparedRun, *, workdir: Path, chunk_seconds: float | None = None):
    """A ``ChunkedRun`` on ZeroGPU (or when ``chunk_seconds`` is given), else a ``LocalRun``."""
    if chunk_seconds is None and not ON_ZERO_GPU:
        return LocalRun(plan, workdir=workdir)
    return ChunkedRun(plan, workdir=workdir,
                      seconds=CHUNK_SECONDS if chunk_seconds is None else chunk_seconds)
