"""Assembling a training run: the one path the CLI, the page, ZeroGPU chunks and torchrun share.

``prepare_run`` takes what a person chose (a corpus, a tokenizer, the two configs) and
does, in this order, everything a run needs before its first step:

1. the memory check: a run whose estimate does not fit the free memory is refused before
   anything is allocated;
2. the data: the text encoded once and split (the last ``val_fraction`` validates), and the
   characters per token of each split, so that bits per character are honest for BPE;
3. the model: the one being continued, or a new one whose initial weights come from the
   seed, drawn in a forked generator so no one else's use of the global generator changes
   them (and they change no one else's).

The run's model and what belongs with it are one ``TrainedModel`` (``run.trained``), the
shape the page and ``checkpoint.load_bundle`` hold too. ``PreparedRun.trainer()`` then builds
the ``Trainer`` (in this process, or inside a ZeroGPU chunk from the same data) and restores
a saved trainer state when one is given.

>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.corpus import from_text
>>> from playground.tokenizer import train_tokenizer
>>> corpus = from_text("to be or not to be, that is the question. " * 40)
>>> tok = train_tokenizer("char", corpus.text)
>>> run = prepare_run(corpus, tok, ModelConfig(block_size=8, n_layer=1, n_head=2, n_embd=16),
...                   TrainConfig(max_steps=3, batch_size=4, eval_interval=3, eval_iters=1,
...                               device="cpu"))
>>> run.trained.model_config.vocab_size == tok.vocab_size, run.data.val_chars_per_token
(True, 1.0)
>>> [type(r).__name__ for r in run.trainer().run()][-1]
'EndRecord'
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

import torch

from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.corpus import Corpus
from playground.i18n import msg
from playground.model import GPT, estimate_memory
from playground.runtime.device import available_memory, pick_device
from playground.runtime import compute
from playground.runtime.files import human_bytes
from playground.runtime.distributed import DistInfo
from playground.tokenizer import Tokenizer
from playground.train import Trainer, check_length, prepare_data
from playground.trained import TrainedModel

MEMORY_HEADROOM = 0.8  # refuse a run whose estimate exceeds this share of the free memory


@dataclass(frozen=True)
class RunData:
    """A corpus cut into tokens for one run: the two splits and their characters per token."""

    train_ids: torch.Tensor  # (n_train,) int64
    val_ids: torch.Tensor  # (n_val,) int64
    train_chars_per_token: float  # characters of the decoded training split / its tokens
    val_chars_per_token: float

    @property
    def chars_per_token(self) -> tuple[float, float]:
        """(training, validation): what ``Trainer`` converts each loss to bits per character with."""
        return self.train_chars_per_token, self.val_chars_per_token


def split_chars_per_token(tokenizer: Tokenizer, ids: torch.Tensor) -> float:
    """Characters per token of one split: the length of its decoded text over its tokens.

    A loss measured on a split becomes bits per character with this split's own figure, not
    the whole corpus's: BPE packs some text (a language it learned well) tighter than other.

    >>> from playground.tokenizer import train_tokenizer
    >>> split_chars_per_token(train_tokenizer("char", "abc"), torch.tensor([0, 1, 2, 1]))
    1.0
    """
    return len(tokenizer.decode(ids)) / len(ids)


# the splits of the last few (text, tokenizer, val_fraction) prepared, shared by the runs that
# ask for the same again: a class that starts from the bundled corpus encodes and measures it
# once (0.3 s a run otherwise, each waiting for the one before), and its runs share the
# tensors, which nothing writes
DATA_CACHE_SIZE = 2
_data_cache: OrderedDict[tuple[str, str, float], RunData] = OrderedDict()
_data_lock = threading.Lock()


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def split_data(text: str, tokenizer: Tokenizer, val_fraction: float, block_size: int) -> RunData:
    """Encode ``text`` once, split it (``prepare_data``), and measure each split's characters;
    the same text, tokenizer and split again give the same ``RunData`` (``DATA_CACHE_SIZE``).

    >>> from playground.tokenizer import train_tokenizer
    >>> text = "to be or not to be " * 20
    >>> first = split_data(text, train_tokenizer("char", text), 0.1, 8)
    >>> split_data(text, train_tokenizer("char", text), 0.1, 8) is first  # a tokenizer alike
    True
    >>> split_data(text, train_tokenizer("char", text), 0.1, 64)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    playground.config.ConfigError: The validation part of the text is 38 tokens long, ...
    """
    key = (_fingerprint(text), _fingerprint(tokenizer.to_json()), float(val_fraction))
    with _data_lock:
        data = _data_cache.get(key)
        if data is not None:
            _data_cache.move_to_end(key)
    if data is None:
        train_ids, val_ids = prepare_data(text, tokenizer, val_fraction)
        data = RunData(train_ids, val_ids, split_chars_per_token(tokenizer, train_ids),
                       split_chars_per_token(tokenizer, val_ids))
        with _data_lock:
            _data_cache[key] = data
            while len(_data_cache) > DATA_CACHE_SIZE:
                _data_cache.popitem(last=False)
    check_length(data.train_ids, "training", block_size)
    check_length(data.val_ids, "validation", block_size)
    return data


def check_memory(model_config: ModelConfig, train_config: TrainConfig,
                 device: torch.device, data_tokens: int = 0, held_bytes: int = 0) -> None:
    """Refuse a run whose memory estimate (``data_tokens`` of text included) exceeds
    ``MEMORY_HEADROOM`` of what ``device`` has free, less ``held_bytes`` that other runs under
    way may still take (their estimates: counted as taken even where already allocated, so
    the check errs on the safe side)."""
    need = estimate_memory(model_config, train_config, data_tokens=data_tokens)
    free = available_memory(device)
    if free is not None and held_bytes and need + held_bytes > MEMORY_HEADROOM * free:
        raise ConfigError(msg("This model needs about {need} of memory to train; {free} is free "
                              "on {device}, but other runs under way here may still need "
                              "{held} of it. Try again when they have finished, or make it "
                              "smaller: fewer layers (n_layer), a narrower width (n_embd), a "
                              "smaller batch_size or block_size.",
                              need=human_bytes(need), free=human_bytes(free),
                              device=device.type, held=human_bytes(held_bytes)))
    if free is not None and need > MEMORY_HEADROOM * free:
        raise ConfigError(msg("This model needs about {need} of memory to train, but only {free} "
                              "is free on {device}. Make it smaller: fewer layers (n_layer), a "
                              "narrower width (n_embd), a smaller batch_size or block_size.",
                              need=human_bytes(need),
                              free=human_bytes(free), device=device.type))


def new_model(model_config: ModelConfig, seed: int) -> GPT:
    """A freshly initialised model; the same seed and settings give the same weights.

    Drawn in a forked generator: the global one is left exactly as it was.

    >>> cfg = ModelConfig(vocab_size=5, block_size=4, n_layer=1, n_head=1, n_embd=4)
    >>> before = torch.get_rng_state()
    >>> new_model(cfg, 1).lm_head.weight.equal(new_model(cfg, 1).lm_head.weight)
    True
    >>> torch.get_rng_state().equal(before)
    True
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return GPT(model_config)


