"""Where and how a training run executes: device, number format, threads, compile, DDP.

``Trainer`` asks ``place_model`` once, in its ``__init__``, and from then on only calls the
two forward functions it gets back: ``forward`` (the model, or its ``torch.compile`` form)
for evaluations and samples, and ``train_forward`` (``forward`` wrapped in
DistributedDataParallel when several processes train together) for the training steps.

PyTorch's CPU thread count is a setting of the whole process (of each thread, with OpenMP),
shared by every visitor's run, so placing a model only decides the count (``Placement.threads``);
the run holds it while it computes and gives the old one back before each record it yields
(``with_threads``), when it is closed, and when it fails. In a server each record is computed
on the one compute thread (``compute``), with the count its caller set.

>>> import torch
>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.model import GPT
>>> model = GPT(ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=2, n_embd=16))
>>> placed = place_model(model, TrainConfig(device="cpu", dtype="float32", threads=1))
>>> placed.device, placed.dtype, placed.train_forward is placed.forward, placed.threads
(device(type='cpu'), torch.float32, True, 1)
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterator, TypeVar

import torch

from playground.config import TrainConfig
from playground.runtime import compute
from playground.runtime.device import cpu_limit, pick_device, pick_dtype, setup_backends
from playground.runtime.distributed import DistInfo


@dataclass(frozen=True)
class Placement:
    """A model placed for training: its device and dtype, and the forward functions to call."""

    device: torch.device
    dtype: torch.dtype
    dist: DistInfo
    forward: Callable  # the model, or torch.compile(model): evaluations and samples
    train_forward: Callable  # forward, or its DistributedDataParallel wrapper: training steps
    threads: int  # PyTorch's CPU threads while the run computes (``cpu_threads``)


@contextlib.contextmanager
def cpu_threads(threads: int) -> Iterator[None]:
    """PyTorch's CPU thread count at ``threads`` inside the block, as it was after it, however
    the block ends. Set and restored in the calling thread (OpenMP keeps one per thread).

    >>> before = torch.get_num_threads()
    >>> with cpu_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    before = torch.get_num_threads()
    if threads != before:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


Item = TypeVar("Item")


def with_threads(generator: Generator[Item, None, Any],
                 threads: int | Callable[[], int]) -> Generator[Item, None, Any]:
    """``generator``'s items, each computed with ``threads`` CPU threads (or as many as
    ``threads()`` says for that item); between items (while the caller holds one, perhaps for
    minutes, and another run computes) the count is the process's own again. Closing this
    closes ``generator``; what it returns, this returns.

    >>> def counts():
    ...     yield torch.get_num_threads()
    ...     yield torch.get_num_threads()
    >>> before = torch.get_num_threads()
    >>> [n for n in with_threads(counts(), 1) if torch.get_num_threads() == before]
    [1, 1]
    """
    try:
        while True:
            # each item is computed within one call, so in one thread: a server may hand the
            # next call to another of its threads, and the count is set per thread; a server
            # computes it on its compute thread (``compute.run`` takes the count along)
            with cpu_threads(threads() if callable(threads) else threads):
                try:
                    item = compute.run(next, generator)
                except StopIteration as end:
                    return end.value  # what ``generator`` returns, ``yield from`` passes on
            yield item
    finally:
        compute.run(generator.close)


def place_model(model: torch.nn.Module, config: TrainConfig, *,
                device: torch.device | str | None = None,
                dist: DistInfo | None = None) -> Placement:
    """Move ``model`` to its device (``device``, else the process's under torchrun, else
    ``config.device``) and build the forward functions ``config`` asks for.

    ``config.threads`` (when not 0) is the CPU thread count the run computes with, capped
    at the CPUs the container may use (``cpu_limit``); with 0 PyTorch's own choice is capped
    the same way (it counts the host's cores). Nothing is set here: the run holds the count
    only while it computes (``Placement.threads``, ``with_threads``).
    """
    dist = dist or DistInfo()
    if device is None:
        device = dist.device
    device = torch.device(device) if device is not None else pick_device(config.device)
    dtype = pick_dtype(config.dtype, device, model.config.n_embd)
    setup_backends(device)
    threads = max(1, min(config.threads or torch.get_num_threads(), cpu_limit()))
    model.to(device)
    forward = torch.compile(model) if config.compile else model
    train_forward = forward
    if dist.enabled:
        from torch.nn.parallel import DistributedDataParallel

        # DDP starts every process from rank 0's weights and averages the gradients
        # during backward, overlapping the all-reduce with the rest of the backward pass
        on_gpu = device.type == "cuda"
        train_forward = DistributedDataParallel(
            forward, device_ids=[device.index] if on_gpu else None)
    return Placement(device, dtype, dist, forward, train_forward, threads)
