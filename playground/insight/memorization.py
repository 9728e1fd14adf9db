"""Memorisation check: which parts of a generated text the model copied from its training text.

An index of every K-character window of the training text (K = 8) is built once per corpus:
one sorted array of 64-bit keys, each a window's hash in the high bits and the position the
window starts at in the low bits (one sort of plain integers, 3x faster than an argsort,
and 8 bytes per corpus character: 400 MB for 50 MB of text). The copied part
of a generated text is the union of its ``min_chars``-long windows that occur verbatim in the
corpus (a longer copy is covered by its windows, each of which is a copy too). A window can
only occur where its rarest K-character piece does, so each one is checked exactly against
the few corpus positions of that piece, never by scanning the whole corpus.

>>> index = CopyIndex("the cat sat on the mat. the dog sat on the log.")
>>> report = index.find_copies("a cat sat on the log!", min_chars=10)
>>> [(s.start, s.end, s.text) for s in report.spans]
[(1, 20, ' cat sat on the log')]
>>> round(report.copied_fraction, 3)
0.905
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from playground.i18n import msg

K = 8  # window length of the index; min_chars may not go below it
_BASE = np.uint64(1_000_003)
_CHUNK = 1 << 22  # windows hashed at once: bounds the temporaries to ~100 MB for any corpus
# Beyond this many corpus positions for a window's rarest piece, one substring search is
# cheaper than checking each position (only text made of very common pieces gets there).
_MAX_CANDIDATES = 2048


def _window_hashes(text: str) -> np.ndarray:
    """64-bit polynomial hash of every K-character window: (len(text) - K + 1,) uint64."""
    # "surrogatepass": a lone surrogate (possible in text read with errors="surrogateescape")
    # still hashes instead of raising
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    n = codes.size - K + 1
    if n <= 0:
        return np.empty(0, dtype=np.uint64)
    h = np.empty(n, dtype=np.uint64)
    with np.errstate(over="ignore"):  # wrapping multiplication is the hash
        for start in range(0, n, _CHUNK):
            stop = min(n, start + _CHUNK)
            part = codes[start : stop + K - 1].astype(np.uint64)  # (stop - start + K - 1,)
            acc = np.zeros(stop - start, dtype=np.uint64)
            for j in range(K):
                acc = acc * _BASE + part[j : j + stop - start]
            h[start:stop] = acc
    return h


@dataclass(frozen=True)
class CopiedSpan:
    start: int  # character offsets in the generated text, end exclusive
    end: int
    text: str


@dataclass(frozen=True)
class CopyReport:
    spans: list[CopiedSpan]
    copied_chars: int
    total_chars: int

    @property
    def copied_fraction(self) -> float:
        return self.copied_chars / self.total_chars if self.total_chars else 0.0


class CopyIndex:
    """Built once per training text; answers ``find_copies`` for any generated text."""

    def __init__(self, corpus: str):
        self.corpus = corpus
        # low bits: a window's start position; high bits: the top of its hash (38 bits for
        # 50 MB; a rare collision only adds a candidate position that the exact check drops)
        self.pos_bits = max(1, len(corpus).bit_length())
        keys = _window_hashes(corpus)  # (n_windows,) uint64, turned into keys in place
        shift = np.uint64(self.pos_bits)
        keys >>= shift
        keys <<= shift
        for start in range(0, keys.size, _CHUNK):
            stop = min(keys.size, start + _CHUNK)
            keys[start:stop] |= np.arange(start, stop, dtype=np.uint64)
        keys.sort()  # not np.unique: numpy 2.x's hash-based unique takes minutes on 50M values
        self.keys = keys

    def find_copies(self, generated: str, min_chars: int = 20) -> CopyReport:
        """Maximal spans of at least ``min_chars`` characters found verbatim in the corpus.

        Overlapping or touching copies merge into one span, so the spans are the union of
        every verbatim match and ``copied_chars`` counts each character once.
        """
        if isinstance(min_chars, bool) or not isinstance(min_chars, int) or min_chars < K:
            raise ValueError(msg("The shortest span the check can look for is {n} characters.",
                                 n=K))
        n_windows = len(generated) - min_chars + 1
        if n_windows <= 0 or self.keys.size == 0:
            return CopyReport([], 0, len(generated))
        shift = np.uint64(self.pos_bits)
        pieces = _window_hashes(generated) >> shift << shift  # (len - K + 1,) the K-char pieces
        lo = np.searchsorted(self.keys, pieces, side="left")
        hi = np.searchsorted(self.keys, pieces | np.uint64((1 << self.pos_bits) - 1), side="right")
        counts = hi - lo  # corpus occurrences of each piece
        # each min_chars window holds min_chars - K + 1 pieces: (n_windows, min_chars - K + 1)
        per_window = sliding_window_view(counts, min_chars - K + 1)
        rarest = per_window.argmin(axis=1)  # offset of each window's rarest piece
        intervals: list[list[int]] = []
        for i in np.flatnonzero(per_window.min(axis=1) > 0).tolist():
            piece = i + int(rarest[i])
            if not self._occurs(generated[i : i + min_chars], piece - i, lo[piece], hi[piece]):
                continue
            if intervals and i <= intervals[-1][1]:
                intervals[-1][1] = i + min_chars
            else:
                intervals.append([i, i + min_chars])
        spans = [CopiedSpan(a, b, generated[a:b]) for a, b in intervals]
        return CopyReport(spans, sum(b - a for a, b in intervals), len(generated))

    def _occurs(self, window: str, offset: int, lo: int, hi: int) -> bool:
        """Whether ``window`` is in the corpus, given that its piece at ``offset`` starts at
        one of the corpus positions held by keys[lo:hi]."""
        if hi - lo > _MAX_CANDIDATES:
            return window in self.corpus
        mask = np.uint64((1 << self.pos_bits) - 1)
        starts = (self.keys[lo:hi] & mask).astype(np.int64) - offset
        return any(self.corpus.startswith(window, p) for p in starts[starts >= 0].tolist())
