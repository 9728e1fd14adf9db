"""Tokenizers: both kinds behind one interface, exact round trips, JSON save/load."""

import json
import os
import re

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from tokenizers import pre_tokenizers

from playground import tokenizer as tok_mod
from playground.corpus import load_tiny_shakespeare
from playground.tokenizer import (
    BPETokenizer,
    CharTokenizer,
    Tokenizer,
    TokenizerError,
    load_tokenizer,
    tokenizer_from_json,
    train_tokenizer,
)

from checks import assert_translated

STRINGS = {
    "ascii": "Hello, world! The quick brown fox jumps over 13 lazy dogs.",
    "chinese": "你好，世界。天地玄黄，宇宙洪荒。",
    "emoji": "I ❤️ 🐍 and 👩‍👩‍👧 families 🎉",
    "crlf": "line one\r\nline two\r\n\r\nend\r",
    "cyrillic": "Привет, мир! Съешь же ещё этих мягких французских булок.",
    "whitespace": "  two  spaces\t\ttabs \n\n\n trailing   ",
    "controls": "nul\x00 del\x7f bell\x07 nbsp\u00a0 zwj\u200d",
}


@pytest.fixture(scope="module")
def shakespeare():
    return load_tiny_shakespeare().text


@pytest.fixture(scope="module")
def tokenizers(shakespeare):
    """One trained tokenizer per kind. The char one has seen every test string; the BPE one
    only Shakespeare, so Chinese, emoji and Cyrillic go through its byte fallback."""
    sample = shakespeare[:50_000]
    return {
        "char": train_tokenizer("char", sample + "".join(STRINGS.values())),
        "bpe": train_tokenizer("bpe", sample, vocab_size=400),
    }


# --- the shared interface -----------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(STRINGS))
@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_round_trip_is_exact(tokenizers, kind, name):
    tok = tokenizers[kind]
    text = STRINGS[name]
    ids = tok.encode(text)
    assert all(0 <= i < tok.vocab_size for i in ids)
    assert tok.decode(ids) == text
    assert tok.encode_array(text).tolist() == ids
    assert tok.encode_array(text).dtype == np.int64
    if kind == "char" or text.isascii():  # BPE tokens may split a character's bytes
        assert "".join(tok.token_strs(ids)) == text


@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_interface(tokenizers, kind):
    tok = tokenizers[kind]
    assert isinstance(tok, Tokenizer)
    assert tok.kind == kind
    ids = tok.encode("To be, or not to be")
    assert tok.token_strs(ids) == [tok.token_str(i) for i in ids]
    assert tok.decode(np.array(ids)) == "To be, or not to be"  # numpy ids work too
    assert tok.decode([]) == ""
    assert tok.encode("") == []


@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_save_and_load_give_identical_encodings(tokenizers, shakespeare, kind, tmp_path):
    tok = tokenizers[kind]
    path = tok.save(tmp_path / f"{kind}.json")
    loaded = load_tokenizer(path)
    text = shakespeare[50_000:60_000] + STRINGS["crlf"]
    assert type(loaded) is type(tok)
    assert loaded.vocab_size == tok.vocab_size
    assert loaded.encode(text) == tok.encode(text)
    assert loaded.to_json() == tok.to_json()
    assert [loaded.token_str(i) for i in range(loaded.vocab_size)] == [
        tok.token_str(i) for i in range(tok.vocab_size)]
    assert json.loads(tok.to_json())["kind"] == kind


@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_decode_rejects_ids_outside_the_vocabulary(tokenizers, kind):
    tok = tokenizers[kind]
    for bad in ([tok.vocab_size], [-1], [1.5], [[1, 2]]):
        with pytest.raises(TokenizerError):
            tok.decode(bad)
    with pytest.raises(TokenizerError, match=f"vocabulary of {tok.vocab_size}"):
        tok.token_str(tok.vocab_size)


