"""Memorisation check: which parts of a generated text the model copied from its training text.

An index of every K-character window of the training text (K = 8) is built once per corpus as
a sorted array of 64-bit hashes. A span of generated text can only occur verbatim in the
corpus if all its K-character windows do, so the index finds candidate spans in one
vectorised look-up; each candidate is then confirmed with an exact substring search.

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

K = 8  # window length of the index; min_chars may not go below it
_BASE = np.uint64(1_000_003)


def _window_hashes(text: str) -> np.ndarray:
    """64-bit polynomial hash of every K-character window: (len(text) - K + 1,) uint64."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n = codes.size - K + 1
    if n <= 0:
        return np.empty(0, dtype=np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):  # wrapping multiplication is the hash
        for j in range(K):
            h = h * _BASE + codes[j : j + n]
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
        self.hashes = np.unique(_window_hashes(corpus))  # sorted, for searchsorted

    def _known(self, hashes: np.ndarray) -> np.ndarray:
        if self.hashes.size == 0 or hashes.size == 0:
            return np.zeros(hashes.size, dtype=bool)
        pos = np.searchsorted(self.hashes, hashes).clip(max=self.hashes.size - 1)
        return self.hashes[pos] == hashes

    def find_copies(self, generated: str, min_chars: int = 20) -> CopyReport:
        """Maximal spans of at least ``min_chars`` characters found verbatim in the corpus."""
        if min_chars < K:
            raise ValueError(f"The shortest span the check can look for is {K} characters.")
        known = self._known(_window_hashes(generated))
        spans: list[CopiedSpan] = []
        i, n = 0, known.size
        while i < n:
            if not known[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and known[j + 1]:
                j += 1
            spans += self._confirm(generated, i, j + K, min_chars)  # run of windows i..j
            i = j + 1
        copied = sum(s.end - s.start for s in spans)
        return CopyReport(spans, copied, len(generated))

    def _confirm(self, text: str, start: int, end: int, min_chars: int) -> list[CopiedSpan]:
        """Exact check of a candidate run text[start:end]: the union of all verbatim matches.

        For each position i, ``e`` is the end of the longest match starting at i; a suffix of
        a match is a match, so ``e`` never moves back and each character is tested once.
        """
        intervals: list[list[int]] = []
        e = start
        for i in range(start, end - min_chars + 1):
            if e - i < min_chars:
                if text[i : i + min_chars] not in self.corpus:
                    continue
                e = i + min_chars
            while e < end and text[i : e + 1] in self.corpus:
                e += 1
            if intervals and i <= intervals[-1][1]:
                intervals[-1][1] = max(intervals[-1][1], e)
            else:
                intervals.append([i, e])
        return [CopiedSpan(a, b, text[a:b]) for a, b in intervals]
