"""Where the model is surprised: each token of a text coloured by its loss.

The loss of a token is -log p, the surprise of the model at the token that really came next:
0 when it was sure of it, ln V when it guessed as blindly as a uniform draw, more when it
expected something else. The text is read in windows of ``block_size`` tokens, as training
and evaluation read it (each window starts without context); every token but the first is
predicted once, so the mean surprise over a text is the model's cross-entropy loss on it, the
number the validation curve shows (the tests check that they are equal).

>>> import torch
>>> from playground.config import ModelConfig
>>> from playground.model import GPT
>>> from playground.tokenizer import train_tokenizer
>>> tok = train_tokenizer("char", "abcd")
>>> model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2,
...                         n_embd=8, zero_init=True, tie_weights=False))
>>> s = surprise(model, tok, "abcabc")
>>> s.tokens, [round(float(x), 3) for x in s.losses]  # a zero head: every guess is uniform, ln 4
(['b', 'c', 'a', 'b', 'c'], [1.386, 1.386, 1.386, 1.386, 1.386])
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from playground.i18n import msg, normalize_language, sentences, t
from playground.model import GPT
from playground.plots import display_token
from playground.runtime import compute
from playground.train import EvalRecord

MAX_TOKENS = 1024  # a page of text: a few windows of the default context

# low to high surprise; dark text reads on every one of them, in light and dark mode alike
SCALE = ("#f0fdf4", "#dcfce7", "#fef9c3", "#fde68a", "#fdba74", "#fb923c", "#f87171", "#ef4444")


@dataclass(frozen=True)
class Surprise:
    """The surprise at each predicted token of a text (all but its first token)."""

    first: str  # the first token: context only, nothing predicts it
    tokens: list[str]  # the N tokens predicted, display strings
    losses: np.ndarray  # (N,) -log p(token), in nats
    guesses: list[str]  # (N,) what the model found likeliest instead
    guess_probs: np.ndarray  # (N,) how likely it found that guess
    vocab_size: int

    @property
    def mean(self) -> float:
        """The mean loss over the text: its cross-entropy, as the loss curves measure it."""
        return float(self.losses.mean()) if len(self.losses) else float("nan")


@compute.routed
@torch.no_grad()
def surprise_of_ids(model: GPT, ids: list[int], tokenizer) -> Surprise:
    """The surprise at each of ``ids[1:]``, read in windows of ``block_size`` tokens."""
    if len(ids) < 2:
        raise ValueError(msg("The text needs at least two tokens: the model predicts each token "
                             "from the ones before it."))
    block = model.config.block_size
    was_training = model.training
    model.eval()
    losses, guesses, guess_probs = [], [], []
    try:
        device = model.tok_emb.weight.device
        for start in range(0, len(ids) - 1, block):
            window = torch.tensor([ids[start: start + block + 1]], device=device)  # (1, <= T + 1)
            logits = model(window[:, :-1]).logits[0].float()  # (T, V)
            losses.append(F.cross_entropy(logits, window[0, 1:], reduction="none"))
            top = logits.softmax(-1).max(-1)
            guesses += top.indices.tolist()
            guess_probs.append(top.values)
    finally:
        model.train(was_training)
    return Surprise(first=tokenizer.token_str(ids[0]), tokens=tokenizer.token_strs(ids[1:]),
                    losses=torch.cat(losses).cpu().numpy(), guesses=tokenizer.token_strs(guesses),
                    guess_probs=torch.cat(guess_probs).cpu().numpy(),
                    vocab_size=model.config.vocab_size)


def surprise(model: GPT, tokenizer, text: str, max_tokens: int = MAX_TOKENS) -> Surprise:
    """``surprise_of_ids`` of ``text``'s first ``max_tokens`` tokens."""
    return surprise_of_ids(model, tokenizer.encode(text)[:max_tokens] if text else [], tokenizer)


def _colour(loss: float, vocab_size: int) -> str:
    """The scale's colour for ``loss``: its last step at ln V (a uniform guess) and above."""
    top = math.log(vocab_size) if vocab_size > 1 else 1.0
    step = int(min(max(loss, 0.0) / top, 1.0) * (len(SCALE) - 1) + 0.5)
    return SCALE[step]


