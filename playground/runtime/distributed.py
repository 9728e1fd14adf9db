"""Training on several processes: torchrun, ``torch.distributed`` and DistributedDataParallel.

``torchrun`` starts one process per GPU (or several on a CPU) and tells each who it is in
environment variables: ``RANK`` (0 to ``WORLD_SIZE - 1`` over all machines), ``LOCAL_RANK``
(on this machine), ``WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT``. ``init_distributed``
reads them, joins the process group (NCCL on CUDA, each process on ``cuda:LOCAL_RANK``; gloo
on the CPU) and returns a ``DistInfo``. Without them, as in a plain ``python -m playground
train``, it returns the one-process ``DistInfo`` and touches nothing. The trainer takes a
``DistInfo`` and never reads the environment itself.

The helpers below are no-ops for one process, so the training loop calls them unconditionally:

>>> info = init_distributed("cpu", env={})        # not started by torchrun
>>> info.world_size, info.rank, info.is_main, info.enabled
(1, 0, True, False)
>>> all_reduce_mean(torch.tensor([2.0, 4.0]), info)
tensor([2., 4.])
>>> agree_any(False, info)
False
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta
from typing import Mapping

import torch
import torch.distributed

from playground.config import ConfigError
from playground.runtime.device import DeviceError

TIMEOUT_ENV = "PLAYGROUND_DIST_TIMEOUT"
# How long a collective may wait for the slowest process before the run fails (seconds).
# torchrun already ends the whole run when one process dies; this bounds the wait when a
# process hangs instead. Long enough for torch.compile warm-ups and a rank-0 sample.
DEFAULT_TIMEOUT_S = 300.0


class RankFailed(RuntimeError):
    """One process of a distributed run failed; the message names its rank and the cause."""


@dataclass(frozen=True)
class DistInfo:
    """Who this process is in the run. The default is the single process of a plain run.

    ``device`` is the device torchrun's ``LOCAL_RANK`` gives this process (``cuda:1``,
    or ``cpu``); None for a single process, whose device the training settings choose.
    """

    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    device: torch.device | None = None

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that prints, writes the history and saves the bundle."""
        return self.rank == 0

    @property
    def enabled(self) -> bool:
        """True when several processes train together (a process group exists)."""
        return self.world_size > 1


def init_distributed(device_pref: str = "auto", env: Mapping[str, str] | None = None,
                     timeout_s: float | None = None) -> DistInfo:
    """Join torchrun's process group when ``WORLD_SIZE > 1``; return who this process is.

    ``device_pref`` is the ``device`` setting: "auto" or "cuda" put each process on the GPU
    of its ``LOCAL_RANK`` with NCCL (auto falls back to the CPU without CUDA), "cpu" uses
    gloo. The timeout comes from ``timeout_s``, else ``PLAYGROUND_DIST_TIMEOUT`` (seconds),
    else 300 s. ``env`` replaces ``os.environ`` for reading the rank variables (the process
    group itself is always set up from ``os.environ``, as torchrun left it).
    """
    env = os.environ if env is None else env
    world_size = _env_int(env, "WORLD_SIZE", 1)
    if world_size <= 1:
        return DistInfo()
    rank, local_rank = _env_int(env, "RANK", None), _env_int(env, "LOCAL_RANK", None)
    device = _rank_device(device_pref, local_rank)
    if timeout_s is None:
        timeout_s = _timeout_from(env)
    if device.type == "cuda":
        torch.cuda.set_device(device)  # NCCL and every bare "cuda" tensor use this GPU
    torch.distributed.init_process_group(
        "nccl" if device.type == "cuda" else "gloo", init_method="env://", rank=rank,
        world_size=world_size, timeout=timedelta(seconds=timeout_s),
        device_id=device if device.type == "cuda" else None)
    return DistInfo(rank, local_rank, world_size, device)


