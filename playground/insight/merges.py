"""The BPE merge viewer: how a sentence's tokens fuse, one learned merge at a time.

Byte-level BPE starts from the bytes of each pre-tokenized piece (words with their leading
space) and applies its learned merges in the order it learned them: merge ``i`` fuses every
adjacent pair ``(left, right)`` into one token. ``tokens_after_merges(tokenizer, text, k)``
tokenizes ``text`` with only the first ``k`` merges, so stepping ``k`` from 0 to the number of
merges replays how the tokenizer builds its tokens; with every merge it equals the
tokenizer's own ``encode`` (the tests compare it with Hugging Face ``tokenizers``).

>>> from playground.tokenizer import train_tokenizer
>>> tok = train_tokenizer("bpe", "ab ab ab", vocab_size=300)
>>> tok.merges()
[('a', 'b'), (' ', 'ab')]
>>> [tokens_after_merges(tok, "ab ab", k) for k in range(3)]
[['a', 'b', ' ', 'a', 'b'], ['ab', ' ', 'ab'], ['ab', ' ab']]
"""

from __future__ import annotations

import json
from functools import lru_cache

from playground.i18n import msg
from playground.tokenizer import Tokenizer, TokenizerError, _byte_to_unicode, _bytes_display

MAX_TEXT_CHARS = 2_000  # the viewer shows one sentence or paragraph; pure Python beyond is slow


@lru_cache(maxsize=8)
def _ranks(tokenizer_json: str) -> dict[tuple[str, str], int]:
    """{(left, right): rank} of the merges in a tokenizer's JSON, in byte-level characters."""
    merges = json.loads(tokenizer_json)["tokenizer"]["model"]["merges"]
    # [left, right] pairs: tokenizers >= 0.20 writes them so (requirements: 0.21)
    return {tuple(pair): rank for rank, pair in enumerate(merges)}


def _pieces(text: str) -> list[str]:
    """The pre-tokenizer's pieces (GPT-2's regex split) in byte-level characters."""
    from tokenizers import pre_tokenizers

    split = pre_tokenizers.ByteLevel(add_prefix_space=False).pre_tokenize_str(text)
    return [piece for piece, _ in split]


def _merge_piece(symbols: list[str], ranks: dict[tuple[str, str], int], k: int) -> list[str]:
    """Apply the merges of rank < k to one piece, lowest rank first (as BPE encodes)."""
    while len(symbols) > 1:
        pairs = [(ranks.get(pair, k), i) for i, pair in enumerate(zip(symbols, symbols[1:]))]
        rank = min(pairs)[0]
        if rank >= k:
            break
        merged, i = [], 0
        while i < len(symbols):  # fuse every occurrence of this pair, left to right
            if i + 1 < len(symbols) and ranks.get((symbols[i], symbols[i + 1])) == rank:
                merged.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        symbols = merged
    return symbols


def tokens_after_merges(tokenizer: Tokenizer, text: str, k: int) -> list[str]:
    """``text`` as display strings of its tokens when only the first ``k`` merges are used.

    ``k`` 0 gives the bytes (a character of several bytes shows as ``<0x..>`` pieces); ``k``
    at or above the number of merges gives the tokenizer's own tokens. A character tokenizer
    learns no merges: its tokens are the characters, whatever ``k``.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise TokenizerError(msg("The number of merges must be a whole number from 0 up, got "
                                 "{value}.", value=repr(k)))
    if len(text) > MAX_TEXT_CHARS:
        raise TokenizerError(msg("The sample is {n} characters long; the merge viewer shows at "
                                 "most {max_chars}. Use a shorter sentence.", n=f"{len(text):,}",
                                 max_chars=f"{MAX_TEXT_CHARS:,}"))
    if tokenizer.kind != "bpe":
        return tokenizer.token_strs(tokenizer.encode(text))
    ranks = _ranks(tokenizer.to_json())
    byte_of = {ch: b for b, ch in _byte_to_unicode().items()}
    tokens = [tok for piece in _pieces(text) for tok in _merge_piece(list(piece), ranks, k)]
    return [_bytes_display(bytes(byte_of[ch] for ch in tok)) for tok in tokens]