def test_chars_per_token(tokenizers):
    assert tokenizers["char"].chars_per_token("hello") == 1.0
    assert tokenizers["bpe"].chars_per_token("the the the") == 11 / len(
        tokenizers["bpe"].encode("the the the"))
    with pytest.raises(TokenizerError, match="non-empty"):
        tokenizers["char"].chars_per_token("")


# --- character level ----------------------------------------------------------------------

def test_char_vocabulary_of_tiny_shakespeare_is_65(shakespeare):
    tok = train_tokenizer("char", shakespeare)
    assert tok.vocab_size == 65
    assert tok.chars == sorted(set(shakespeare))
    assert tok.chars[:2] == ["\n", " "]
    ids = tok.encode_array(shakespeare)
    assert ids.shape == (len(shakespeare),)
    assert ids.tolist() == tok.encode(shakespeare)
    assert tok.decode(ids) == shakespeare


def test_char_unknown_character_raises_naming_it():
    tok = CharTokenizer.train("hello world")
    message = ("The text has 2 characters this tokenizer has never seen: 'é' (U+00E9), "
               "'😀' (U+1F600). Train the tokenizer again on a text that contains them.")
    for encode in (tok.encode, tok.encode_array):
        with pytest.raises(TokenizerError) as err:
            encode("héllo 😀 world")
        assert str(err.value) == message


def test_char_unknown_character_below_the_vocabulary_code_points():
    tok = CharTokenizer.train("xyz")
    with pytest.raises(TokenizerError, match=r"'a' \(U\+0061\)"):
        tok.encode_array("xa")


def test_char_unknown_message_is_capped():
    tok = CharTokenizer.train("a")
    with pytest.raises(TokenizerError, match="and 15 more"):
        tok.encode("bcdefghijklmnopqrstuvwxyz")


def test_char_tokenizer_takes_no_vocab_size():
    with pytest.raises(TokenizerError, match="leave vocab_size empty"):
        train_tokenizer("char", "abc", vocab_size=100)


# --- byte-level BPE -----------------------------------------------------------------------

def test_bpe_on_tiny_shakespeare(shakespeare):
    tok = train_tokenizer("bpe", shakespeare, vocab_size=512)
    assert tok.vocab_size == 512
    ids = tok.encode(shakespeare)
    assert tok.decode(ids) == shakespeare
    # Byte-level BPE spends 256 of the 512 ids on bytes (Shakespeare uses 62 of them),
    # leaving 256 merges: 1.94 characters per token here, 3.24 at vocab 4096.
    chars_per_token = tok.chars_per_token(shakespeare)
    assert chars_per_token == len(shakespeare) / len(ids)
    assert 1.9 < chars_per_token < 2.1
    # Long texts are encoded in pieces; that must equal encoding the whole string at once.
    head = shakespeare[:200_000]
    assert tok.encode(head) == tok._tok.encode(head).ids


def test_bpe_merges_are_in_learned_order(shakespeare):
    tok = train_tokenizer("bpe", shakespeare[:20_000], vocab_size=400)
    merges = tok.merges()
    assert len(merges) == tok.vocab_size - 256 == 144
    # The k-th merge makes token 256 + k (ASCII text, so every side is readable text).
    assert [tok.token_str(256 + k) for k in range(len(merges))] == [a + b for a, b in merges]
    assert all(isinstance(a, str) and isinstance(b, str) for a, b in merges)


def test_bpe_token_strings_show_partial_utf8_as_hex():
    tok = BPETokenizer.train("abc " * 10, vocab_size=256)  # bytes only: 0 merges
    assert tok.merges() == []
    ids = tok.encode("a猫")
    assert tok.token_strs(ids) == ["a", "<0xE7>", "<0x8C>", "<0xAB>"]
    assert tok.decode(ids) == "a猫"
    assert tok.token_str(tok.encode(" ")[0]) == " "  # not GPT-2's "Ġ"