def _span(text: str, background: str, tip: str) -> str:
    shown = html.escape(text).replace("\n", "⏎\n").replace("\t", "⇥\t")
    return (f'<span title="{html.escape(tip)}" style="background:{background}; color:#111827; '
            f'border-radius:3px; padding:1px 0;">{shown}</span>')


def surprise_html(s: Surprise, lang: str = "en") -> str:
    """The text with each predicted token on its colour; hovering it says the loss and the
    model's own top guess. A legend of the scale comes first.

    >>> s = Surprise("a", ["b"], np.array([0.5]), ["c"], np.array([0.6]), vocab_size=4)
    >>> "loss 0.50 nats" in surprise_html(s), 'title="' in surprise_html(s)
    (True, True)
    """
    spans = [_span(s.first, "transparent", t("the first token: nothing predicts it", lang))]
    for token, loss, guess, p in zip(s.tokens, s.losses, s.guesses, s.guess_probs):
        tip = t("“{token}”: loss {loss} nats (p = {p}) · the model's top guess: “{guess}” "
                "({guess_p})", lang, token=display_token(token, 16), loss=f"{loss:.2f}",
                p=f"{math.exp(-loss):.1%}", guess=display_token(guess, 16),
                guess_p=f"{p:.0%}")
        spans.append(_span(token, _colour(float(loss), s.vocab_size), tip))
    top = math.log(s.vocab_size)
    legend = "".join(
        f'<span style="background:{c}; color:#111827; padding:1px 6px;">'
        f'{top * i / (len(SCALE) - 1):.1f}</span>' for i, c in enumerate(SCALE))
    caption = html.escape(t("loss in nats, from sure (0) to a blind guess (ln {vocab} = {top}) "
                            "and above:", lang, vocab=f"{s.vocab_size:,}", top=f"{top:.2f}"))
    return (f'<div class="surprise-legend" style="margin-bottom:6px; font-size:0.9em;">{caption} '
            f'{legend}</div><div class="surprise-view" style="font-family: ui-monospace, '
            f'monospace; white-space: pre-wrap; line-height: 1.9;">{"".join(spans)}</div>')


def most_surprising(s: Surprise, n: int = 8) -> list[tuple[int, str, float, str, float]]:
    """The ``n`` tokens with the highest loss: (index in ``tokens``, token, loss, top guess, its
    probability), highest first.

    >>> s = Surprise("a", ["b", "c"], np.array([0.5, 2.0]), ["c", "a"], np.array([0.6, 0.3]), 4)
    >>> most_surprising(s, 1)
    [(1, 'c', 2.0, 'a', 0.3)]
    """
    order = np.argsort(-s.losses, kind="stable")[:n]
    return [(int(i), s.tokens[i], float(s.losses[i]), s.guesses[i], float(s.guess_probs[i]))
            for i in order]


def surprise_summary(s: Surprise, history: list, lang: str = "en") -> str:
    """The mean surprise, beside the last evaluation's validation loss in ``history``, and the
    most surprising tokens."""
    evals = [r for r in history if isinstance(r, EvalRecord)]
    line = t("**Mean surprise: {mean} nats per token** over {n} tokens: the loss on this text, "
             "measured as training measures it.", lang, mean=f"{s.mean:.3f}",
             n=f"{len(s.losses):,}")
    if evals:
        line = sentences([line, t(
            "The last evaluation's validation loss was {val_loss} (step {step}), on other windows "
            "of the validation text.", lang, val_loss=f"{evals[-1].val_loss:.3f}",
            step=f"{evals[-1].step:,}")], lang)
    worst = ("、" if normalize_language(lang) == "zh-CN" else ", ").join(  # Chinese lists with 、
        t("“{token}” ({loss}, it expected “{guess}”)", lang, token=display_token(token, 12),
          loss=f"{loss:.1f}", guess=display_token(guess, 12))
        for _, token, loss, guess, _ in most_surprising(s, 5))
    return line + "  \n" + t("Most surprising: {tokens}.", lang, tokens=worst)
