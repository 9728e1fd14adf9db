"""What good looks like: reference levels for the loss plot, and its x axes.

A loss number means little on its own. Three levels put it in context, each labelled in
plain words on the plot (the jargon is here):

* **guessing letters at random** (a uniform guess, ln V): the loss of a model that gives
  every token the same chance. A fresh model starts near it; a model stuck there has
  learned nothing.
* **knowing only letter frequencies** (the unigram entropy of the training tokens): the
  loss of a model that knows how often each token occurs but ignores the context. Going
  below it means the model uses the context.
* **nanoGPT's big GPU model** (its "baby GPT"), 1.4697 on Tiny Shakespeare at character
  level (6 layers, 384 wide, context 256, 5000 steps on one A100; karpathy/nanoGPT README).
  Only comparable on that corpus, with that tokenizer and the same split (the last 10%
  held out).

With a BPE tokenizer the first two say "tokens" instead of "letters". All levels are in nats
per token, the unit of the training loss, or in bits per character when comparing runs with
different tokenizers.

>>> [(line.key, round(line.value, 3)) for line in reference_lines(65, "aab", "bundled", "char")]
[('uniform', 4.174), ('unigram', 0.637), ('nanogpt', 1.47)]
>>> [line.label for line in reference_lines(65, "aab", "bundled", "char")]
['guessing letters at random (4.17)', 'knowing only letter frequencies (0.64)', "nanoGPT's big GPU model (1.47)"]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from playground.i18n import Message, localize, msg

if TYPE_CHECKING:  # train imports this module (bits_per_char), so only for the type hints
    from playground.train import Record

NANOGPT_SHAKESPEARE_CHAR_VAL = 1.4697  # nanoGPT README, "baby GPT" on shakespeare_char
TINY_SHAKESPEARE_SOURCES = ("bundled", "hub")  # corpus.Corpus.source values of that text

# x axes of the loss plot: the record field and what the axis is called (as in plots.X_AXES)
AXES = {"step": "steps", "tokens": "tokens seen", "elapsed": "seconds"}
_AXIS_ALIASES = {"steps": "step", "tokens seen": "tokens", "seconds": "elapsed", "time": "elapsed"}


@dataclass(frozen=True)
class ReferenceLine:
    key: str  # "uniform" | "unigram" | "nanogpt" (its label: reference_lines)
    label: str  # the legend's text, with the number
    value: float  # nats per token, or bits per character when asked for


def uniform_loss(vocab_size: int) -> float:
    """Cross-entropy of a uniform guess over ``vocab_size`` tokens, in nats: ln V.

    >>> round(uniform_loss(65), 4)
    4.1744
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a whole number of at least 1, got {vocab_size!r}.")
    return math.log(vocab_size)


def unigram_entropy(tokens: str | Sequence[int] | np.ndarray) -> float:
    """Entropy of the token frequencies, in nats per token: the loss of the best context-free guess.

    ``tokens`` is a text (each character a token) or token ids (a list, numpy array or
    tensor).

    >>> round(unigram_entropy("abab"), 4), round(unigram_entropy([0, 0, 0, 1]), 4)
    (0.6931, 0.5623)
    """
    if isinstance(tokens, str):
        counts = np.fromiter(Counter(tokens).values(), dtype=np.float64)
    else:
        # a tensor as a NumPy array at once (through a Python list, a million ids took a
        # second when a class started runs together)
        ids = (tokens.cpu().numpy() if hasattr(tokens, "cpu") else
               np.asarray(tokens if hasattr(tokens, "dtype") else list(tokens)))
        if ids.size and (ids.dtype.kind not in "iu" or ids.min() < 0):
            raise ValueError("Token ids must be whole numbers from 0 up.")
        counts = np.bincount(ids.reshape(-1)).astype(np.float64) if ids.size else np.zeros(0)
        counts = counts[counts > 0]
    if counts.sum() == 0:
        raise ValueError("The unigram entropy needs at least one token.")
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum()) + 0.0  # + 0.0 turns -0.0 (one distinct token) into 0.0


def bits_per_char(loss: float, chars_per_token: float) -> float:
    """Nats per token to bits per character: loss / ln 2 / characters per token.

    Character and BPE runs compare on this scale; per-token losses do not (a BPE token
    carries several characters, so its loss is higher for the same quality).

    >>> round(bits_per_char(1.4697, 1.0), 3), round(bits_per_char(3.0, 2.5), 3)
    (2.12, 1.731)
    """
    if not chars_per_token > 0:
        raise ValueError(f"chars_per_token must be positive, got {chars_per_token!r}.")
    return loss / math.log(2) / chars_per_token


