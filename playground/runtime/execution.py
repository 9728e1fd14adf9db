"""Where and how a training run executes: device, number format, threads, compile, DDP.

``Trainer`` asks ``place_model`` once, in its ``__init__``, and from then on only calls the
two forward functions it gets back: ``forward`` (the model, or its ``torch.compile`` form)
for evaluations and samples, and ``train_forward`` (``forward`` wrapped in
DistributedDataParallel when several processes train together) for the training steps.

>>> import torch
>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.model import GPT
>>> model = GPT(ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=2, n_embd=16))
>>> placed = place_model(model, TrainConfig(device="cpu", dtype="float32"))
>>> placed.device, placed.dtype, placed.train_forward is placed.forward
(device(type='cpu'), torch.float32, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from playground.config import TrainConfig
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


def place_model(model: torch.nn.Module, config: TrainConfig, *,
                device: torch.device | str | None = None,
                dist: DistInfo | None = None) -> Placement:
    """Move ``model`` to its device (``device``, else the process's under torchrun, else
    ``config.device``) and build the forward functions ``config`` asks for.

    ``config.threads`` (when not 0) sets PyTorch's CPU thread count, which is a setting of
    the whole process; it is capped at the CPUs the container may use (``cpu_limit``), and
    with 0 PyTorch's own choice is capped the same way (it counts the host's cores).
    """
    dist = dist or DistInfo()
    if device is None:
        device = dist.device
    device = torch.device(device) if device is not None else pick_device(config.device)
    dtype = pick_dtype(config.dtype, device, model.config.n_embd)
    setup_backends(device)
    threads = min(config.threads or torch.get_num_threads(), cpu_limit())
    if threads != torch.get_num_threads():
        torch.set_num_threads(threads)
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
    return Placement(device, dtype, dist, forward, train_forward)
