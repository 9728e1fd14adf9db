"""The memorisation check against a brute-force reference, on small and 50 MB corpora."""

import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from playground.insight import memorization
from playground.i18n import error_text
from playground.insight.memorization import K, CopyIndex


def brute_force_spans(corpus: str, generated: str, min_chars: int) -> list[tuple[int, int]]:
    """The definition, spelled out: characters covered by any min_chars window found in corpus."""
    covered = [False] * len(generated)
    for i in range(len(generated) - min_chars + 1):
        if generated[i : i + min_chars] in corpus:
            covered[i : i + min_chars] = [True] * min_chars
    spans, i = [], 0
    while i < len(covered):
        if covered[i]:
            j = i
            while j < len(covered) and covered[j]:
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def spans_of(report) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in report.spans]


def test_a_verbatim_copy_is_found_exactly():
    corpus = "It was the best of times, it was the worst of times, it was the age of wisdom."
    generated = "Hmm: it was the worst of times!!"
    report = CopyIndex(corpus).find_copies(generated, min_chars=12)
    # the space before "it" belongs to the copy too: ", it was the worst" is in the corpus
    assert [s.text for s in report.spans] == [" it was the worst of times"]
    assert spans_of(report) == [(4, 30)]
    assert report.copied_chars == 26
    assert report.total_chars == len(generated)
    assert report.copied_fraction == 26 / len(generated)


def test_overlapping_copies_from_two_places_merge_into_one_span():
    # "abcdefghijkl" occurs at the start, "ijklmnopqrst" far away; neither the whole
    # generated text nor "abcdefghijklm" occurs, but their union covers every character
    corpus = "abcdefghijkl-----" + "xx ijklmnopqrst yy"
    generated = "abcdefghijklmnopqrst"
    index = CopyIndex(corpus)
    report = index.find_copies(generated, min_chars=10)
    assert generated not in corpus
    assert spans_of(report) == [(0, 20)] == brute_force_spans(corpus, generated, 10)
    assert report.copied_fraction == 1.0


def test_separate_copies_stay_separate_and_the_gap_is_not_counted():
    corpus = "the quick brown fox jumps. over the lazy dog."
    generated = "the quick brown fox ### over the lazy dog"
    report = CopyIndex(corpus).find_copies(generated, min_chars=10)
    assert spans_of(report) == [(0, 20), (23, 41)] == brute_force_spans(corpus, generated, 10)
    assert report.copied_chars == 20 + 18


def test_non_ascii_text_counts_characters_not_bytes():
    corpus = "床前明月光，疑是地上霜。举头望明月，低头思故乡。🌙 naïve café"
    generated = "我说：举头望明月，低头思故乡。好诗 🌙 naïve café!"
    report = CopyIndex(corpus).find_copies(generated, min_chars=8)
    assert spans_of(report) == brute_force_spans(corpus, generated, 8)
    assert [s.text for s in report.spans] == ["举头望明月，低头思故乡。", "🌙 naïve café"]
    assert report.total_chars == len(generated)


def test_combining_characters_are_not_folded_into_precomposed_ones():
    corpus = "a caf\u00e9 in paris by the river"  # é as one code point
    generated = "a cafe\u0301 in paris by the river"  # e + combining acute accent
    report = CopyIndex(corpus).find_copies(generated, min_chars=8)
    assert spans_of(report) == brute_force_spans(corpus, generated, 8) == [(7, 29)]


def test_min_chars_bounds():
    index = CopyIndex("abcdefghijklmnopqrstuvwxyz")
    with pytest.raises(ValueError, match=f"{K} characters"):
        index.find_copies("abcdefghijklmnop", min_chars=K - 1)
    with pytest.raises(ValueError):
        index.find_copies("abcdefghijklmnop", min_chars=True)
    assert spans_of(index.find_copies("xxabcdefghxx", min_chars=K)) == [(2, 10)]
    assert spans_of(index.find_copies("xxabcdefghxx", min_chars=K + 1)) == []
    # a min_chars longer than the text: nothing can be copied
    assert index.find_copies("abcdefghij", min_chars=11).copied_chars == 0
    assert spans_of(index.find_copies("abcdefghij", min_chars=10)) == [(0, 10)]


