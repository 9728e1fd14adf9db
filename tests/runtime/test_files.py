"""atomic_write: the file is the old one or the whole new one, never a part."""

import pytest

from playground.export.publish import write_standalone_script
from playground.runtime.files import atomic_write
from playground.tokenizer import load_tokenizer, train_tokenizer


def test_an_interrupted_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    path.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(path) as f:
            f.write(b"half of the new")
            raise KeyboardInterrupt
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_tokenizer_and_script_files_go_through_atomic_write(tmp_path, monkeypatch):
    tok = train_tokenizer("char", "hello world")
    path = tok.save(tmp_path / "tok.json")
    assert load_tokenizer(path).encode("hello") == tok.encode("hello")
    assert oct(path.stat().st_mode & 0o777) == "0o644"

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr("playground.runtime.files.os.fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        tok.save(tmp_path / "tok2.json")
    with pytest.raises(OSError, match="disk full"):
        write_standalone_script(tmp_path / "export")
    names = {p.name for p in tmp_path.rglob("*")}
    assert "tok2.json" not in names and "generate_standalone.py" not in names
    assert not any(n.endswith(".tmp") for n in names)
