"""Sessions a server keeps for the browsers that made them: coming back, and floods kept out.

A visitor's page holds a random secret, its *token* (``new_token``: 32 bytes from the OS,
kept in the browser's storage by the page). The server files each session under a digest of
its token (``token_digest``), never under the token itself, nor under the session hash the
page sends with every request: whoever learns a session hash (it appears in URLs and logs)
cannot use it to claim a model, and whoever reads the server's folders finds only digests.

* ``SessionRegistry`` maps tokens to sessions. A session whose page closed is *let go*: it
  stays ``grace_s`` seconds (``grace_seconds``, 10 minutes by default) for a reload or a
  phone coming back to find it, then ``expired`` hands it over to be freed.
* ``NewSessionLedger`` counts the new sessions each client address opens per minute: a
  script inventing session hashes (10,100 in 5 minutes, 350 KB each, took 3.3 GB) is refused.
* ``eviction_order`` says what goes when the server holds as many sessions as it may
  (``session_capacity``, sized to the machine's memory): empty sessions first, then those with
  work but no model, then models whose page has closed; never a model a page holds.

Nothing here imports Gradio; the server's side is ``playground.server.reattach``.

>>> registry, session = SessionRegistry(grace_s=600), ["a session"]
>>> token = new_token()
>>> registry.register(token, session)
>>> registry.find(token), registry.find(new_token())
(['a session'], None)
>>> registry.let_go(session, now=0.0)
True
>>> registry.expired(now=599.0), registry.expired(now=601.0)
([], [['a session']])
>>> registry.find(token) is None
True
"""

from __future__ import annotations

import collections
import hashlib
import re
import secrets
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playground.runtime import hosting
from playground.runtime.hosting import GRACE_S, MAX_SESSIONS, Hosting

ENTRY_BYTES = 2**20  # what one session costs the server before it makes anything (Gradio's
#   per-session copy of the page's config: 350 KB measured, about 1 MB on this page)
MEMORY_SHARE = 0.25  # of the memory free at start, what empty sessions may take at most
MIN_SESSIONS = 64  # ...and MAX_SESSIONS, Gradio's own default capacity, the upper bound
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)


def new_token() -> str:
    """A fresh secret for one browser: 32 random bytes, URL-safe base64 (43 characters).

    >>> len(new_token()), new_token() == new_token()
    (43, False)
    """
    return secrets.token_urlsafe(32)


def valid_token(token: Any) -> bool:
    """Whether ``token`` has the shape ``new_token`` gives (anything else is a new visitor).

    >>> valid_token(new_token()), valid_token("x" * 44), valid_token(None)
    (True, False, False)
    """
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None


def token_digest(token: str) -> str:
    """The name a token is filed under: its SHA-256, so the secret is never stored.

    >>> token_digest("A" * 43)[:16]
    '0f007385b6f9d4b7'
    """
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def grace_seconds(host: Hosting | None = None) -> float:
    """How long a closed page's session is kept (``Hosting.grace_s``, ``PLAYGROUND_GRACE_S``;
    0: freed at once).

    >>> grace_seconds(Hosting()), grace_seconds(Hosting(grace_s=30.0))
    (600.0, 30.0)
    """
    return (hosting.current() if host is None else host).grace_s


def new_sessions_per_minute(host: Hosting | None = None) -> int:
    """New sessions one client address may open a minute (``PLAYGROUND_NEW_SESSIONS_PER_MIN``;
    0: no limit)."""
    return (hosting.current() if host is None else host).new_sessions_per_min