def test_bpe_token_strings_of_a_learned_multibyte_token():
    tok = BPETokenizer.train("猫猫 猫猫 猫猫 " * 10, vocab_size=270)
    assert "猫猫" in tok.token_strs(tok.encode("猫猫"))


def test_bpe_on_a_small_text_keeps_the_smaller_vocabulary_and_says_so():
    tok = train_tokenizer("bpe", "abab abab abab", vocab_size=1000)
    assert 256 < tok.vocab_size < 1000
    assert tok.requested_vocab_size == 1000
    assert max(tok.encode("abab abab zzz")) < tok.vocab_size
    loaded = tokenizer_from_json(tok.to_json())
    assert (loaded.vocab_size, loaded.requested_vocab_size) == (tok.vocab_size, 1000)


def test_bpe_default_vocab_size(shakespeare):
    assert train_tokenizer("bpe", shakespeare[:100_000]).vocab_size == 512


@pytest.mark.parametrize("vocab_size", [0, -1, 255, 16_385, 512.0, True, "512"])
def test_bpe_refuses_bad_vocab_sizes(vocab_size):
    with pytest.raises(TokenizerError, match="from 256 .* to 16,384"):
        train_tokenizer("bpe", "some text", vocab_size=vocab_size)


def test_bpe_accepts_the_vocab_size_limits():
    assert train_tokenizer("bpe", "a b", vocab_size=256).vocab_size == 256
    assert train_tokenizer("bpe", "a b", vocab_size=16_384).requested_vocab_size == 16_384


def test_byte_alphabet_matches_tokenizers():
    assert sorted(tok_mod._byte_to_unicode().values()) == sorted(pre_tokenizers.ByteLevel.alphabet())
    assert tok_mod._byte_to_unicode()[ord(" ")] == "Ġ"


def test_pieces_cut_only_where_the_pre_tokenizer_splits():
    text = "ab\ncd \nef\n\ngh"
    pieces = tok_mod._pieces(text, size=1)
    assert "".join(pieces) == text
    assert pieces == ["ab", "\ncd \nef", "\n\ngh"]


def test_training_pieces_cut_long_runs_and_leave_ordinary_text_alone(shakespeare):
    """Training is linear in the text only if no word it sees is long: a 1 MB run of letters
    was one word, rescanned by every merge (100 KB took 19 s, 1 MB about half an hour)."""
    assert tok_mod._training_pieces(shakespeare) == tok_mod._pieces(shakespeare)
    text = "x" * 1000 + "   " + " " * 200 + "end\n" + "ab" * 70
    pieces = tok_mod._training_pieces(text)
    assert "".join(pieces) == text
    runs = [len(run) for piece in pieces for run in re.findall(r"\S+|\s+", piece)]
    assert max(runs) == tok_mod.MAX_TRAINING_RUN


@pytest.mark.slow
def test_bpe_training_on_a_megabyte_without_spaces_sees_only_short_words(monkeypatch):
    """1 MB of letters with no space or newline: every item training takes is at most
    MAX_TRAINING_RUN long, and the tokenizer still round-trips the whole text."""
    from tokenizers import Tokenizer as HFTokenizer

    rng = np.random.default_rng(0)
    text = "".join(rng.choice(list("abcdefghij"), size=2**20))
    longest = []
    real = HFTokenizer.train_from_iterator

    def recording(self, iterator, **kwargs):
        items = list(iterator)
        longest.append(max(map(len, items)))
        return real(self, items, **kwargs)

    monkeypatch.setattr(HFTokenizer, "train_from_iterator", recording)
    tok = BPETokenizer.train(text, vocab_size=1024)
    assert longest == [tok_mod.MAX_TRAINING_RUN] and tok.vocab_size == 1024
    assert tok.decode(tok.encode(text)) == text


# --- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_training_on_empty_text_is_refused(kind):
    with pytest.raises(TokenizerError, match="empty text"):
        train_tokenizer(kind, "")


def test_unknown_kind():
    with pytest.raises(TokenizerError, match="choose one of char, bpe"):
        train_tokenizer("word", "text")


