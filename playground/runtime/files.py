"""Files written whole or not at all.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
>>> with atomic_write(path) as f:
...     _ = f.write(b"complete")
>>> path.read_bytes()
b'complete'
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterator

from playground.i18n import msg


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: int = 0o644) -> Iterator[BinaryIO]:
    """Write to a hidden temporary file beside ``path``, then rename it into place.

    The rename is atomic on one file system, so ``path`` is always either the old file or
    the complete new one. The temporary name (``.name.XXXX.tmp``) does not look like the
    real file, and it is removed if anything fails, Ctrl-C included.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points at them
        os.chmod(tmp, mode)  # mkstemp makes it owner-only; ours are ordinary files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX only)
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def human_bytes(n: float) -> str:
    """A size for people, in binary units as file managers show them.

    >>> human_bytes(2_500_000), human_bytes(3 * 2**30), human_bytes(512)
    ('2.4 MB', '3.0 GB', '512 bytes')
    """
    if n < 1024:
        return msg("{n} bytes", n=f"{n:,.0f}")
    for unit in ("KB", "MB", "GB"):
        n /= 1024
        if n < 1024:
            return f"{n:,.1f} {unit}"
    return f"{n / 1024:,.1f} TB"
