"""Attention weights of every layer and head for a text, with token strings for the axes.

>>> # maps = attention_maps(model, tokenizer, "To be, or not to be")
>>> # maps.weights.shape == (n_layer, n_head, T, T); maps.tokens[i] labels row and column i
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from playground.i18n import msg
from playground.model import GPT


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
