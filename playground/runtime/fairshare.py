"""A fair share of one machine among many visitors' jobs: turns taken in order (round robin),
network by network.

On a shared Space twelve visitors may press Start at the same moment. Running their runs one
after another makes the last one wait for eleven whole runs; running all at once makes each
slower and the memory peak twelve times one run. So one ``FairShare`` holds ``slots`` turns
(one per core group that may compute at once, usually 1) and every job computes only while it
holds a turn:

* a run (``take_turns``) holds its turn for a slice of about ``slice_s`` seconds of its items
  (training steps, evaluation batches), then, if anyone is waiting, goes to the back of the
  line; with nobody waiting it keeps computing without a hand-over;
* a short job (generation, the attention map, an export: ``turn`` or ``take_turns`` with
  ``priority=True``) joins the line ahead of the runs, so it is served between two slices,
  and keeps its turn for up to ``priority_slice_s`` (a new run is such a job until its first
  step: it gets there in one go);
* turns go round the *networks* first (the client address each job comes from, as
  ``hosting.client_address`` reads it; locally, where none is given, each page is one): the
  next turn goes to the network that computed longest ago, and a network's own jobs share its
  turns in the order they asked. One network's sixteen runs get half the machine when one
  other visitor trains, not sixteen seventeenths, and that visitor's first turn comes after
  one of theirs, not after all of them (issue 27);
* a turn is held only while its job computes or for a moment after: a holder that has not come
  back ``idle_s`` after handing out an item (its caller is busy elsewhere, or left) loses the
  turn to the next in line, so nobody can hold the machine by not asking for more. A job
  ahead of the runs gets ``priority_idle_s``: its caller sends each item to a page and
  comes back through the server's busy event loop (measured in a class of twelve: new runs
  lost their turn inside their first evaluation, and the first steps all came near the end).

Throughput stays that of one job at a time; what changes is who waits for whom: with twelve
runs each advances every ``12 × slice_s`` seconds, and a visitor's first step comes within a few
slices of pressing Start. Nothing here knows about Gradio: the page's handlers pass their
session's key as the ``owner`` and their client's address as the ``network``.

>>> share = FairShare(slots=1, slice_s=0.0, idle_s=0.0)  # hand over after every item
>>> a = share.take_turns(iter("abc"), owner="A")
>>> b = share.take_turns(iter("xyz"), owner="B")
>>> [next(a), next(b), next(a), next(b), next(a), next(b)]
['a', 'x', 'b', 'y', 'c', 'z']
>>> share.stats()  # B computed last and keeps its turn until someone else asks
{'holding': 1, 'waiting': 0, 'runs': 2}
>>> a.close(); b.close(); share.stats()
{'holding': 0, 'waiting': 0, 'runs': 0}
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import time
from collections.abc import Generator, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

Item = TypeVar("Item")

SLICE_S = 0.25  # a run's turn: long enough that a hand-over (~0.1 ms) costs nothing
# a job ahead of the runs keeps its turn this long: a new run reaches its first step (the
# default run's evaluation at step 0 takes about 0.7 s) in one go, so a class that pressed
# Start together sees its first steps one after another, not all of them at the end
PRIORITY_SLICE_S = 2.0
IDLE_S = 0.01  # a holder gone this long after its last item loses its turn to the next in line
# (a run's loop asks for its next step at once, except when it sends the page an update)
PRIORITY_IDLE_S = 0.5  # ...and a job ahead of the runs (a new run before its first step)
REPORT_S = 0.5  # a waiting run reports where it stands this often (``Waiting``)
SERVED_KEPT = 1024  # networks whose last turn is remembered before those not in line are forgotten


@dataclass(frozen=True)
class Waiting:
    """What ``take_turns(report=True)`` yields while its job waits for a turn: ``ahead``
    jobs come before it, ``runs`` runs share the machine (this one included)."""

    ahead: int
    runs: int


class _Ticket:
    """One job's place in the line, then its turn."""

    __slots__ = ("owner", "network", "priority", "granted", "idle_since", "event")

    def __init__(self, owner: Hashable, priority: bool, network: Hashable = None) -> None:
        self.owner, self.priority = owner, priority
        # whose turn this counts as: the network, else the owner, else this job alone
        self.network = network if network is not None else owner if owner is not None else self
        self.granted = False
        self.idle_since: float | None = None  # set while the holder's caller has the item
        self.event = threading.Event()  # set when the turn is granted: wakes this job alone