def _env_int(env: Mapping[str, str], name: str, default: int | None) -> int:
    text = env.get(name)
    if text is None:
        if default is None:
            raise ConfigError(f"WORLD_SIZE is set but {name} is not; start the run with torchrun, "
                              f"which sets RANK, LOCAL_RANK and WORLD_SIZE together.")
        return default
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"The environment variable {name} must be a whole number, "
                          f"got {text!r}.") from None


def _timeout_from(env: Mapping[str, str]) -> float:
    text = env.get(TIMEOUT_ENV)
    if text is None:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0:
        raise ConfigError(f"{TIMEOUT_ENV} is a number of seconds above 0, got {text!r}.")
    return seconds


def _rank_device(device_pref: str, local_rank: int) -> torch.device:
    """``cuda:LOCAL_RANK`` or the CPU, refusing what data parallelism cannot run on."""
    pref = str(device_pref or "auto").strip().lower()
    if pref == "auto":
        pref = "cuda" if torch.cuda.is_available() else "cpu"
    if pref == "cpu":
        return torch.device("cpu")
    if pref == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError("CUDA was asked for, but this machine has no usable NVIDIA GPU. "
                              "Choose device cpu (gloo) or auto.")
        count = torch.cuda.device_count()
        if local_rank >= count:
            raise DeviceError(
                f"torchrun started more processes on this machine than it has GPUs ({count}); "
                f"process {local_rank} has none. Use --nproc_per_node {count} or fewer.")
        return torch.device("cuda", local_rank)
    if pref.startswith("cuda:"):
        raise DeviceError(f"Under torchrun each process uses the GPU of its LOCAL_RANK; give "
                          f"device cuda or auto, not {pref}.")
    raise DeviceError(f"Training on several processes runs on CUDA GPUs (NCCL) or on CPUs "
                      f"(gloo), not on {pref}. Choose device cuda, cpu or auto.")


def cleanup() -> None:
    """Leave the process group, if this process joined one (safe to call in any case)."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


def barrier(info: DistInfo) -> None:
    """Wait until every process gets here (nothing to wait for with one process)."""
    if info.enabled:
        on_gpu = info.device is not None and info.device.type == "cuda"
        torch.distributed.barrier(device_ids=[info.device.index] if on_gpu else None)


def all_reduce_mean(tensor: torch.Tensor, info: DistInfo) -> torch.Tensor:
    """The mean of ``tensor`` over all processes, as a new tensor (the tensor itself for one).

    A sum then a division, because gloo has no averaging reduction. A NaN in any process
    makes the mean NaN in every process, so all of them see the same non-finite loss.
    """
    if not info.enabled:
        return tensor
    total = tensor.detach().clone()
    torch.distributed.all_reduce(total, op=torch.distributed.ReduceOp.SUM)
    return total / info.world_size


def agree_any(flag: bool, info: DistInfo) -> bool:
    """True in every process if ``flag`` is true in any (a stop request, say).

    Every process must call it at the same point, like any collective.
    """
    if not info.enabled:
        return bool(flag)
    vote = torch.tensor([1.0 if flag else 0.0], device=info.device)
    torch.distributed.all_reduce(vote, op=torch.distributed.ReduceOp.MAX)
    return bool(vote.item())


def broadcast_text(text: str | None, info: DistInfo) -> str:
    """Rank 0's ``text`` in every process (the others pass None), sent as UTF-8 bytes.

    Used for the tokenizer, so that every process trains on exactly the same token ids.
    Bytes in a tensor rather than ``broadcast_object_list``, which would unpickle.
    """
    if not info.enabled:
        return text
    data = text.encode("utf-8") if info.is_main else b""
    size = torch.tensor([len(data)], dtype=torch.long, device=info.device)
    torch.distributed.broadcast(size, src=0)
    buffer = torch.zeros(int(size.item()), dtype=torch.uint8)  # (n_bytes,)
    if info.is_main:
        buffer = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    buffer = buffer.to(info.device)
    torch.distributed.broadcast(buffer, src=0)
    return buffer.cpu().numpy().tobytes().decode("utf-8")
