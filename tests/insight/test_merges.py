"""The BPE merge viewer's core: tokenizing with only the first k merges."""

import pytest

from playground.i18n import error_text
from playground.insight.merges import MAX_TEXT_CHARS, tokens_after_merges
from playground.tokenizer import TokenizerError, train_tokenizer

SAMPLES = ["First Citizen: Before we proceed any further, hear me speak.",
           "  spaces\n\nand newlines\tand tabs  ", "猫 café naïve — ünïcödé", ""]


@pytest.fixture(scope="module")
def bpe(shakespeare_text):
    return train_tokenizer("bpe", shakespeare_text[:100_000], 600)


@pytest.mark.parametrize("text", SAMPLES)
def test_all_merges_give_the_tokenizers_own_tokens(bpe, text):
    """Against Hugging Face tokenizers' own BPE encoder (code no one here wrote)."""
    n = len(bpe.merges())
    assert tokens_after_merges(bpe, text, n) == bpe.token_strs(bpe.encode(text))
    assert tokens_after_merges(bpe, text, n + 1000) == bpe.token_strs(bpe.encode(text))


def test_no_merges_gives_bytes(bpe):
    assert tokens_after_merges(bpe, "hear me", 0) == list("hear me")
    assert tokens_after_merges(bpe, "猫", 0) == ["<0xE7>", "<0x8C>", "<0xAB>"]


def test_each_merge_fuses_exactly_its_pair(bpe):
    text = SAMPLES[0]
    merges = bpe.merges()
    previous = tokens_after_merges(bpe, text, 0)
    for k in range(1, 60):
        current = tokens_after_merges(bpe, text, k)
        assert "".join(current) == text  # nothing lost or added
        left, right = merges[k - 1]
        fused = []  # previous with every adjacent (left, right) glued, left to right
        i = 0
        while i < len(previous):
            if i + 1 < len(previous) and (previous[i], previous[i + 1]) == (left, right):
                fused.append(left + right)
                i += 2
            else:
                fused.append(previous[i])
                i += 1
        assert current == fused, k
        previous = current


def test_character_tokenizer_has_no_merges():
    char = train_tokenizer("char", "hello world")
    assert tokens_after_merges(char, "hello", 5) == ["h", "e", "l", "l", "o"]


def test_bad_requests_are_refused_with_messages(bpe):
    with pytest.raises(TokenizerError, match="whole number from 0"):
        tokens_after_merges(bpe, "x", -1)
    with pytest.raises(TokenizerError, match="at most"):
        tokens_after_merges(bpe, "x" * (MAX_TEXT_CHARS + 1), 3)


@pytest.mark.parametrize("k, text, english, chinese", [
    (-1, "ab", "The number of merges must be a whole number from 0 up, got -1.", "合并次数必须是从 0 起的整数，收到的是 -1。"),
    (2, "a" * 2001, "The sample is 2,001 characters long; the merge viewer shows at most 2,000. "
                    "Use a shorter sentence.", "示例有 2,001 个字符；合并查看器最多显示 2,000 个。请使用更短的句子。"),
])
def test_merge_viewer_errors_read_the_same_in_english_and_translate(k, text, english, chinese):
    tok = train_tokenizer("bpe", "ab ab ab", vocab_size=300)
    with pytest.raises(TokenizerError) as caught:
        tokens_after_merges(tok, text, k)
    assert (str(caught.value), error_text(caught.value, "zh-CN")) == (english, chinese)