def is_tiny_shakespeare(corpus_source: str | None) -> bool:
    return corpus_source in TINY_SHAKESPEARE_SOURCES


def reference_lines(
    vocab_size: int,
    train_ids: str | Sequence[int] | np.ndarray | None = None,
    corpus_source: str | None = None,
    tokenizer_kind: str | None = None,
    *,
    unit: str = "loss",
    chars_per_token: float = 1.0,
    lang: str = "en",
) -> list[ReferenceLine]:
    """The reference levels that apply to this run, highest first.

    ``train_ids``: the training tokens (or text, for a character tokenizer) for the unigram
    line, left out when None. ``corpus_source`` is ``Corpus.source``: the nanoGPT line only
    shows for Tiny Shakespeare ("bundled" or "hub") at character level. ``unit`` is "loss"
    (nats per token) or "bpc" (bits per character, using ``chars_per_token``). The labels
    are in ``lang`` ("en" or "zh-CN").

    >>> [line.label for line in reference_lines(512, None, "upload", "bpe")]
    ['guessing tokens at random (6.24)']
    """
    if unit not in ("loss", "bpc"):
        raise ValueError(f"unit must be 'loss' or 'bpc', got {unit!r}.")

    def convert(value: float) -> float:
        return bits_per_char(value, chars_per_token) if unit == "bpc" else value

    def line(key: str, value: float, label: Message) -> ReferenceLine:
        return ReferenceLine(key, localize(label, lang), value)

    letters = tokenizer_kind == "char"
    uniform = convert(uniform_loss(vocab_size))
    lines = [line("uniform", uniform, msg("guessing letters at random ({value})"
                                          if letters else
                                          "guessing tokens at random ({value})",
                                          value=f"{uniform:.2f}"))]
    if train_ids is not None and len(train_ids):
        unigram = convert(unigram_entropy(train_ids))
        lines.append(line("unigram", unigram, msg("knowing only letter frequencies ({value})"
                                                  if letters else
                                                  "knowing only token frequencies ({value})",
                                                  value=f"{unigram:.2f}")))
    if is_tiny_shakespeare(corpus_source) and letters:
        nanogpt = convert(NANOGPT_SHAKESPEARE_CHAR_VAL)
        lines.append(line("nanogpt", nanogpt, msg("nanoGPT's big GPU model ({value})",
                                                  value=f"{nanogpt:.2f}")))
    return lines


def axis_key(axis: str) -> str:
    """The record field behind an x axis name: "step", "tokens" or "elapsed".

    >>> axis_key("seconds"), axis_key("tokens")
    ('elapsed', 'tokens')
    """
    key = _AXIS_ALIASES.get(axis, axis)
    if key not in AXES:
        raise ValueError(f"The x axis must be one of {', '.join(AXES)} (steps, tokens seen, "
                         f"seconds), got {axis!r}.")
    return key


def x_values(history: Iterable[Record], axis: str) -> list[float]:
    """The x value of every record that has one on ``axis`` (end records carry only a step).

    >>> from playground.train import EndRecord, StepRecord
    >>> history = [StepRecord(10, 640, 3.0, 1e-3, 900.0, 1.5), EndRecord(10, "done", "")]
    >>> x_values(history, "tokens"), x_values(history, "step")
    ([640], [10, 10])
    """
    key = axis_key(axis)
    return [getattr(r, key) for r in history if hasattr(r, key)]


def curve(history: Iterable[Record], y: str, axis: str = "step") -> tuple[list[float], list[float]]:
    """(xs, ys) of the records that have field ``y`` (e.g. "loss", "val_loss", "val_bpc").

    >>> from playground.train import EvalRecord, StepRecord
    >>> curve([StepRecord(1, 64, 4.0, 1e-3, 900.0, 0.1),
    ...        EvalRecord(1, 64, 4.1, 4.2, 5.9, 6.1, 0.2)], "val_loss", "tokens")
    ([64], [4.2])
    """
    key = axis_key(axis)
    records = [r for r in history if hasattr(r, y) and hasattr(r, key)]
    return [getattr(r, key) for r in records], [getattr(r, y) for r in records]
