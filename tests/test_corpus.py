"""Corpus loading: Tiny Shakespeare, uploaded files, pasted text, statistics and the split."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before datasets is imported: never the network

import pytest

from playground import corpus as corpus_mod
from playground.corpus import (
    DEFAULT_MAX_BYTES,
    Corpus,
    CorpusError,
    CorpusStats,
    from_text,
    load_files,
    load_tiny_shakespeare,
)

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