def test_empty_and_short_inputs():
    assert CopyIndex("").find_copies("anything at all here", min_chars=8).spans == []
    assert CopyIndex("short").find_copies("short short short", min_chars=8).spans == []
    report = CopyIndex("some corpus text").find_copies("", min_chars=8)
    assert (report.spans, report.copied_chars, report.copied_fraction) == ([], 0, 0.0)


def test_a_repetitive_corpus_takes_the_substring_search_path(monkeypatch):
    corpus = "ab" * 5000
    monkeypatch.setattr(memorization, "_MAX_CANDIDATES", 16)  # every piece is above it
    index = CopyIndex(corpus)
    generated = "xx" + "ab" * 20 + "yy" + "ba" * 3
    assert spans_of(index.find_copies(generated, min_chars=8)) == brute_force_spans(corpus, generated, 8)
    assert spans_of(index.find_copies(generated, min_chars=8)) == [(2, 42)]


def test_a_lone_surrogate_does_not_crash_the_index():
    corpus = "abc\udcffdefghijklmnop"
    report = CopyIndex(corpus).find_copies("zz\udcffdefghijk", min_chars=8)
    assert spans_of(report) == [(2, 11)]


@settings(max_examples=150, deadline=None)
@given(corpus=st.text(alphabet="ab c\n猫", max_size=300),
       generated=st.text(alphabet="ab c\n猫", max_size=80),
       min_chars=st.integers(K, 14))
def test_matches_brute_force_on_random_small_alphabets(corpus, generated, min_chars):
    # a small alphabet makes many partial matches, windows known to the index that do not
    # extend, and copies that overlap
    report = CopyIndex(corpus).find_copies(generated, min_chars=min_chars)
    assert spans_of(report) == brute_force_spans(corpus, generated, min_chars)
    assert all(s.text == generated[s.start : s.end] for s in report.spans)
    assert report.copied_chars == sum(e - s for s, e in spans_of(report))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_text_cut_from_the_corpus_is_all_copied(data):
    corpus = data.draw(st.text(min_size=40, max_size=400))
    start = data.draw(st.integers(0, len(corpus) - 20))
    end = data.draw(st.integers(start + 20, len(corpus)))
    report = CopyIndex(corpus).find_copies(corpus[start:end], min_chars=20)
    assert spans_of(report) == [(0, end - start)]


@pytest.mark.slow
def test_a_50_mb_corpus_builds_once_and_answers_fast():
    rng = np.random.default_rng(0)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzéü"))
    words = ["".join(rng.choice(letters, size=rng.integers(2, 10))) for _ in range(3000)]
    words += ["the", "king", "thou", "王", "月光"]
    ids = rng.integers(0, len(words), size=8_500_000)
    corpus = " ".join(words[i] for i in ids.tolist())
    assert len(corpus) > 50_000_000

    t0 = time.perf_counter()
    index = CopyIndex(corpus)
    t1 = time.perf_counter()
    planted = corpus[-5_000:-4_400]  # 600 characters from the end: a full scan would be slowest
    generated = "<<" + planted + ">> and then " + corpus[1_000:1_050] + " zzqq"
    report = index.find_copies(generated, min_chars=20)
    t2 = time.perf_counter()
    print(f"\n50 MB index: built in {t1 - t0:.1f} s, query in {1000 * (t2 - t1):.0f} ms")

    assert (report.spans[0].start, report.spans[0].end) == (2, 2 + len(planted))
    assert any(corpus[1_000:1_050] in s.text for s in report.spans)
    assert report.copied_chars >= len(planted) + 50


@pytest.mark.parametrize("min_chars", [K - 1, 0, True, 8.5])
def test_a_too_short_span_is_refused_in_both_languages(min_chars):
    with pytest.raises(ValueError) as caught:
        CopyIndex("the cat sat on the mat").find_copies("the cat", min_chars=min_chars)
    assert str(caught.value) == f"The shortest span the check can look for is {K} characters."
    assert error_text(caught.value, "zh-CN") == f"检查能查找的最短片段是 {K} 个字符。"
