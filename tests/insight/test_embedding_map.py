"""The embedding map: PCA by torch's SVD agrees with numpy's eigendecomposition of the
covariance, its first axis explains the most variance, and the map shows the right tokens."""

from collections import Counter

import numpy as np
import pytest
import torch

from playground.insight.embedding_map import (GROUPS, MAX_LABELS, describe_map, embedding_figure,
                                              embedding_map, pca_2d, token_counts, token_group)

from checks import CJK


def numpy_pca(x: np.ndarray):
    """Eigenvalues (largest first) and axes of the covariance: PCA as the textbook does it."""
    centred = x - x.mean(axis=0)
    values, vectors = np.linalg.eigh(centred.T @ centred / len(x))
    order = np.argsort(values)[::-1]
    return values[order], vectors[:, order], centred


def test_pca_matches_numpy_and_its_first_axis_explains_the_most_variance():
    x = np.random.default_rng(1).normal(size=(80, 12)) @ np.diag(np.linspace(3, 0.2, 12))
    points, explained = pca_2d(torch.tensor(x, dtype=torch.float32))
    values, vectors, centred = numpy_pca(x.astype(np.float32).astype(np.float64))
    assert np.allclose(explained, values[:2] / values.sum(), atol=1e-5)
    assert explained[0] >= explained[1]
    for axis in range(2):  # the same axes up to their sign
        projected = centred @ vectors[:, axis]
        assert np.allclose(np.abs(points[:, axis]), np.abs(projected), atol=1e-4)
    # no other direction holds more variance than the first axis
    directions = np.random.default_rng(2).normal(size=(200, 12))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    assert (centred @ directions.T).var(axis=0).max() <= points[:, 0].var() + 1e-6


def test_pca_of_a_one_number_wide_table_is_a_line():
    points, explained = pca_2d(torch.tensor([[1.0], [2.0], [4.0]]))
    assert points.shape == (3, 2) and np.all(points[:, 1] == 0) and explained[0] == pytest.approx(1.0)


def test_the_groups_of_characters():
    groups = {c: token_group(c) for c in "aeiouAZbz09,.;!? \n"}
    assert {c for c, g in groups.items() if g == "vowel"} == set("aeiou")
    assert {c for c, g in groups.items() if g == "capital"} == set("AZ")
    assert {c for c, g in groups.items() if g == "digit"} == set("09")
    assert {c for c, g in groups.items() if g == "punctuation"} == set(",.;!?")
    assert {c for c, g in groups.items() if g == "space"} == {" ", "\n"}


def test_the_map_covers_every_variant_and_shows_frequent_tokens_first(variant_model):
    model, tok, text = variant_model
    counts = token_counts(tok, text)
    emap = embedding_map(model, tok, counts=counts, max_tokens=50)
    assert len(emap.tokens) == min(50, tok.vocab_size) and emap.labelled <= MAX_LABELS
    frequencies = [counts.get(i, 0) for i in emap.token_ids]
    assert frequencies == sorted(frequencies, reverse=True)
    assert frequencies[0] == max(counts.values())
    full_points, _ = pca_2d(model.tok_emb.weight)
    assert np.array_equal(emap.points, full_points[emap.token_ids])
    assert emap.tied == model.config.tie_weights
    fig = embedding_figure(emap)
    assert sum(len(trace.x) for trace in fig.data) == len(emap.tokens)
    assert {trace.name for trace in fig.data} <= {str(name) for _, name in GROUPS.values()}
    assert CJK.search(embedding_figure(emap, "zh-CN").to_json())
    assert CJK.search(describe_map(emap, tok.vocab_size, True, "zh-CN"))


def test_without_counts_the_map_keeps_token_order_and_says_so(variant_model):
    model, tok, _ = variant_model
    emap = embedding_map(model, tok, counts=None, max_tokens=10)
    assert emap.token_ids == list(range(10))
    note = describe_map(emap, tok.vocab_size, counted=False)
    assert note.startswith(f"The first 10 of the {tok.vocab_size:,} tokens are shown.")
    every = embedding_map(model, tok, counts=Counter(), max_tokens=10_000)
    assert describe_map(every, tok.vocab_size, counted=False).startswith("All ")
