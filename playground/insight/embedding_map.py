"""The token embeddings on a map: each token's vector projected to two dimensions by PCA.

The embedding table has one row of ``n_embd`` numbers per token. PCA (principal component
analysis, here ``torch.linalg.svd`` of the centred table: no new dependency) finds the two
directions along which the rows differ most and places each token by its position along
them. Tokens the model treats alike land close together: at character level on Tiny
Shakespeare, vowels, capitals, digits and punctuation gather in groups. For a BPE vocabulary
the map labels the most frequent tokens (counted on a sample of the training text).

>>> import torch
>>> points, explained = pca_2d(torch.tensor([[0.0, 0.0], [2.0, 0.1], [4.0, -0.1]]))
>>> points.shape, round(float(explained[0]), 3)
((3, 2), 0.998)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import plotly.graph_objects as go
import torch

from playground.i18n import msg, t
from playground.model import GPT
from playground.plots import TEMPLATE, display_token
from playground.runtime import compute

MAX_LABELS = 120  # labelled tokens on the map; more overlap into a smudge
COUNT_CHARS = 200_000  # characters of the training text counted for the BPE labels

GROUPS = {  # the group of a token, by its first visible character; colour and legend name
    "vowel": ("#dc2626", msg("vowels")), "consonant": ("#2563eb", msg("other lowercase")),
    "capital": ("#9333ea", msg("capitals")), "digit": ("#16a34a", msg("digits")),
    "punctuation": ("#ea580c", msg("punctuation")),
    "space": ("#6b7280", msg("spaces and newlines")),
}


def token_group(token: str) -> str:
    """The group a token belongs to on the map, by its first character after any spaces.

    >>> [token_group(s) for s in ("a", " the", "Q", "7", ",", "\\n", "x")]
    ['vowel', 'consonant', 'capital', 'digit', 'punctuation', 'space', 'consonant']
    """
    text = token.lstrip(" ")
    if not text.strip():
        return "space"
    first = text[0]
    if first.isdigit():
        return "digit"
    if not first.isalpha():
        return "punctuation"
    if first.isupper():
        return "capital"
    return "vowel" if first.lower() in "aeiou" else "consonant"


def pca_2d(matrix: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``matrix`` (N, C) projected on its two principal axes: (points (N, 2), the share
    of the variance each axis explains, largest first)."""
    x = matrix.detach().double().cpu()
    x = x - x.mean(dim=0, keepdim=True)
    _, s, vh = torch.linalg.svd(x, full_matrices=False)  # singular values, largest first
    k = min(2, vh.size(0))
    points = x @ vh[:k].T  # (N, k)
    if k < 2:  # a table one number wide has one axis: the map is a line
        points = torch.cat([points, torch.zeros(len(x), 2 - k, dtype=x.dtype)], dim=1)
    variance = s.square()
    explained = (variance[:2] / variance.sum()).numpy() if variance.sum() > 0 else np.zeros(2)
    return points.numpy(), np.pad(explained, (0, 2 - len(explained)))


@dataclass(frozen=True)
class EmbeddingMap:
    token_ids: list[int]  # the tokens shown, most frequent (or lowest id) first
    tokens: list[str]
    points: np.ndarray  # (N, 2)
    explained: np.ndarray  # (2,) share of the variance along each axis
    labelled: int  # the first this many tokens carry a label on the map
    tied: bool  # the table is the output head too


def token_counts(tokenizer, text: str, max_chars: int = COUNT_CHARS) -> Counter:
    """How often each token occurs in the first ``max_chars`` characters of ``text``."""
    encode = getattr(tokenizer, "encode_array", None) or tokenizer.encode
    return Counter(np.asarray(encode(text[:max_chars])).tolist())


@compute.routed
@torch.no_grad()
def embedding_map(model: GPT, tokenizer, counts: Counter | None = None,
                  max_tokens: int = 600) -> EmbeddingMap:
    """The map of the token embedding table: PCA over every row, then at most ``max_tokens``
    of them kept, the most frequent first when ``counts`` are given (else in id order)."""
    table = model.tok_emb.weight  # (V, C)
    points, explained = pca_2d(table)
    V = table.size(0)
    order = (frequent_first(range(V), counts) if counts else list(range(V)))[:max_tokens]
    return EmbeddingMap(token_ids=order, tokens=tokenizer.token_strs(order),
                        points=points[order], explained=explained,
                        labelled=min(len(order), MAX_LABELS),
                        tied=model.lm_head.weight is model.tok_emb.weight)


def embedding_figure(emap: EmbeddingMap, lang: str = "en") -> go.Figure:
    """A scatter of the tokens, coloured by group (``token_group``), the first ones labelled."""
    fig = go.Figure()
    groups = [token_group(tok) for tok in emap.tokens]
    for key, (colour, name) in GROUPS.items():
        members = [i for i, g in enumerate(groups) if g == key]
        if not members:
            continue
        labels = [display_token(emap.tokens[i], 10) for i in members]
        fig.add_trace(go.Scatter(
            x=emap.points[members, 0], y=emap.points[members, 1], name=t(name, lang),
            mode="markers+text", marker=dict(color=colour, size=7, opacity=0.8),
            text=[label if i < emap.labelled else "" for i, label in zip(members, labels)],
            textposition="top center", textfont=dict(size=12, color=colour),
            customdata=[[label, emap.token_ids[i]] for i, label in zip(members, labels)],
            hovertemplate=t("“{token}” (id {id})", lang, token="%{customdata[0]}",
                            id="%{customdata[1]}") + "<extra></extra>"))
    axis = [t("axis {n}: {share} of the variance", lang, n=n + 1,
              share=f"{emap.explained[n]:.0%}") for n in range(2)]
    fig.update_layout(
        template=TEMPLATE, height=600, margin=dict(l=50, r=10, t=30, b=50),
        xaxis=dict(title=dict(text=axis[0]), zeroline=False),
        yaxis=dict(title=dict(text=axis[1]), zeroline=False),
        legend=dict(orientation="h", yanchor="top", y=-0.12, x=0),  # clear of the plot's label
        hovermode="closest")
    return fig


def describe_map(emap: EmbeddingMap, vocab_size: int, counted: bool, lang: str = "en") -> str:
    """Two sentences under the map: which tokens are shown and how much the two axes hold."""
    n, vocab = f"{len(emap.tokens):,}", f"{vocab_size:,}"
    if len(emap.tokens) == vocab_size:
        shown = t("All {vocab} tokens are shown.", lang, vocab=vocab)
    elif counted:
        shown = t("The {n} most frequent of the {vocab} tokens are shown.", lang, n=n, vocab=vocab)
    else:
        shown = t("The first {n} of the {vocab} tokens are shown.", lang, n=n, vocab=vocab)
    share = f"{emap.explained.sum():.0%}"
    held = (t("The two axes hold {share} of how the rows differ; tokens close together are "
              "treated alike. This table is the output head too (tied weights).", lang,
              share=share)
            if emap.tied else
            t("The two axes hold {share} of how the rows differ; tokens close together are "
              "treated alike.", lang, share=share))
    return shown + ("" if lang == "zh-CN" else " ") + held


def frequent_first(token_ids: Iterable[int], counts: Counter) -> list[int]:
    """``token_ids`` ordered by ``counts``, the most frequent first (ties by id).

    >>> frequent_first([0, 1, 2], Counter({2: 5, 0: 1}))
    [2, 0, 1]
    """
    return sorted(token_ids, key=lambda i: (-counts.get(i, 0), i))
