"""Files written whole or not at all, and which uploaded files a page may read.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
>>> with atomic_write(path) as f:
...     _ = f.write(b"complete")
>>> path.read_bytes()
b'complete'
"""

from __future__ import annotations

import collections
import contextlib
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

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


class UploadRefused(ValueError):
    """A file a call named that the page calling may not read (``Uploads.take``)."""


class Uploads:
    """The files uploaded to the web server, and the proof that a path sent with a call names a
    file its caller uploaded.

    The web server keeps every visitor's uploads in one folder and lets a call name any file
    in it; the upload itself names no page. So the server notes each upload's path with the
    client address it came from (``arrived``), and a page's handler takes a path (``take``)
    only if that page took it before, or if it came from the page's own address and no page
    has taken it yet. Paths are compared resolved (``os.path.realpath``): a relative path, a
    symbolic link or ``..`` cannot name another page's file. Per address at most
    ``per_address`` uploads wait, each for at most ``wait_s`` (the next upload forgets older).

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> mine = os.path.join(folder, "a", "mine.txt")
    >>> uploads, held_a, held_b = Uploads(), set(), set()
    >>> uploads.arrived([mine], "198.51.100.1", now=0.0)
    >>> uploads.take(mine, "198.51.100.1", held_a, now=1.0) == os.path.realpath(mine)
    True
    >>> uploads.take(mine, "198.51.100.1", held_a, now=2.0) == os.path.realpath(mine)  # again
    True
    >>> uploads.take(mine, "198.51.100.1", held_b, now=2.0)  # another page, even on one network
    Traceback (most recent call last):
    ...
    playground.runtime.files.UploadRefused: That file was not uploaded from this page, so it was not opened: a page may only use the files it uploaded itself. Upload the file again here.
    """

    def __init__(self, wait_s: float = 3600.0, per_address: int = 256):
        self.wait_s, self.per_address = wait_s, per_address
        self._lock = threading.Lock()
        # client address -> (time, resolved path) of its uploads no page has taken, oldest first
        self._waiting: dict[str, collections.deque[tuple[float, str]]] = {}

    def arrived(self, paths: Iterable[str], address: str, now: float | None = None) -> None:
        """Note ``paths``, just uploaded from ``address``, as waiting for a page to take them."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._forget_old(now)
            waiting = self._waiting.setdefault(address, collections.deque(maxlen=self.per_address))
            waiting.extend((now, os.path.realpath(path)) for path in paths)

    def take(self, path: str | os.PathLike, address: str, held: set[str],
             now: float | None = None) -> str:
        """The resolved ``path`` if the page holding ``held`` (the resolved paths it took
        before, added to here) may read it, calling from ``address``; else ``UploadRefused``.
        An upload taken by one page is never another's, whatever address that one calls from."""
        now = time.monotonic() if now is None else now
        real = os.path.realpath(path)
        with self._lock:
            self._forget_old(now)
            waiting = self._waiting.get(address, ())
            ticket = next((entry for entry in waiting if entry[1] == real), None)
            if ticket is None and real not in held:
                raise UploadRefused(msg(
                    "That file was not uploaded from this page, so it was not opened: a page may "
                    "only use the files it uploaded itself. Upload the file again here."))
            if ticket is not None:  # one upload, one page: the next page must upload its own
                waiting.remove(ticket)
            held.add(real)
        return real

    def _forget_old(self, now: float) -> None:
        for address in list(self._waiting):
            waiting = self._waiting[address]
            while waiting and waiting[0][0] <= now - self.wait_s:
                waiting.popleft()
            if not waiting:
                del self._waiting[address]


UPLOADS = Uploads()  # the web server's, fed by its upload route (``server.guard``)
