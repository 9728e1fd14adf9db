"""The server's disk: a budget per session and for the whole app, and bundles kept for returns.

Every saved model is a bundle (``checkpoint.save_bundle``), and a bundle of a 100M-parameter
run is over a gigabyte, so what one visitor may keep and what all of them may keep together
are bounded (``DiskBudget``, from the host's settings: ``PLAYGROUND_SESSION_DISK_MB``, 2 GB by
default, and ``PLAYGROUND_APP_DISK_MB``, 20 GB; 0 turns a budget off). ``check_room`` refuses
a save that would go past either before anything is written, saying what to do; nothing
saved before is touched. (``save_bundle`` itself refuses a bundle the free disk cannot hold.)

``ReturnStore`` keeps the bundles that a server stopping (SIGTERM, as a Space gets on every
push) saved for visitors who come back: one folder per visitor, named by the digest of the
visitor's token (``runtime.sessions.token_digest``), under the app's data folder
(``data_dir``), each kept ``keep_s`` seconds and then swept.

>>> budget = DiskBudget(session_bytes=100, app_bytes=1000)
>>> check_room(60, session_used=30, app_used=500, budget=budget)  # fits both
>>> check_room(60, session_used=50, app_used=500, budget=budget)
Traceback (most recent call last):
...
playground.config.ConfigError: This model's bundle (about 60 bytes) would take your saved files past this server's limit of 100 bytes per visitor, so it was not saved; everything saved before is kept. The model is still here for the Generate and Attention tabs. To save a model, train a smaller one (fewer layers or a smaller n_embd, under Advanced).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from playground.config import ConfigError
from playground.i18n import msg
from playground.runtime import hosting
from playground.runtime.files import atomic_write, human_bytes
from playground.runtime.hosting import APP_DISK_MB, SESSION_DISK_MB, Hosting

BYTES_PER_RECORD = 200  # one training record as JSON in a bundle (measured 120-180)
BUNDLE_OVERHEAD = 64 * 2**10  # configs, tokenizer, zip directory
BUNDLE_NAME = "bundle.zip"


@dataclass(frozen=True)
class DiskBudget:
    """Bytes a session's files and all the app's files may take (None: no limit)."""

    session_bytes: int | None = int(SESSION_DISK_MB * 2**20)
    app_bytes: int | None = int(APP_DISK_MB * 2**20)

    @classmethod
    def from_hosting(cls, host: Hosting | None = None) -> DiskBudget:
        """The host's budgets (``PLAYGROUND_SESSION_DISK_MB``, ``PLAYGROUND_APP_DISK_MB``).

        >>> DiskBudget.from_hosting(Hosting(session_disk_mb=1.0, app_disk_mb=None))
        DiskBudget(session_bytes=1048576, app_bytes=None)
        """
        host = hosting.current() if host is None else host
        return cls(_bytes(host.session_disk_mb), _bytes(host.app_disk_mb))


def _bytes(megabytes: float | None) -> int | None:
    return None if megabytes is None else int(megabytes * 2**20)


def folder_bytes(path: str | os.PathLike) -> int:
    """The bytes of every file under ``path`` (0 when it does not exist)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:  # removed meanwhile
                pass
    return total


def check_room(need: int, *, session_used: int, app_used: int, budget: DiskBudget,
               replaced: int = 0) -> None:
    """Refuse (``ConfigError``) writing ``need`` bytes that would take a session's files
    (``session_used`` now) or the app's (``app_used``) past ``budget``; ``replaced`` bytes
    go once the new file is written (the earlier bundle), so they do not count."""
    size = human_bytes(need)
    if budget.session_bytes is not None and session_used - replaced + need > budget.session_bytes:
        raise ConfigError(msg(
            "This model's bundle (about {size}) would take your saved files past this server's "
            "limit of {limit} per visitor, so it was not saved; everything saved before is "
            "kept. The model is still here for the Generate and Attention tabs. To save a "
            "model, train a smaller one (fewer layers or a smaller n_embd, under Advanced).",
            size=size, limit=human_bytes(budget.session_bytes)))
    if budget.app_bytes is not None and app_used - replaced + need > budget.app_bytes:
        raise ConfigError(msg(
            "This server's space for saved models ({limit} for all visitors) is nearly full, so "
            "this model's bundle (about {size}) was not saved; everything saved before is kept. "
            "The model is still here for the Generate and Attention tabs; try again in a while "
            "(saved models of closed pages are removed), or train a smaller model.",
            size=size, limit=human_bytes(budget.app_bytes)))


