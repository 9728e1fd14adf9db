"""Attention weights of every layer and head for a text, with token strings for the axes,
and what each head mostly looks at (``head_patterns``).

>>> # maps = attention_maps(model, tokenizer, "To be, or not to be")
>>> # maps.weights.shape == (n_layer, n_head, T, T); maps.tokens[i] labels row and column i
>>> # head_patterns(maps.weights[0], maps.tokens)[h].kind == "previous": head h of layer 0
>>> #   mostly looks at the token just before
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from playground.i18n import msg
from playground.model import GPT
from playground.runtime import compute


@dataclass(frozen=True)
class AttentionMaps:
    tokens: list[str]  # display string of each token, one per row and column
    token_ids: list[int]
    weights: np.ndarray  # (n_layer, n_head, T, T) float32; row = query, column = key

    @property
    def n_layer(self) -> int:
        return self.weights.shape[0]

    @property
    def n_head(self) -> int:
        return self.weights.shape[1]


@compute.routed
@torch.no_grad()
def attention_maps(model: GPT, tokenizer, text: str, max_tokens: int | None = None) -> AttentionMaps:
    """Run the model once on ``text`` through the explicit attention path and keep the weights.

    The text is cut to its first ``max_tokens`` tokens (at most the model's context).
    """
    if not text or not text.strip():
        raise ValueError(msg("Type some text to look at: the attention map needs at least one "
                             "token."))
    ids = tokenizer.encode(text)
    limit = min(model.config.block_size, max_tokens or model.config.block_size)
    ids = ids[:limit]
    was_training = model.training
    model.eval()
    try:
        device = next(model.parameters()).device
        out = model(torch.tensor([ids], device=device), return_attn=True)
    finally:
        model.train(was_training)
    weights = torch.stack([a[0] for a in out.attn]).float().cpu().numpy()  # (L, nh, T, T)
    return AttentionMaps(tokenizer.token_strs(ids), ids, weights)


# What a head may mostly look at, in the order a tie is settled; each is what the Attention
# tab's caption tells a newcomer to look for.
PATTERNS = {
    "previous": msg("previous token"),
    "start": msg("first token"),
    "self": msg("itself"),
    "whitespace": msg("spaces and line breaks"),
    "same": msg("same token earlier"),
}
MIN_SHARE = 0.4  # a head "mostly" looks somewhere when that gets at least this much weight


@dataclass(frozen=True)
class HeadPattern:
    kind: str  # a key of PATTERNS, or "" when no pattern holds MIN_SHARE of the weight
    share: float  # the mean weight on it, per row that can show it

    @property
    def name(self):
        """The pattern in words (a ``Message``), or None when there is none."""
        return PATTERNS[self.kind] if self.kind else None


def head_patterns(weights: np.ndarray, tokens: list[str]) -> list[HeadPattern]:
    """For each head of one layer, the pattern that holds most of its attention.

    ``weights`` is (n_head, T, T), rows summing to 1 over the earlier tokens. A pattern's
    share is the weight one row puts on it, averaged over the rows that can show it: rows
    from the third on (the first two can only look at the start), and for "the same token
    earlier" only the rows whose token did occur before. Whitespace is any token made only of
    spaces, tabs and line breaks.

    >>> w = np.zeros((2, 4, 4)); w[:, 0, 0] = 1
    >>> for i in range(1, 4): w[0, i, i - 1] = 1; w[1, i, 0] = 1
    >>> [(p.kind, p.share) for p in head_patterns(w, list("abab"))]
    [('previous', 1.0), ('start', 1.0)]
    """
    n_head, T, _ = weights.shape
    if T < 3:
        return [HeadPattern("", 0.0)] * n_head
    rows = np.arange(2, T)
    space = np.array([not tok.strip() for tok in tokens])  # (T,)
    earlier_same = np.array([[tokens[j] == tokens[i] and j < i for j in range(T)]
                             for i in range(T)])  # (T, T): key j holds query i's token, before it
    has_same = earlier_same[rows].any(axis=1)
    found = []
    for w in weights:  # (T, T)
        shares = {
            "previous": w[rows, rows - 1].mean(),
            "start": w[rows, 0].mean(),
            "self": w[rows, rows].mean(),
            "whitespace": (w[rows] * space).sum(axis=1).mean(),
            "same": ((w[rows] * earlier_same[rows]).sum(axis=1)[has_same].mean()
                     if has_same.sum() >= 3 else 0.0),
        }
        kind = max(PATTERNS, key=lambda k: shares[k])  # the first of equal shares wins
        share = float(shares[kind])
        found.append(HeadPattern(kind if share >= MIN_SHARE else "", round(share, 4)))
    return found