class FairShare:
    """``slots`` turns, handed out in order: short jobs first, then runs; within each, network
    by network (the one served longest ago first), and a network's jobs in the order they
    joined the line (see the module's docstring)."""

    def __init__(self, slots: int = 1, slice_s: float = SLICE_S, idle_s: float = IDLE_S,
                 priority_slice_s: float = PRIORITY_SLICE_S,
                 priority_idle_s: float = PRIORITY_IDLE_S) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, not {slots}")
        self.priority_slice_s = max(priority_slice_s, slice_s)
        self.priority_idle_s = max(priority_idle_s, idle_s)
        self.slots, self.slice_s, self.idle_s = slots, slice_s, idle_s
        self._lock = threading.Lock()
        self._line: list[_Ticket] = []
        self._holders: list[_Ticket] = []
        self._runs: dict[int, Hashable] = {}  # id of each take_turns in progress -> its owner
        self._memory: dict[int, int] = {}  # bytes each run under way may still need
        self._granted = 0  # turns handed out so far...
        self._served: dict[Hashable, int] = {}  # ...and the count when each network last got one
        self._local = threading.local()  # .depth: turns this thread holds (nested jobs pass)

    # the line (every method here is called with the lock held) -------------------------------

    def _join(self, owner: Hashable, priority: bool, network: Hashable = None) -> _Ticket:
        ticket = _Ticket(owner, priority, network)
        self._line.append(ticket)  # (``_order`` says when its turn comes)
        return ticket

    def _order(self) -> list[_Ticket]:
        """The line in the order its turns come: short jobs, then runs; within each, in rounds
        (every network's first job, then every network's second...), a round's networks by
        when they last got a turn (never first), a network's jobs in the order they joined.

        >>> share = FairShare()
        >>> share._served = {"busy": 2, "quiet": 1}
        >>> for owner, network in [("a1", "busy"), ("a2", "busy"), ("b", "quiet"), ("c", "new")]:
        ...     _ = share._join(owner, False, network)
        >>> [t.owner for t in share._order()]
        ['c', 'b', 'a1', 'a2']
        """
        rounds: dict[tuple[bool, Hashable], int] = {}
        keyed = []
        for position, ticket in enumerate(self._line):
            group = (ticket.priority, ticket.network)
            rounds[group] = rounds.get(group, -1) + 1
            keyed.append(((not ticket.priority, rounds[group],
                           self._served.get(ticket.network, -1), position), ticket))
        return [ticket for _, ticket in sorted(keyed, key=lambda pair: pair[0])]

    def _grant(self) -> None:
        """Hand free turns (and the turns of holders idle too long) to the head of the line."""
        now = time.monotonic()
        for holder in list(self._holders):
            idle_s = self.priority_idle_s if holder.priority else self.idle_s
            if (self._line and holder.idle_since is not None
                    and now - holder.idle_since >= idle_s):
                self._holders.remove(holder)
                holder.granted = False
        while self._line and len(self._holders) < self.slots:
            ticket = self._order()[0]
            self._line.remove(ticket)
            ticket.granted, ticket.idle_since = True, None
            self._holders.append(ticket)
            self._granted += 1
            self._served[ticket.network] = self._granted
            ticket.event.set()
        if len(self._served) > SERVED_KEPT:  # forget the networks gone from the line longest
            here = {t.network for t in self._line + self._holders}
            self._served = {n: at for n, at in self._served.items() if n in here}

    def _wait(self, ticket: _Ticket, timeout: float | None) -> bool:
        """Wait until ``ticket`` holds a turn, at most ``timeout`` seconds (the lock is let go
        while waiting, and held again on return)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self._grant()
            if ticket.granted:
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            # the head of the line looks again soon: an idle holder's turn passes on by time,
            # with no call to wake anyone; the others mostly sleep until granted
            head = bool(self._line) and self._order()[0] is ticket
            nap = self.idle_s / 2 if head else REPORT_S
            if left is not None:
                nap = left if nap is None else min(nap, left)
            ticket.event.clear()
            self._lock.release()
            try:
                ticket.event.wait(nap)
            finally:
                self._lock.acquire()

    def _leave(self, ticket: _Ticket) -> None:
        """``ticket`` gives up its turn or its place in the line."""
        if ticket in self._holders:
            self._holders.remove(ticket)
        if ticket in self._line:
            self._line.remove(ticket)
        ticket.granted = False
        self._grant()

    def _ahead(self, ticket: _Ticket) -> int:
        return len(self._holders) + (self._order().index(ticket) if ticket in self._line else 0)

    # what callers use ----------------------------------------------------------------------

    def _inside(self) -> bool:
        """Whether this thread computes inside a turn already: a job it starts then (a Step
        press that plans a run, say) computes within that turn instead of waiting for one."""
        return getattr(self._local, "depth", 0) > 0

    @contextlib.contextmanager
    def _computing(self) -> Iterator[None]:
        self._local.depth = getattr(self._local, "depth", 0) + 1
        try:
            yield
        finally:
            self._local.depth -= 1

    @contextlib.contextmanager
    def turn(self, owner: Hashable = None, *, priority: bool = True,
             network: Hashable = None) -> Iterator[None]:
        """Hold a turn for the block (a short job: by default ahead of the runs in line), as
        one of ``network``'s jobs (see ``take_turns``).

        >>> share = FairShare()
        >>> with share.turn("A"):
        ...     with share.turn("A, inside"):  # a job within a job: the same turn
        ...         share.stats()["holding"]
        1
        """
        if self._inside():
            with self._computing():
                yield
            return
        with self._lock:
            ticket = self._join(owner, priority, network)
            try:
                self._wait(ticket, None)
            except BaseException:
                self._leave(ticket)
                raise
        try:
            with self._computing():
                yield
        finally:
            with self._lock:
                self._leave(ticket)

    def take_turns(self, items: Iterable[Item], owner: Hashable = None, *,
                   priority: bool | Callable[[], bool] = False, report: bool = False,
                   network: Hashable = None) -> Generator[Item | Waiting, None, Any]:
        """``items``, each computed while holding a turn (slices of ``slice_s`` seconds, see
        the module's docstring). With ``report``, a ``Waiting`` comes every ``REPORT_S``
        seconds spent waiting, so the caller can show where it stands (and stop: closing this
        leaves the line at once). Closing this closes ``items``; what it returns, this returns.
        ``priority`` may be a function, asked each time the job joins the line: a run that
        has not trained a step yet goes ahead of the runs that have, so a class that presses
        Start together sees every first step before anyone's tenth. ``network`` is where the
        job comes from (a client address): turns go round the networks first, so one network's
        many runs share one network's turns (None: ``owner`` is its own network).
        """
        source = iter(items)
        key = object()
        # without a network or an owner the job is its own network, the same at each turn
        network = network if network is not None else owner if owner is not None else key
        ticket: _Ticket | None = None
        began = 0.0
        ahead = priority if callable(priority) else (lambda: priority)
        if callable(priority) or not priority:
            with self._lock:
                self._runs[id(key)] = owner
        try:
            while True:
                if self._inside():  # started by a job that holds a turn: computes in it
                    try:
                        with self._computing():
                            item = next(source)
                    except StopIteration as end:
                        return end.value
                    yield item
                    continue
                with self._lock:
                    if ticket is not None and not ticket.granted:  # lost it while idle
                        self._leave(ticket)
                        ticket = None
                    if ticket is None:
                        ticket = self._join(owner, bool(ahead()), network)
                        while not self._wait(ticket, REPORT_S if report else None):
                            waiting = Waiting(self._ahead(ticket), len(self._runs))
                            self._lock.release()
                            try:
                                yield waiting
                            finally:
                                self._lock.acquire()
                        began = time.monotonic()
                    ticket.idle_since = None
                try:
                    with self._computing():
                        item = next(source)
                except StopIteration as end:
                    return end.value
                with self._lock:
                    # (a new run's long turn ends with its first step)
                    held = self.priority_slice_s if ticket.priority and ahead() else self.slice_s
                    if time.monotonic() - began >= held and self._line:
                        self._leave(ticket)  # slice over and someone waits: to the back
                        ticket = None
                    elif ticket.granted:
                        ticket.idle_since = time.monotonic()
                yield item
        finally:
            with self._lock:
                self._runs.pop(id(key), None)
                if ticket is not None:
                    self._leave(ticket)
            close = getattr(source, "close", None)
            if close is not None:
                close()

    def hold_memory(self, nbytes: int) -> object:
        """Note that a run under way may need ``nbytes`` (its estimate): a run checked later
        counts it as taken, though the memory may not be allocated yet. Give the key returned
        to ``release_memory`` when the run ends.

        >>> share = FairShare()
        >>> key = share.hold_memory(2**20)
        >>> share.memory_held(), share.release_memory(key), share.memory_held()
        (1048576, None, 0)
        """
        key = object()
        with self._lock:
            self._memory[id(key)] = max(0, int(nbytes))
        return key

    def release_memory(self, key: object) -> None:
        with self._lock:
            self._memory.pop(id(key), None)

    def memory_held(self) -> int:
        """Bytes the runs under way may need, all together (``hold_memory``)."""
        with self._lock:
            return sum(self._memory.values())

    def stats(self) -> dict[str, int]:
        """How many jobs hold a turn, how many wait, and how many runs are taking turns."""
        with self._lock:
            return {"holding": len(self._holders), "waiting": len(self._line),
                    "runs": len(self._runs)}

    def crowded(self) -> bool:
        """Whether others share the machine now: more than one run under way, or a job in line.
        (A job computing with all cores while the page's server threads also work gets far
        slower than with one: OpenMP's threads wait on each other; the app then uses one.)"""
        with self._lock:
            return len(self._runs) > 1 or bool(self._line)

    def runs(self) -> int:
        """How many runs take turns now (each ``take_turns`` in progress without ``priority``)."""
        with self._lock:
            return len(self._runs)


MACHINE = FairShare()  # the app's one share of this process's machine (``configure`` sizes it)


def configure(slots: int) -> FairShare:
    """Size ``MACHINE`` to ``slots`` turns at once (the app calls it once, at build)."""
    with MACHINE._lock:
        MACHINE.slots = max(1, int(slots))
        MACHINE._grant()
    return MACHINE


def in_turns(fn: Callable, share: FairShare | None = None) -> Callable:
    """``fn`` as a short job of ``share`` (default ``MACHINE``): a plain function computes in
    one turn, a generator function item by item in turns (``take_turns``); both join the line
    ahead of the runs. The wrapper keeps ``fn``'s name, signature and kind.

    >>> share = FairShare()
    >>> def busy(): return share.stats()["holding"]
    >>> in_turns(busy, share)(), share.stats()["holding"]
    (1, 0)
    >>> def tokens(): yield from "ab"
    >>> list(in_turns(tokens, share)()), inspect.isgeneratorfunction(in_turns(tokens, share))
    (['a', 'b'], True)
    """
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def items(*args: Any, **kwargs: Any):
            return (yield from (share or MACHINE).take_turns(fn(*args, **kwargs), priority=True))
        return items

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any):
        with (share or MACHINE).turn():
            return fn(*args, **kwargs)
    return call