def tensor_bytes(obj: Any) -> int:
    """The bytes of every tensor in ``obj`` (nested dicts, lists and tuples), each once.

    >>> tensor_bytes({"w": torch.zeros(4), "state": [torch.zeros(2, dtype=torch.float64)]})
    32
    """
    seen: set[tuple[int, int]] = set()
    total = 0
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            key = (item.data_ptr(), item.numel())  # a tensor shared (a tied matrix) counts once
            if item.numel() and key not in seen:
                seen.add(key)
                total += item.numel() * item.element_size()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return total


def bundle_estimate(model: torch.nn.Module, history_len: int,
                    trainer_state: dict[str, Any] | None = None) -> int:
    """About how many bytes ``save_bundle`` writes for this model (a little over, never far
    under): its weights, the trainer's state (the optimizer's moments: twice the weights
    for AdamW), the history as JSON (twice when the state holds it too)."""
    weights = tensor_bytes(dict(model.state_dict()))
    state = tensor_bytes(trainer_state) if trainer_state is not None else 0
    copies = 2 if trainer_state is not None and "history" in trainer_state else 1
    return weights + state + copies * history_len * BYTES_PER_RECORD + BUNDLE_OVERHEAD


def data_dir(host: Hosting | None = None) -> Path:
    """The app's own lasting folder: ``PLAYGROUND_DATA_DIR``; else ``/data/playground`` where
    ``/data`` can be written (a Space's persistent storage); else ``~/.cache/transformer-playground``."""
    host = hosting.current() if host is None else host
    if host.data_dir is not None:
        return host.data_dir
    if os.path.isdir("/data") and os.access("/data", os.W_OK):
        return Path("/data/playground")
    return Path.home() / ".cache" / "transformer-playground"


def returns_dir(host: Hosting | None = None) -> Path:
    """Where bundles kept for returning visitors live: ``data_dir()/returning``."""
    return data_dir(host) / "returning"


class ReturnStore:
    """Bundles kept for visitors coming back after a restart: ``root/<digest>/bundle.zip``.

    Times are the files' own (wall clock), so they mean the same after a restart.

    >>> import tempfile
    >>> store = ReturnStore(Path(tempfile.mkdtemp()), keep_s=600)
    >>> source = Path(tempfile.mkdtemp()) / "model.zip"
    >>> _ = source.write_bytes(b"a bundle")
    >>> kept = store.put("ab" * 32, source)
    >>> store.find("ab" * 32) == kept, store.find("cd" * 32)
    (True, None)
    >>> store.sweep(now=time.time() + 601), store.find("ab" * 32)
    (1, None)
    """

    def __init__(self, root: Path, keep_s: float):
        self.root, self.keep_s = Path(root), keep_s

    def path(self, digest: str) -> Path:
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise ValueError("not a token digest")  # a digest is all a folder name may be
        return self.root / digest / BUNDLE_NAME

    def put(self, digest: str, bundle: str | os.PathLike) -> Path:
        """Copy ``bundle`` in for ``digest`` (atomically: the old copy or the whole new one)."""
        target = self.path(digest)
        with open(bundle, "rb") as source, atomic_write(target) as out:
            shutil.copyfileobj(source, out, 2**20)
        return target

    def find(self, digest: str, now: float | None = None) -> Path | None:
        """The bundle kept for ``digest``, if there is one younger than ``keep_s``."""
        target = self.path(digest)
        try:
            age = (time.time() if now is None else now) - target.stat().st_mtime
        except OSError:
            return None
        return target if age < self.keep_s else None

    def discard(self, digest: str) -> None:
        shutil.rmtree(self.path(digest).parent, ignore_errors=True)

    def sweep(self, now: float | None = None) -> int:
        """Remove what is older than ``keep_s`` (and stray files); how many folders went."""
        now = time.time() if now is None else now
        removed = 0
        if not self.root.is_dir():
            return 0
        for folder in self.root.iterdir():
            try:
                fresh = now - (folder / BUNDLE_NAME).stat().st_mtime < self.keep_s
            except OSError:
                fresh = False
            if not fresh:
                if folder.is_dir():
                    shutil.rmtree(folder, ignore_errors=True)
                else:
                    folder.unlink(missing_ok=True)
                removed += 1
        return removed

    def used_bytes(self) -> int:
        return folder_bytes(self.root)