@dataclass
class PreparedRun:
    """Everything a run needs before its first step; ``trainer()`` starts it."""

    trained: TrainedModel  # the model to train, its tokenizer, settings, corpus and saved state
    data: RunData

    @property
    def start_step(self) -> int:
        return self.trained.step

    def trainer(self, *, dist: DistInfo | None = None,
                device: torch.device | str | None = None) -> Trainer:
        from playground.tasks import task_of

        t = self.trained
        return build_trainer(t.model, self.data, t.train_config, t.tokenizer, t.trainer_state,
                             dist=dist, device=device, task=task_of(t.corpus))


@compute.routed
def build_trainer(model: GPT, data: RunData, train_config: TrainConfig, tokenizer: Tokenizer | None,
                  trainer_state: dict[str, Any] | None = None, *, dist: DistInfo | None = None,
                  device: torch.device | str | None = None, task=None) -> Trainer:
    """The ``Trainer`` of a prepared run, continuing from ``trainer_state`` when given;
    ``task`` (a ``playground.tasks.Task``) adds its accuracy to every evaluation.

    A ZeroGPU chunk calls this in its own process with the data the page prepared.
    """
    trainer = Trainer(model, data.train_ids, data.val_ids, train_config,
                      chars_per_token=data.chars_per_token, tokenizer=tokenizer, dist=dist,
                      device=device, task=task)
    if trainer_state is not None:
        trainer.load_state_dict(trainer_state)
    return trainer


