"""Corpus loading: Tiny Shakespeare, uploaded files, pasted text, statistics and the split."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before datasets is imported: never the network

import pytest

from playground import corpus as corpus_mod
from playground.i18n import localize
from playground.corpus import (
    DEFAULT_MAX_BYTES,
    Corpus,
    CorpusError,
    CorpusStats,
    from_text,
    load_files,
    load_tiny_shakespeare,
)

from checks import assert_translated

TINY_SHAKESPEARE_CHARS = 1_115_394

SCRIPTS = {
    "ascii": "Hello, world!\nThe quick brown fox.\n",
    "chinese": "你好，世界。\n天地玄黄，宇宙洪荒。\n",
    "cyrillic": "Привет, мир!\nСъешь же ещё этих мягких французских булок.\n",
    "emoji": "I ❤️ 🐍 and 👩‍👩‍👧 families 🎉\n",
}


def write(path, data: bytes):
    path.write_bytes(data)
    return path


# --- Tiny Shakespeare ---------------------------------------------------------------------

def test_bundled_tiny_shakespeare_is_the_exact_text():
    corpus = load_tiny_shakespeare()
    assert corpus.source == "bundled"
    assert len(corpus.text) == TINY_SHAKESPEARE_CHARS
    assert corpus.text.startswith("First Citizen:\nBefore we proceed any further, hear me speak.")
    assert corpus.text == corpus_mod.BUNDLED_PATH.read_bytes().decode("utf-8")


def test_bundled_load_writes_no_cache_files():
    import datasets
    from pathlib import Path

    cache = Path(datasets.config.HF_DATASETS_CACHE)

    def files():
        return sorted(cache.rglob("*")) if cache.exists() else []

    before = files()
    load_tiny_shakespeare("bundled")
    assert files() == before


def test_hub_source_fails_fast_in_offline_mode(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CorpusError, match="bundled copy is available"):
        load_tiny_shakespeare("hub")


def test_hub_source_unreachable_gets_clear_error_without_calling_datasets(monkeypatch):
    import datasets
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(corpus_mod, "_hub_reachable", lambda: False)

    def must_not_run(*args, **kwargs):
        raise AssertionError("load_dataset must not run when the Hub is unreachable")

    monkeypatch.setattr(datasets, "load_dataset", must_not_run)
    with pytest.raises(CorpusError, match="unreachable.*bundled copy"):
        load_tiny_shakespeare("hub")


def test_hub_probe_reports_a_closed_port_as_unreachable(monkeypatch):
    from huggingface_hub import constants

    # Port 9 on this machine: a local connection refusal, no network involved.
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    assert corpus_mod._hub_reachable(timeout=2.0) is False


def test_hub_source_joins_the_three_splits_in_order(monkeypatch):
    import datasets
    from huggingface_hub import constants

    text = load_tiny_shakespeare().text
    parts = {"train": text[:1_003_854], "validation": text[1_003_854:1_059_624],
             "test": text[1_059_624:]}
    calls = []

    def fake_load_dataset(name, revision=None):
        calls.append((name, revision))
        return {split: datasets.Dataset.from_dict({"text": [t]}) for split, t in parts.items()}

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(corpus_mod, "_hub_reachable", lambda: True)
    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    corpus = load_tiny_shakespeare("hub")
    assert calls == [("karpathy/tiny_shakespeare", "refs/convert/parquet")]
    assert corpus.source == "hub"
    assert corpus.text == text
    assert corpus.split() == load_tiny_shakespeare().split()


def test_unknown_tiny_shakespeare_source():
    with pytest.raises(CorpusError, match="'bundled' or 'hub'"):
        load_tiny_shakespeare("web")


# --- statistics, preview, split -----------------------------------------------------------

def test_stats_of_a_small_known_text():
    corpus = Corpus("to be or\nnot to be\n", name="t", source="paste")
    # distinct: "t", "o", " ", "b", "e", "r", "\n", "n"
    assert corpus.stats() == CorpusStats(characters=19, lines=2, words=6, distinct_chars=8)


def test_stats_count_a_last_line_without_newline():
    assert Corpus("a\nb", "t", "paste").stats().lines == 2
    assert Corpus("a\nb\n", "t", "paste").stats().lines == 2


def test_preview():
    corpus = Corpus("abcdef", "t", "paste")
    assert corpus.preview(3) == "abc…"
    assert corpus.preview(6) == "abcdef"
    assert corpus.preview() == "abcdef"
    with pytest.raises(CorpusError):
        corpus.preview(-1)


def test_split_is_contiguous_90_10_as_nanogpt():
    text = load_tiny_shakespeare().text
    train, val = load_tiny_shakespeare().split()
    n = len(text)
    assert len(train) == int(n * 0.9) == 1_003_854
    assert len(val) == 111_540
    assert train == text[:1_003_854] and val == text[1_003_854:]


def test_split_fraction_is_configurable():
    assert Corpus("0123456789", "d", "paste").split(0.3) == ("0123456", "789")
    assert Corpus("0123456789", "d", "paste").split(0.5) == ("01234", "56789")


@pytest.mark.parametrize("fraction", [0, 1, -0.1, 1.5, True, "0.1", float("nan")])
def test_split_rejects_bad_fractions(fraction):
    with pytest.raises(CorpusError, match="between 0 and 1"):
        Corpus("0123456789", "d", "paste").split(fraction)


def test_split_refuses_a_text_too_short_for_both_parts():
    with pytest.raises(CorpusError, match="'tiny' has only 10 characters: too short"):
        Corpus("0123456789", "tiny", "paste").split(0.1)  # 9 / 1 characters


# --- uploaded files -----------------------------------------------------------------------

@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_files_in_any_script_round_trip_exactly(tmp_path, script):
    path = write(tmp_path / f"{script}.txt", SCRIPTS[script].encode("utf-8"))
    corpus = load_files(path)
    assert corpus.text == SCRIPTS[script]
    assert corpus.name == f"{script}.txt"
    assert corpus.source == "upload"


def test_bom_is_stripped(tmp_path):
    path = write(tmp_path / "bom.txt", b"\xef\xbb\xbfHello")
    assert load_files([path]).text == "Hello"


def test_crlf_and_lone_cr_become_lf(tmp_path):
    path = write(tmp_path / "win.md", b"one\r\ntwo\rthree\n\r\nfour")
    assert load_files(path).text == "one\ntwo\nthree\n\nfour"


def test_multiple_files_join_with_one_blank_line(tmp_path):
    a = write(tmp_path / "a.txt", b"first\n")
    b = write(tmp_path / "b.md", b"second")
    c = write(tmp_path / "c.txt", "третий\n".encode())
    corpus = load_files([a, b, str(c)])
    assert corpus.text == "first\n\nsecond\n\nтретий\n"
    assert corpus.name == "a.txt + b.md + c.txt"


def test_extension_check_ignores_case(tmp_path):
    assert load_files(write(tmp_path / "SHOUT.TXT", b"hi")).text == "hi"


BAD_FILES = {
    "binary.txt": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
    "latin1.txt": ("café au lait".encode("latin-1"), "not valid UTF-8.*0xE9"),
    "utf16.txt": ("hello".encode("utf-16"), "UTF-16"),
    "empty.txt": (b"", "empty"),
    "blank.md": (b" \n\t\r\n  ", "empty"),
    "report.pdf": (b"%PDF-1.4 text", "not a .txt or .md file"),
    "notes": (b"no extension", "not a .txt or .md file"),
}


@pytest.mark.parametrize("filename", sorted(BAD_FILES))
def test_bad_file_gets_an_error_naming_it(tmp_path, filename):
    data, reason = BAD_FILES[filename]
    good = write(tmp_path / "good.txt", b"fine text")
    bad = write(tmp_path / filename, data)
    with pytest.raises(CorpusError, match=reason) as err:
        load_files([good, bad])
    message = str(err.value)
    assert f"'{filename}'" in message
    assert str(tmp_path) not in message  # base name only, never the server path


def test_missing_file_gets_an_error_naming_it(tmp_path):
    with pytest.raises(CorpusError, match="'gone.txt' could not be opened"):
        load_files(tmp_path / "gone.txt")


def test_no_files():
    with pytest.raises(CorpusError, match="No file"):
        load_files([])


def test_file_over_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = write(tmp_path / "big.txt", b"x" * 100)

    def no_reading(*args, **kwargs):
        raise AssertionError("the file must not be opened")

    monkeypatch.setattr(corpus_mod, "open", no_reading, raising=False)
    with pytest.raises(CorpusError) as err:
        load_files(path, max_bytes=99)
    assert str(err.value) == "'big.txt' is 100 bytes, over the 99 bytes limit. Upload a smaller file."


def test_file_at_the_cap_is_accepted(tmp_path):
    assert len(load_files(write(tmp_path / "ok.txt", b"x" * 99), max_bytes=99).text) == 99


def test_files_together_over_the_cap_are_refused(tmp_path):
    a = write(tmp_path / "a.txt", b"x" * 60)
    b = write(tmp_path / "b.txt", b"y" * 60)
    with pytest.raises(CorpusError, match="Together the files a.txt, b.txt are 120 bytes"):
        load_files([a, b], max_bytes=100)


def test_size_message_uses_readable_units(tmp_path):
    path = write(tmp_path / "mid.txt", b"x" * 3 * 1024 * 1024)
    with pytest.raises(CorpusError, match=r"'mid.txt' is 3.0 MB, over the 2.0 MB limit"):
        load_files(path, max_bytes=2 * 1024 * 1024)
    assert DEFAULT_MAX_BYTES == 50 * 1024 * 1024


@pytest.mark.parametrize("max_bytes", [0, -5, 1.5, True])
def test_bad_size_cap(tmp_path, max_bytes):
    with pytest.raises(CorpusError, match="size limit"):
        load_files(write(tmp_path / "a.txt", b"a"), max_bytes=max_bytes)


# --- pasted text --------------------------------------------------------------------------

@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_pasted_text_in_any_script_round_trips_exactly(script):
    corpus = from_text(SCRIPTS[script])
    assert corpus.text == SCRIPTS[script]
    assert (corpus.name, corpus.source) == ("pasted text", "paste")


def test_pasted_text_normalises_newlines_and_bom():
    assert from_text("\ufeffa\r\nb\rc").text == "a\nb\nc"


def test_pasted_text_cap_counts_utf8_bytes():
    assert from_text("你好", max_bytes=6).text == "你好"
    with pytest.raises(CorpusError, match="is 6 bytes, over the 5 bytes limit"):
        from_text("你好", max_bytes=5)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"), ("  \n\t ", "empty"), ("a\x00b", "NUL"), ("bad \ud800 surrogate", "surrogate"),
    (b"bytes", "must be a string"), (None, "must be a string"),
])
def test_bad_pasted_text(text, reason):
    with pytest.raises(CorpusError, match=reason) as err:
        from_text(text, name="my notes")
    assert "my notes" in str(err.value)


# --- the page's language ------------------------------------------------------------------

def _write(path, data: bytes):
    path.write_bytes(data)
    return path


def _hub_down(monkeypatch, reachable: bool) -> None:
    monkeypatch.setattr(corpus_mod, "_hub_offline", lambda: False)
    monkeypatch.setattr(corpus_mod, "_hub_reachable", lambda: reachable)
    monkeypatch.setattr(corpus_mod, "_hub_host", lambda: ("hub.example", 443))


def _hub_fails(monkeypatch):
    import datasets

    def refuse(*args, **kwargs):
        raise ConnectionError("connection refused")

    _hub_down(monkeypatch, reachable=True)
    monkeypatch.setattr(datasets, "load_dataset", refuse)
    return load_tiny_shakespeare("hub")


def _hub_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return load_tiny_shakespeare("hub")


def _hub_unreachable(monkeypatch):
    _hub_down(monkeypatch, reachable=False)
    return load_tiny_shakespeare("hub")


def _bundled_missing(monkeypatch, tmp_path):
    monkeypatch.setattr(corpus_mod, "BUNDLED_PATH", tmp_path / "gone.txt")
    return load_tiny_shakespeare("bundled")


CORPUS_ERRORS = [
    (lambda tmp, mp: Corpus("abc", "x", "paste").preview(-1),
     "The preview length must be a whole number ≥ 0, got -1.", ()),
    (lambda tmp, mp: Corpus("abcdef", "x", "paste").split(1.5),
     "The validation fraction must be a number between 0 and 1 (for example 0.1 for 10%), got 1.5.", ()),
    (lambda tmp, mp: Corpus("abc", "tiny", "paste").split(0.5),
     "'tiny' has only 3 characters: too short to keep at least 2 characters each for training "
     "and validation with a validation fraction of 0.5. Use a longer text.", ("tiny",)),
    (lambda tmp, mp: load_tiny_shakespeare("web"),
     "Unknown source 'web' for Tiny Shakespeare: use 'bundled' or 'hub'.", ("'web'", "'bundled'")),
    (lambda tmp, mp: _bundled_missing(mp, tmp),
     "The bundled copy of Tiny Shakespeare is missing from the package (gone.txt): reinstall "
     "the package.", ("gone.txt",)),
    (lambda tmp, mp: _hub_offline(mp),
     "The Hugging Face Hub is switched off here (HF_HUB_OFFLINE is set), so Tiny Shakespeare "
     "cannot be downloaded. The bundled copy is available: choose 'bundled'.",
     ("HF_HUB_OFFLINE", "'bundled'")),
    (lambda tmp, mp: _hub_unreachable(mp),
     "The Hugging Face Hub is unreachable (no network connection to hub.example). The bundled "
     "copy of Tiny Shakespeare is available: choose 'bundled'.", ("hub.example",)),
    (lambda tmp, mp: _hub_fails(mp),
     "Could not load karpathy/tiny_shakespeare from the Hugging Face Hub (ConnectionError: "
     "connection refused). The bundled copy of Tiny Shakespeare is available: choose 'bundled'.",
     ("karpathy/tiny_shakespeare", "ConnectionError: connection refused")),
    (lambda tmp, mp: load_files([]),
     "No file was given: upload one or more .txt or .md files.", (".txt", ".md")),
    (lambda tmp, mp: load_files([_write(tmp / "a.txt", b"hello\n"), _write(tmp / "b.txt", b"world\n")],
                                max_bytes=10),
     "Together the files a.txt, b.txt are 12 bytes, over the 10 bytes limit. Upload fewer or "
     "smaller files.", ("a.txt, b.txt",)),
    (lambda tmp, mp: from_text(123),
     "The pasted text must be a string of text, got int.", ("粘贴的文本", "int")),
    (lambda tmp, mp: from_text("ab\ud800"),
     "The pasted text contains an invalid character at position 2 (a lone surrogate): paste it "
     "again from the original source.", ("粘贴的文本",)),
    (lambda tmp, mp: from_text("hello", max_bytes=3),
     "The pasted text is 5 bytes, over the 3 bytes limit. Use a shorter text.", ("5 字节", "3 字节")),
    (lambda tmp, mp: from_text("a\x00b", name="notes"),
     "The notes contains NUL characters, so it is not plain text.", ("notes", "NUL")),
    (lambda tmp, mp: from_text(" \n"),
     "The pasted text is empty (or only whitespace): give some text to train on.", ("粘贴的文本",)),
    (lambda tmp, mp: from_text("a", max_bytes=0),
     "The size limit must be a positive number of bytes, got 0.", ()),
    (lambda tmp, mp: load_files(_write(tmp / "a.pdf", b"%PDF")),
     "'a.pdf' is not a .txt or .md file: upload plain text saved as .txt or .md.", ("a.pdf",)),
    (lambda tmp, mp: load_files(tmp / "missing.txt"),
     "'missing.txt' could not be opened: upload it again.", ("missing.txt",)),
    (lambda tmp, mp: load_files(_write(tmp / "big.txt", b"x" * 2000), max_bytes=1000),
     "'big.txt' is 2.0 KB, over the 1,000 bytes limit. Upload a smaller file.", ("big.txt", "KB")),
    (lambda tmp, mp: corpus_mod._read_text_file(_write(tmp / "grew.txt", b"hello"), 3),
     "'grew.txt' is over the 3 bytes limit.", ("grew.txt",)),
    (lambda tmp, mp: load_files(_write(tmp / "u16.txt", "hi".encode("utf-16"))),
     "'u16.txt' is saved as UTF-16: save it as UTF-8 text and upload it again.", ("u16.txt",)),
    (lambda tmp, mp: load_files(_write(tmp / "bin.txt", b"ab\x00cd")),
     "'bin.txt' contains NUL bytes, so it looks like a binary file, not text. Upload a "
     "plain-text .txt or .md file.", ("bin.txt",)),
    (lambda tmp, mp: load_files(_write(tmp / "latin.txt", b"ab\xffcd")),
     "'latin.txt' is not valid UTF-8 text (byte 0xFF at position 2). Save it as UTF-8 and upload "
     "it again.", ("latin.txt", "0xFF")),
    (lambda tmp, mp: load_files(_write(tmp / "empty.txt", b" \n")),
     "'empty.txt' is empty (or only whitespace): upload a file with text.", ("empty.txt",)),
]


@pytest.mark.parametrize("make, english, names", CORPUS_ERRORS,
                         ids=[case[1][:40] for case in CORPUS_ERRORS])
def test_corpus_errors_read_the_same_in_english_and_translate(make, english, names, tmp_path,
                                                               monkeypatch):
    with pytest.raises(CorpusError) as caught:
        make(tmp_path, monkeypatch)
    assert_translated(caught.value, english, names)


def test_pasted_text_is_named_in_the_page_language():
    corpus = from_text("hello")
    assert corpus.name == "pasted text"
    assert localize(corpus.name, "zh-CN") == "粘贴的文本"