@pytest.mark.parametrize("data, reason", [
    ("{not json", "not valid JSON"),
    ("", "not valid JSON"),
    (None, "not valid JSON"),
    ("[1, 2]", "which kind"),
    ('{"kind": "word"}', "which kind"),
    ('{"kind": "char", "chars": []}', "non-empty list"),
    ('{"kind": "char", "chars": "abc"}', "non-empty list"),
    ('{"kind": "char", "chars": ["ab"]}', "single characters"),
    ('{"kind": "char", "chars": ["a", "a"]}', "all be different"),
    ('{"kind": "bpe", "tokenizer": {"model": 3}}', "damaged"),
    ('{"kind": "bpe"}', "damaged"),
])
def test_malformed_json_is_refused(data, reason):
    with pytest.raises(TokenizerError, match=reason):
        tokenizer_from_json(data)


def test_a_bpe_json_that_is_not_byte_level_is_refused():
    from tokenizers import Tokenizer as HFTokenizer, models

    word_level = HFTokenizer(models.WordLevel(vocab={"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    data = json.dumps({"kind": "bpe", "tokenizer": json.loads(word_level.to_str())})
    with pytest.raises(TokenizerError, match="not a byte-level BPE"):
        tokenizer_from_json(data)


def test_load_tokenizer_missing_file(tmp_path):
    with pytest.raises(TokenizerError, match="'nope.json'"):
        load_tokenizer(tmp_path / "nope.json")


# --- properties ---------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=80))
def test_char_round_trips_any_text_it_was_trained_on(text):
    tok = CharTokenizer.train(text)
    assert tok.vocab_size == len(set(text))
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert tok.encode_array(text).tolist() == ids
    assert tokenizer_from_json(tok.to_json()).encode(text) == ids


@pytest.fixture(scope="module")
def small_bpe(shakespeare):
    return train_tokenizer("bpe", shakespeare[:30_000], vocab_size=350)


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=120))
def test_bpe_round_trips_arbitrary_text(small_bpe, text):
    ids = small_bpe.encode(text)
    assert small_bpe.decode(ids) == text
    assert all(0 <= i < small_bpe.vocab_size for i in ids)


# --- the page's language ------------------------------------------------------------------

def _unreadable_file(tmp_path):
    path = tmp_path / "tok.json"
    path.write_bytes(b"\xff\xfe")
    return load_tokenizer(path)


def _not_byte_level():
    from tokenizers import Tokenizer as HFTokenizer, models

    bare = json.loads(HFTokenizer(models.BPE()).to_str())  # no byte-level pre-tokenizer
    return tokenizer_from_json(json.dumps({"kind": "bpe", "tokenizer": bare}))


TOKENIZER_ERRORS = [
    (lambda tmp: CharTokenizer.train("ab").decode([[0, 1]]),
     "Token ids must be a flat list of whole numbers, got int64 values of shape (1, 2).",
     ("int64", "(1, 2)")),
    (lambda tmp: CharTokenizer.train("ab").decode([5]),
     "Token id 5 is not in this tokenizer's vocabulary of 2 (ids 0 to 1).", ()),
    (lambda tmp: CharTokenizer.train("ab").chars_per_token(""),
     "Characters per token needs a non-empty text.", ()),
    (lambda tmp: CharTokenizer.train("ab").encode("abc"),
     "The text has 1 character this tokenizer has never seen: 'c' (U+0063). Train the tokenizer "
     "again on a text that contains it.", ("'c' (U+0063)",)),
    (lambda tmp: CharTokenizer.train("ab").encode("cd"),
     "The text has 2 characters this tokenizer has never seen: 'c' (U+0063), 'd' (U+0064). "
     "Train the tokenizer again on a text that contains them.", ("'c' (U+0063), 'd' (U+0064)",)),
    (lambda tmp: CharTokenizer.train("a").encode_array("bcdefghijklm"),
     "The text has 12 characters this tokenizer has never seen: 'b' (U+0062), 'c' (U+0063), "
     "'d' (U+0064), 'e' (U+0065), 'f' (U+0066), 'g' (U+0067), 'h' (U+0068), 'i' (U+0069), "
     "'j' (U+006A), 'k' (U+006B) and 2 more. Train the tokenizer again on a text that contains "
     "them.", ("'k' (U+006B)",)),
    (lambda tmp: CharTokenizer(["ab"]),
     "A character tokenizer needs a non-empty list of single characters.", ()),
    (lambda tmp: CharTokenizer(["a", "a"]),
     "A character tokenizer's characters must all be different.", ()),
    (lambda tmp: train_tokenizer("char", ""),
     "Cannot train a tokenizer on an empty text.", ()),
    (lambda tmp: train_tokenizer("bpe", "abc", vocab_size=100),
     "The BPE vocabulary size must be a whole number from 256 (the 256 bytes) to 16,384, got 100.",
     ()),
    (lambda tmp: _not_byte_level(),
     "This is not a byte-level BPE tokenizer made by this app; train a new one.", ()),
    (lambda tmp: train_tokenizer("char", "abc", vocab_size=300),
     "A character tokenizer's vocabulary is the text's own characters, so its size cannot be "
     "chosen: leave vocab_size empty, or choose BPE.", ("vocab_size", "BPE")),
    (lambda tmp: train_tokenizer("word", "abc"),
     "Unknown tokenizer kind 'word': choose one of char, bpe.", ("'word'", "char, bpe")),
    (lambda tmp: tokenizer_from_json("{not json"),
     "The tokenizer data is not valid JSON (Expecting property name enclosed in double quotes: "
     "line 1 column 2 (char 1)).", ("Expecting property name",)),
    (lambda tmp: tokenizer_from_json(json.dumps({"kind": "bpe", "tokenizer": {"model": 3}})),
     None, ()),
    (lambda tmp: tokenizer_from_json(json.dumps({"kind": "wordpiece"})),
     "The tokenizer data does not say which kind it is (got kind='wordpiece'); expected one of "
     "char, bpe.", ("kind='wordpiece'", "char, bpe")),
    (lambda tmp: _unreadable_file(tmp),
     None, ("tok.json",)),
]


@pytest.mark.parametrize("make, english, names", TOKENIZER_ERRORS,
                         ids=[f"{n}" for n in range(len(TOKENIZER_ERRORS))])
def test_tokenizer_errors_read_the_same_in_english_and_translate(make, english, names, tmp_path):
    with pytest.raises(TokenizerError) as caught:
        make(tmp_path)
    if english is None:  # the reason comes from a library, whose words may change
        english = str(caught.value)
        assert english.startswith(("The BPE tokenizer data is damaged (",
                                   "Could not read the tokenizer file 'tok.json' ("))
    assert_translated(caught.value, english, names)


def test_bpe_with_a_time_budget_trains_the_same_tokenizer_in_a_process_of_its_own(tmp_path, monkeypatch):
    text = "the cat sat on the mat, 猫 " * 200
    monkeypatch.chdir(tmp_path)  # the child finds the package wherever the server runs
    assert (train_tokenizer("bpe", text, 300, time_budget_s=120).to_json()
            == BPETokenizer.train(text, 300).to_json())


def test_bpe_past_its_time_budget_is_stopped_and_says_so():
    with pytest.raises(TokenizerError) as caught:  # no child starts and answers in 1 ms
        train_tokenizer("bpe", "x y " * 1000, 300, time_budget_s=0.001)
    assert_translated(caught.value, "Training the BPE tokenizer took longer than 0.001 seconds, so "
                      "it was stopped. Train it on a shorter text or with a smaller vocabulary.")
    with pytest.raises(TokenizerError, match="vocabulary size must be a whole number"):
        train_tokenizer("bpe", "x y", 100, time_budget_s=10)  # refused at once, in this process