@compute.routed
def prepare_run(corpus: Corpus, tokenizer: Tokenizer, model_config: ModelConfig,
                train_config: TrainConfig, *, model: GPT | None = None,
                trainer_state: dict[str, Any] | None = None,
                device: torch.device | None = None, check_free_memory: bool = True,
                held_bytes: int = 0) -> PreparedRun:
    """Check, encode, split and build: a ``PreparedRun``, or a ``ConfigError`` saying what to change.

    ``model`` and ``trainer_state`` continue a run (the model keeps its own config; the
    state must be behind ``train_config.max_steps``); without them a new model is built
    from ``train_config.seed`` with the tokenizer's vocabulary. ``device`` is where the run
    will train (default: ``train_config.device``); ``check_free_memory=False`` skips the
    memory check where the device does not exist yet (a ZeroGPU Space, outside a chunk);
    ``held_bytes`` is what other runs under way may still take (``check_memory``).
    """
    if model is not None:
        model_config = model.config
        done = int(trainer_state["step"]) if trainer_state else 0
        if train_config.max_steps <= done:
            raise ConfigError(msg("The model has already trained {done} steps. Set max_steps "
                                  "above {done} to train it further.", done=f"{done:,}"))
    else:
        model_config = replace(model_config, vocab_size=tokenizer.vocab_size)
    if check_free_memory:
        check_memory(model_config, train_config, device or pick_device(train_config.device),
                     data_tokens=len(corpus.text),  # tokens <= characters: char, and BPE on most text
                     held_bytes=held_bytes)
    data = split_data(corpus.text, tokenizer, train_config.val_fraction, model_config.block_size)
    if model is None:
        model = new_model(model_config, train_config.seed)
    history = list(trainer_state["history"]) if trainer_state else []
    trained = TrainedModel(model, tokenizer, model_config, train_config, history, trainer_state,
                           corpus=corpus)
    return PreparedRun(trained, data)


@compute.routed
def warm_up(corpus: Corpus, tokenizer: Tokenizer, model_config: ModelConfig,
            train_config: TrainConfig) -> float:
    """Pay once, now, what the first run of a process would: its memory estimate (the
    first model built on the meta device: about 1.8 s here), the run ``prepare_run`` builds
    (the text encoded, which ``split_data`` keeps for the runs that ask for it again) and one
    forward and backward pass of its model on a batch of the text (PyTorch's kernels paged
    in). A server calls this before it takes visitors: the first visitor's run is then
    planned in 0.03 s instead of 1.8 s. Returns the seconds it took; nothing is kept but the
    data, and the global random state is left as it was.

    >>> from playground.corpus import from_text
    >>> from playground.tokenizer import train_tokenizer
    >>> text = "to be or not to be " * 20
    >>> cfg = ModelConfig(block_size=8, n_layer=1, n_head=1, n_embd=8)
    >>> warm_up(from_text(text), train_tokenizer("char", text), cfg, TrainConfig()) >= 0
    True
    """
    began = time.monotonic()
    estimate_memory(model_config, train_config)  # the first model on the meta device: 1.8 s
    with torch.random.fork_rng(devices=[]):
        run = prepare_run(corpus, tokenizer, model_config, train_config, check_free_memory=False,
                          device=torch.device("cpu"))
        window = run.data.train_ids[: run.trained.model_config.block_size + 1]
        run.trained.model(window[None, :-1], window[None, 1:]).loss.backward()
    return time.monotonic() - began
