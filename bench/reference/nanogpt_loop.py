"""nanoGPT's training step, as its ``train.py`` runs it for the CPU recipe, made callable.

nanoGPT's ``train.py`` is a script of module-level globals, so it cannot be imported. These
are its parts, kept in its order and with its choices, for the CPU recipe of its README
(``--device=cpu --compile=False --log_interval=1 ... --dropout=0.0``, fp32):

* ``get_batch``: a fresh ``np.memmap`` of the uint16 token file on every call (nanoGPT does
  this to avoid a memory leak), ``torch.randint`` start offsets, one ``torch.stack`` of int64
  slices for x and one for y;
* ``get_lr``: linear warmup, cosine decay to ``min_lr``;
* one step: set the lr, forward under a null autocast context (fp32 on CPU), backward through
  a disabled ``GradScaler`` (a pass-through: the scaler is only on for float16), clip the
  global norm at 1.0, ``optimizer.step()``, ``zero_grad(set_to_none=True)``, and read
  ``loss.item()`` every step (``log_interval=1``).

>>> import numpy as np, tempfile, os, torch
>>> path = os.path.join(tempfile.mkdtemp(), "train.bin")
>>> np.arange(100, dtype=np.uint16).tofile(path)
>>> x, y = get_batch(path, block_size=4, batch_size=2, generator=torch.Generator().manual_seed(0))
>>> (y - x).unique().tolist(), tuple(x.shape)
([1], (2, 4))
"""

from __future__ import annotations

import contextlib
import io
import math
import os
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import torch

from bench.reference.nanogpt_model import GPT, GPTConfig


def get_batch(path: str, block_size: int, batch_size: int, generator: torch.Generator | None = None):
    """nanoGPT train.py ``get_batch`` for one split, on the CPU (``generator`` added for seeds)."""
    # We recreate np.memmap every batch to avoid a memory leak, as per
    # https://stackoverflow.com/questions/45132940/numpy-memmap-memory-usage-want-to-iterate-once/61472122#61472122
    data = np.memmap(path, dtype=np.uint16, mode="r")
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([torch.from_numpy((data[i:i + block_size]).astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy((data[i + 1:i + 1 + block_size]).astype(np.int64)) for i in ix])
    return x, y


def get_lr(it: int, learning_rate: float, warmup_iters: int, lr_decay_iters: int, min_lr: float) -> float:
    """nanoGPT train.py ``get_lr``.

    >>> round(get_lr(0, 1e-3, 100, 2000, 1e-4), 8), get_lr(5000, 1e-3, 100, 2000, 1e-4)
    (9.9e-06, 0.0001)
    """
    # 1) linear warmup for warmup_iters steps
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    # 2) if it > lr_decay_iters, return min learning rate
    if it > lr_decay_iters:
        return min_lr
    # 3) in between, use cosine decay down to min learning rate
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    assert 0 <= decay_ratio <= 1
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))  # coeff ranges 0..1
    return min_lr + coeff * (learning_rate - min_lr)


@dataclass
class NanoGPTRecipe:
    """config/train_shakespeare_char.py with the README's CPU overrides."""

    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    block_size: int = 64
    batch_size: int = 12
    dropout: float = 0.0
    bias: bool = False
    learning_rate: float = 1e-3
    max_iters: int = 2000
    lr_decay_iters: int = 2000
    min_lr: float = 1e-4
    warmup_iters: int = 100
    weight_decay: float = 1e-1
    beta1: float = 0.9
    beta2: float = 0.99
    grad_clip: float = 1.0
    eval_iters: int = 20