def session_capacity(free_memory: int | None, host: Hosting | None = None) -> int:
    """How many sessions the server holds at most: ``PLAYGROUND_MAX_SESSIONS`` (0: Gradio's
    10,000), else as many empty ones as fit in a quarter of the memory free at start (between
    64 and 10,000).

    >>> session_capacity(16 * 2**30, Hosting()), session_capacity(None, Hosting()), session_capacity(0, Hosting(max_sessions=5))
    (4096, 10000, 5)
    """
    asked = (hosting.current() if host is None else host).max_sessions
    if asked is not None:
        return asked
    if free_memory is None:
        return MAX_SESSIONS
    return max(MIN_SESSIONS, min(MAX_SESSIONS, int(free_memory * MEMORY_SHARE) // ENTRY_BYTES))


@dataclass
class _Entry:
    session: Any
    digest: str
    closed_at: float | None = None  # None while a page holds it; else when it was let go


class SessionRegistry:
    """Tokens (by digest) -> sessions, live or let go; thread-safe.

    A session is filed under one token; filing it under another moves it. ``let_go`` starts
    its grace period, ``take_back`` ends it (a page holds it again), ``expired`` returns and
    forgets the sessions whose grace has passed.
    """

    def __init__(self, grace_s: float = GRACE_S):
        self.grace_s = grace_s
        self._lock = threading.Lock()
        self._by_digest: dict[str, _Entry] = {}
        self._by_session: dict[int, _Entry] = {}  # id(session) -> its entry

    def register(self, token: str, session: Any) -> None:
        digest = token_digest(token)
        with self._lock:
            self._drop(self._by_session.get(id(session)))
            self._drop(self._by_digest.get(digest))
            entry = _Entry(session, digest)
            self._by_digest[digest] = self._by_session[id(session)] = entry

    def find(self, token: str) -> Any | None:
        """The session filed under ``token`` (live or in its grace period), else None."""
        with self._lock:
            entry = self._by_digest.get(token_digest(token))
            return entry.session if entry is not None else None

    def digest_of(self, session: Any) -> str | None:
        with self._lock:
            entry = self._by_session.get(id(session))
            return entry.digest if entry is not None else None

    def let_go(self, session: Any, now: float | None = None) -> bool:
        """Start ``session``'s grace period; False when it is not filed here (free it now)."""
        with self._lock:
            entry = self._by_session.get(id(session))
            if entry is None:
                return False
            if entry.closed_at is None:
                entry.closed_at = time.monotonic() if now is None else now
            return True

    def take_back(self, session: Any) -> None:
        """A page holds ``session`` again: its grace period ends."""
        with self._lock:
            entry = self._by_session.get(id(session))
            if entry is not None:
                entry.closed_at = None

    def closed_since(self, session: Any) -> float | None:
        """When ``session`` was let go (None: a page holds it, or it is not filed here)."""
        with self._lock:
            entry = self._by_session.get(id(session))
            return entry.closed_at if entry is not None else None

    def expired(self, now: float | None = None) -> list[Any]:
        """The sessions whose grace period has passed, forgotten here (the caller frees them)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            gone = [e for e in self._by_digest.values()
                    if e.closed_at is not None and now - e.closed_at >= self.grace_s]
            for entry in gone:
                self._drop(entry)
        return [entry.session for entry in gone]

    def forget(self, session: Any) -> None:
        with self._lock:
            self._drop(self._by_session.get(id(session)))

    def sessions(self, *, let_go: bool | None = None) -> list[Any]:
        """Every session filed here; only those let go (True) or only those held (False)."""
        with self._lock:
            return [e.session for e in self._by_digest.values()
                    if let_go is None or (e.closed_at is not None) == let_go]

    def entries(self) -> list[tuple[Any, str, float | None]]:
        """(session, digest, closed_at) of every session filed here."""
        with self._lock:
            return [(e.session, e.digest, e.closed_at) for e in self._by_digest.values()]

    def _drop(self, entry: _Entry | None) -> None:
        if entry is not None:
            self._by_digest.pop(entry.digest, None)
            self._by_session.pop(id(entry.session), None)


class NewSessionLedger:
    """The distinct new sessions each client address opened in the last minute.

    A page's first requests come together (several events of one page load), so a session
    already counted is let through again; only a new one beyond ``limit`` is refused.

    >>> ledger = NewSessionLedger(limit=2)
    >>> [ledger.take("a", key, now=0.0) for key in ("s1", "s1", "s2", "s3")]
    [True, True, True, False]
    >>> ledger.take("b", "s3", now=0.0), ledger.take("a", "s3", now=61.0)
    (True, True)
    """

    def __init__(self, limit: int, window_s: float = 60.0):
        self.limit, self.window_s = limit, window_s
        self._lock = threading.Lock()
        self._seen: dict[str, collections.OrderedDict[str, float]] = {}  # address -> key -> time

    def take(self, address: str, key: str | None, now: float | None = None) -> bool:
        """Count session ``key`` (None: one no one can name again) for ``address``; whether
        it fits the address's minute."""
        if self.limit <= 0:
            return True
        now = time.monotonic() if now is None else now
        with self._lock:
            for name in list(self._seen):  # forget what is older than the window
                seen = self._seen[name]
                while seen and next(iter(seen.values())) <= now - self.window_s:
                    seen.popitem(last=False)
                if not seen:
                    del self._seen[name]
            seen = self._seen.setdefault(address, collections.OrderedDict())
            if key is not None and key in seen:
                return True
            if len(seen) >= self.limit:
                return False
            seen[key if key is not None else secrets.token_hex(8)] = now
            return True


@dataclass(frozen=True)
class Occupant:
    """One session the server holds, as eviction sees it.

    ``work``: it holds something a visitor made (a corpus, a tokenizer, runs); ``model``: a
    trained model; ``let_go``: its page has closed (it waits in its grace period);
    ``busy``: a job of it is under way (training, a queued event), so it never goes.
    """

    key: Any
    last_used: float
    work: bool = False
    model: bool = False
    let_go: bool = False
    busy: bool = False

    @property
    def rank(self) -> int | None:
        """0 empty, 1 work without a model, 2 a model whose page closed; None: never evicted
        (a model a page holds, or anything busy)."""
        if self.busy or (self.model and not self.let_go):
            return None
        if self.model:
            return 2
        return 1 if self.work else 0


def eviction_order(occupants: Iterable[Occupant], free: int) -> list[Any]:
    """The keys of the ``free`` occupants to evict first: lowest rank, then least recently
    used; fewer when too few may go.

    >>> held = [Occupant("model in use", 0.0, work=True, model=True),
    ...         Occupant("closed model", 1.0, work=True, model=True, let_go=True),
    ...         Occupant("corpus", 2.0, work=True), Occupant("empty new", 9.0),
    ...         Occupant("empty old", 3.0)]
    >>> eviction_order(held, 4)
    ['empty old', 'empty new', 'corpus', 'closed model']
    >>> eviction_order(held, 9)[-1]  # the model in use is never among them
    'closed model'
    """
    candidates = sorted((o for o in occupants if o.rank is not None),
                        key=lambda o: (o.rank, o.last_used))
    return [o.key for o in candidates[:max(0, free)]]


UNREAD_S = 30.0  # a page's messages may wait unread this long before its jobs are ended


class StreamWatch:
    """Which pages read their event stream: a page joins a job, then reads its results on a
    stream of its own (Gradio's ``/queue/data``). A client that joins a training run and never
    opens the stream makes the server keep every update it sends (about 250 MB for one run's
    plots, held after the client had gone). ``unread`` names the pages whose messages have
    waited ``UNREAD_S`` with no stream of theirs open, for the server to end their jobs and
    drop the messages.

    >>> watch = StreamWatch(unread_s=30)
    >>> watch.unread(["a", "b"], now=0.0), watch.opened("b")
    ([], None)
    >>> watch.unread(["a", "b"], now=31.0)  # b reads; a has waited 31 s with no stream
    ['a']
    >>> watch.closed("b", now=40.0), watch.unread(["b"], now=60.0), watch.unread(["b"], now=71.0)
    (None, [], ['b'])
    """

    def __init__(self, unread_s: float = UNREAD_S):
        self.unread_s = unread_s
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}  # session hash -> streams open now
        self._since: dict[str, float] = {}  # session hash -> when it was last seen unread

    def opened(self, key: str) -> None:
        with self._lock:
            self._open[key] = self._open.get(key, 0) + 1
            self._since.pop(key, None)

    def closed(self, key: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            left = self._open.get(key, 0) - 1
            if left > 0:
                self._open[key] = left
            else:
                self._open.pop(key, None)
                self._since[key] = now  # unread from now, if messages come

    def unread(self, waiting: Iterable[str], now: float | None = None) -> list[str]:
        """Of the pages with messages ``waiting``, those with no stream open for
        ``unread_s``; forgets pages with nothing waiting."""
        now = time.monotonic() if now is None else now
        waiting = set(waiting)
        with self._lock:
            for key in list(self._since):
                if key not in waiting:
                    del self._since[key]
            late = []
            for key in sorted(waiting):
                if self._open.get(key):
                    continue
                since = self._since.setdefault(key, now)
                if now - since >= self.unread_s:
                    late.append(key)
            return late


STREAMS = StreamWatch()
