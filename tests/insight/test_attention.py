"""What each head mostly looks at: hand-made heads of each pattern, and random heads against
a plain loop over the rows written from the docstring's rule."""

import numpy as np
import pytest

from playground.insight.attention import MIN_SHARE, PATTERNS, head_patterns

TOKENS = list("to be or not to be\n")  # spaces, a line break, letters seen earlier
T = len(TOKENS)


def head(pick) -> np.ndarray:
    """A (T, T) head whose row i puts all its weight on key ``pick(i)`` (at most i)."""
    w = np.zeros((T, T))
    for i in range(T):
        w[i, pick(i)] = 1.0
    return w


def last_space(i):
    spaces = [j for j in range(i + 1) if TOKENS[j] in " \n"]
    return spaces[-1] if spaces else 0


def same_earlier(i):
    same = [j for j in range(i) if TOKENS[j] == TOKENS[i]]
    return same[-1] if same else i


@pytest.mark.parametrize("kind, pick", [
    ("previous", lambda i: max(i - 1, 0)),
    ("start", lambda i: 0),
    ("self", lambda i: i),
    ("whitespace", last_space),
    ("same", same_earlier),
])
def test_a_head_made_of_one_pattern_is_named_for_it(kind, pick):
    found = head_patterns(head(pick)[None], TOKENS)[0]
    assert found.kind == kind and found.share >= MIN_SHARE and found.name is PATTERNS[kind]


def test_a_uniform_head_has_no_pattern():
    w = np.tril(np.ones((T, T)))
    w /= w.sum(axis=1, keepdims=True)
    found = head_patterns(w[None], TOKENS)[0]
    assert found.kind == "" and found.name is None and found.share < MIN_SHARE


def reference_shares(w, tokens):
    """The rule, one row at a time: rows 2.. for every pattern, and for "same" only the rows
    whose token occurred before."""
    rows = range(2, len(tokens))
    same_rows = [i for i in rows if tokens[i] in tokens[:i]]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    return {
        "previous": mean([w[i, i - 1] for i in rows]),
        "start": mean([w[i, 0] for i in rows]),
        "self": mean([w[i, i] for i in rows]),
        "whitespace": mean([sum(w[i, j] for j in range(i + 1) if not tokens[j].strip())
                            for i in rows]),
        "same": mean([sum(w[i, j] for j in range(i) if tokens[j] == tokens[i])
                      for i in same_rows]) if len(same_rows) >= 3 else 0.0,
    }


def test_random_heads_agree_with_the_rule_row_by_row():
    rng = np.random.default_rng(0)
    raw = rng.random((6, T, T)) ** 8  # peaked rows, so some heads cross MIN_SHARE
    w = np.tril(raw)
    w /= w.sum(axis=-1, keepdims=True)
    for h, found in enumerate(head_patterns(w, TOKENS)):
        shares = reference_shares(w[h], TOKENS)
        best = max(PATTERNS, key=lambda k: shares[k])
        assert found.share == pytest.approx(round(shares[best], 4))
        assert found.kind == (best if shares[best] >= MIN_SHARE else "")


def test_texts_too_short_for_a_pattern():
    assert [p.kind for p in head_patterns(np.ones((2, 2, 2)) / 2, ["a", "b"])] == ["", ""]