class NanoGPTTrainer:
    """nanoGPT's model, optimiser and step on a uint16 token file; ``step()`` runs one iteration."""

    def __init__(self, train_bin: str, vocab_size: int, recipe: NanoGPTRecipe | None = None,
                 seed: int = 1337, global_stream: bool = False):
        self.recipe = r = recipe or NanoGPTRecipe()
        self.train_bin = train_bin
        torch.manual_seed(seed)
        # train.py draws batches from the global generator that also initialised the model;
        # a generator of its own (the default here) makes the batches independent of the model
        self.generator = None if global_stream else torch.Generator().manual_seed(seed)
        config = GPTConfig(block_size=r.block_size, vocab_size=vocab_size, n_layer=r.n_layer,
                           n_head=r.n_head, n_embd=r.n_embd, dropout=r.dropout, bias=r.bias)
        with contextlib.redirect_stdout(io.StringIO()):  # nanoGPT prints its parameter counts
            self.model = GPT(config)
            self.optimizer = self.model.configure_optimizers(
                r.weight_decay, r.learning_rate, (r.beta1, r.beta2), "cpu")
        self.ctx = contextlib.nullcontext()  # train.py: nullcontext() when device_type == 'cpu'
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)  # enabled only for float16
        self.iter_num = 0
        self.X, self.Y = self._batch()  # train.py fetches the very first batch before the loop

    def _batch(self):
        r = self.recipe
        return get_batch(self.train_bin, r.block_size, r.batch_size, self.generator)

    def step(self) -> float:
        """One training iteration of nanoGPT's loop (gradient_accumulation_steps = 1)."""
        r, model, optimizer = self.recipe, self.model, self.optimizer
        lr = get_lr(self.iter_num, r.learning_rate, r.warmup_iters, r.lr_decay_iters, r.min_lr)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        with self.ctx:
            logits, loss = model(self.X, self.Y)
        # immediately async prefetch next batch while model is doing the forward pass on the GPU
        self.X, self.Y = self._batch()
        self.scaler.scale(loss).backward()
        if r.grad_clip != 0.0:
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), r.grad_clip)
        self.scaler.step(optimizer)
        self.scaler.update()
        optimizer.zero_grad(set_to_none=True)
        lossf = loss.item()  # log_interval=1: train.py reads the loss every iteration
        self.iter_num += 1
        return lossf

    @torch.no_grad()
    def estimate_loss(self, val_bin: str) -> float:
        """train.py ``estimate_loss`` for one split: the mean of ``eval_iters`` batches."""
        r = self.recipe
        self.model.eval()
        losses = torch.zeros(r.eval_iters)
        for k in range(r.eval_iters):
            X, Y = get_batch(val_bin, r.block_size, r.batch_size, self.generator)
            with self.ctx:
                logits, loss = self.model(X, Y)
            losses[k] = loss.item()
        self.model.train()
        return float(losses.mean())


def nanogpt_run(train_bin: str, val_bin: str, vocab_size: int, recipe: NanoGPTRecipe,
                eval_interval: int, seed: int = 1337) -> list[tuple]:
    """train.py's whole loop with its one global random stream: ("eval", iter, train, val)
    before the first step, every ``eval_interval`` iterations and at ``max_iters``, and
    ("step", iterations done, loss) for each step. The global generator is restored after."""
    return list(nanogpt_records(train_bin, val_bin, vocab_size, recipe, eval_interval, seed))


def nanogpt_records(train_bin: str, val_bin: str, vocab_size: int, recipe: NanoGPTRecipe,
                    eval_interval: int, seed: int = 1337) -> Iterator[tuple]:
    """``nanogpt_run``'s records one at a time, so other work can run between them.

    train.py's one global stream is this loop's own: between two records the caller gets its
    own global generator state back, whatever it draws, and the loop continues from where its
    stream was (so the numbers are those of an uninterrupted run).
    """
    caller = torch.get_rng_state()
    trainer = NanoGPTTrainer(train_bin, vocab_size, recipe, seed=seed, global_stream=True)

    def hand_over(record: tuple) -> Iterator[tuple]:
        nonlocal caller
        own = torch.get_rng_state()
        torch.set_rng_state(caller)
        try:
            yield record
        finally:  # also when the caller closes the loop early: its own stream stays its own
            caller = torch.get_rng_state()
            torch.set_rng_state(own)

    try:
        while True:
            it = trainer.iter_num
            if it % eval_interval == 0:
                yield from hand_over(("eval", it, trainer.estimate_loss(train_bin),
                                      trainer.estimate_loss(val_bin)))
            if it == recipe.max_iters:  # train.py runs one more step; nothing reads it
                return
            yield from hand_over(("step", it + 1, trainer.step()))
    finally:
        torch.set_rng_state(caller)


def write_token_file(ids, path: str | os.PathLike) -> str:
    """Token ids as nanoGPT's prepare.py writes them: raw uint16."""
    np.asarray(ids, dtype=np.uint16).tofile(path)
    return str(path)
