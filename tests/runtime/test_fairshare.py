"""The fair share of the machine: turns in order, one job computing per slot, short jobs between
slices, idle holders passed over, waiting jobs told where they stand."""

from __future__ import annotations

import threading
import time

import pytest

from playground.runtime.fairshare import FairShare, Waiting


class Meter:
    """Counts how many jobs compute at the same moment (the most ever seen) and who computed
    in which order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.order: list[str] = []

    def work(self, name: str, steps: int, seconds: float = 0.002):
        for step in range(steps):
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
                self.order.append(name)
            time.sleep(seconds)  # the step's compute (sleeping lets another thread overlap it)
            with self.lock:
                self.now -= 1
            yield step


def run_in_threads(share: FairShare, meter: Meter, names: list[str], steps: int, **kwargs):
    results: dict[str, list] = {}

    def one(name: str) -> None:
        results[name] = [x for x in share.take_turns(meter.work(name, steps), owner=name, **kwargs)
                         if not isinstance(x, Waiting)]

    threads = [threading.Thread(target=one, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results


@pytest.mark.parametrize("slots", [1, 2])
def test_never_more_jobs_compute_than_slots_and_every_run_finishes(slots):
    share, meter = FairShare(slots=slots, slice_s=0.01), Meter()
    names = [f"run{i}" for i in range(6)]
    results = run_in_threads(share, meter, names, steps=20)
    assert results == {name: list(range(20)) for name in names}
    assert meter.most == slots
    assert share.stats() == {"holding": 0, "waiting": 0, "runs": 0}


def test_runs_take_turns_instead_of_waiting_for_each_other_to_finish():
    share, meter = FairShare(slots=1, slice_s=0.01), Meter()
    names = [f"run{i}" for i in range(4)]
    run_in_threads(share, meter, names, steps=40)
    # one after another, the first run would be done before the last began; in turns, every
    # run has computed some steps before any has done half of its own
    half = {name: [i for i, who in enumerate(meter.order) if who == name][20] for name in names}
    first = {name: meter.order.index(name) for name in names}
    assert max(first.values()) < min(half.values())


def test_a_short_job_is_served_between_two_slices_ahead_of_waiting_runs():
    share = FairShare(slots=1, slice_s=0.05)
    meter = Meter()
    started = threading.Event()
    order: list[str] = []

    def long_run(name: str) -> None:
        for _ in share.take_turns(meter.work(name, 60, 0.005), owner=name):
            started.set()
        order.append(name)

    runs = [threading.Thread(target=long_run, args=(f"run{i}",)) for i in range(3)]
    for thread in runs:
        thread.start()
    assert started.wait(10)
    asked = time.monotonic()
    with share.turn("generate"):
        waited = time.monotonic() - asked
        order.append("generate")
    for thread in runs:
        thread.join(timeout=60)
    assert order[0] == "generate"  # before any of the runs (each has about 0.3 s of work) ended
    assert waited < 3  # at most a slice, with generous room for a slow machine (not timed: bound)


def test_new_runs_reach_their_first_step_one_after_another():
    """A job ahead of the runs keeps its turn for priority_slice_s: runs new to the line (ahead
    until their first step, here their fifth item) each get there in one go, so the first of
    a class sees its step after one run's start, not after every run's."""
    share, meter = FairShare(slots=1, slice_s=0.001, priority_slice_s=5.0), Meter()
    done: dict[str, int] = {}

    def one(name: str) -> None:
        done[name] = 0
        for x in share.take_turns(meter.work(name, 5, 0.01), owner=name,
                                  priority=lambda: done[name] < 5):
            done[name] += not isinstance(x, Waiting)

    threads = [threading.Thread(target=one, args=(f"run{i}",)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    # each run's five items together: the turn changes hands only between two runs
    changes = sum(a != b for a, b in zip(meter.order, meter.order[1:]))
    assert len(meter.order) == 15 and changes == 2, meter.order


def test_a_new_run_whose_page_is_slow_to_ask_again_keeps_its_turn_to_its_first_step():
    """A new run's caller takes 30 ms to come back after each item (it sends the page an
    update through a busy server): ahead of the runs it keeps its turn all the same, up to its
    first step (its third item), and only then does the waiting run get one."""
    share, meter = FairShare(slots=1, slice_s=0.001, idle_s=0.005, priority_slice_s=5.0,
                             priority_idle_s=0.5), Meter()
    done = {"new": 0}
    waiting_started = threading.Event()

    def new_run() -> None:
        for x in share.take_turns(meter.work("new", 6), owner="new",
                                  priority=lambda: done["new"] < 3):
            if not isinstance(x, Waiting):
                done["new"] += 1
                waiting_started.wait(5)
                time.sleep(0.03)  # the page's round trip

    def other() -> None:
        waiting_started.set()
        for _ in share.take_turns(meter.work("other", 3), owner="other"):
            pass

    first = threading.Thread(target=new_run)
    first.start()
    while not meter.order:  # the new run holds the turn
        time.sleep(0.001)
    second = threading.Thread(target=other)
    second.start()
    first.join(timeout=30)
    second.join(timeout=30)
    assert meter.order[:3] == ["new"] * 3, meter.order
    # past its first step it is a run like the others: a slow caller loses the turn
    assert "other" in meter.order[3:6], meter.order


def test_a_holder_that_stops_asking_loses_its_turn():
    share = FairShare(slots=1, slice_s=10.0, idle_s=0.05)
    abandoned = share.take_turns(iter(range(100)), owner="gone")
    assert next(abandoned) == 0  # holds the turn, and its caller never comes back
    other = list(share.take_turns(iter("abc"), owner="B"))
    assert other == ["a", "b", "c"]
    abandoned.close()
    assert share.stats() == {"holding": 0, "waiting": 0, "runs": 0}


def test_a_waiting_run_reports_where_it_stands_and_can_leave_the_line():
    share = FairShare(slots=1, idle_s=30.0)
    holder = share.take_turns(iter(range(10)), owner="A")
    next(holder)  # A holds the turn (idle, but for less than idle_s)
    waiting = share.take_turns(iter(range(10)), owner="B", report=True)
    report = next(waiting)
    assert report == Waiting(ahead=1, runs=2)
    assert share.stats() == {"holding": 1, "waiting": 1, "runs": 2}
    waiting.close()  # Stop while waiting: out of the line at once, no turn needed
    assert share.stats() == {"holding": 1, "waiting": 0, "runs": 1}
    holder.close()


def test_what_the_items_return_comes_through_and_closing_closes_them():
    share = FairShare()
    closed = []

    def items():
        try:
            yield 1
            yield 2
        finally:
            closed.append(True)
        return "done"

    def consume():
        return (yield from share.take_turns(items(), owner="A"))

    gen = consume()
    assert list(gen) == [1, 2] and closed == [True]
    turns = share.take_turns(items(), owner="A")
    next(turns)
    turns.close()
    assert closed == [True, True]

    def returned():
        value = yield from share.take_turns(items(), owner="A")
        yield value
    assert list(returned()) == [1, 2, "done"]


def test_an_error_in_a_job_gives_its_turn_back():
    share = FairShare()

    def failing():
        yield 1
        raise RuntimeError("the step failed")

    with pytest.raises(RuntimeError):
        list(share.take_turns(failing(), owner="A"))
    with pytest.raises(ValueError), share.turn("B"):
        raise ValueError
    assert share.stats() == {"holding": 0, "waiting": 0, "runs": 0}
    with share.turn("C"):  # the machine is free again
        assert share.stats()["holding"] == 1


def test_slots_must_be_positive():
    with pytest.raises(ValueError):
        FairShare(slots=0)


def test_a_job_started_inside_a_turn_computes_in_that_turn():
    """A Step press with no model plans a run (a job inside a job): with one slot, waiting for
    a second turn would wait for ever; it computes in the turn it is in."""
    share = FairShare(slots=1)

    def plan():
        with share.turn("plan"):
            return share.stats()["holding"]

    def steps():
        yield plan()  # a job inside a run's item
        yield from share.take_turns(iter([7]), owner="inner")  # a run inside a run's item

    with share.turn("step press"):
        assert plan() == 1
        assert list(share.take_turns(iter("ab"), owner="inner")) == ["a", "b"]
    assert list(share.take_turns(steps(), owner="outer")) == [1, 7]
    assert share.stats() == {"holding": 0, "waiting": 0, "runs": 0}


def test_turns_are_shared_between_networks_before_runs():
    """Issue 27, item 3: twelve runs from one network under way, then one run from another.
    Turns go to networks in turn, so the newcomer's first item comes within two turns of its
    joining (round robin over runs: behind all twelve) and it computes every other turn after
    (before: one turn in thirteen); the twelve share their network's turns among them."""
    share, meter = FairShare(slots=1, slice_s=0.0), Meter()
    stop, attacker_going = threading.Event(), threading.Event()
    joined_at: list[int] = []

    def attacker(name: str) -> None:
        def endless():
            for step in meter.work(name, 10_000, 0.001):  # bounded: stopped below long before
                attacker_going.set()
                if stop.is_set():
                    return
                yield step
        for _ in share.take_turns(endless(), owner=name, network="198.51.100.7"):
            pass

    def newcomer() -> None:
        with meter.lock:
            joined_at.append(len(meter.order))
        for _ in share.take_turns(meter.work("newcomer", 20, 0.001), owner="newcomer",
                                  network="203.0.113.5"):
            pass

    threads = [threading.Thread(target=attacker, args=(f"a{i}",)) for i in range(12)]
    for thread in threads:
        thread.start()
    assert attacker_going.wait(10)
    while len(set(meter.order)) < 12:  # every attacker run has had a turn: all are under way
        time.sleep(0.005)
    last = threading.Thread(target=newcomer)
    last.start()
    last.join(timeout=60)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in [last, *threads])
    after = meter.order[joined_at[0]:]
    first = after.index("newcomer")
    assert first <= 2, after[:first + 1]
    # its twenty items came within about forty turns (round robin over runs: about 260)
    ended = len(after) - after[::-1].index("newcomer")
    assert ended <= 45, (ended, after[:ended])


def test_without_networks_each_owner_is_its_own():
    """Locally no network is known: every owner (a page) is one, so turns go round the owners
    as before, and short jobs without an owner are served in the order they asked."""
    share, meter = FairShare(slots=1, slice_s=0.0), Meter()
    names = ["A", "B", "C"]
    run_in_threads(share, meter, names, steps=10)
    order = meter.order
    # from the moment all three are in line to the first one's end: A, B, C, A, B, C...
    begin = max(order.index(name) for name in names)
    end = min(len(order) - order[::-1].index(name) for name in names)
    middle = order[begin - 2:end]
    assert len(middle) >= 12 and all(a != b for a, b in zip(middle, middle[1:])), order
    assert all(len(set(middle[i:i + 3])) == 3 for i in range(len(middle) - 2)), order


def test_a_job_without_an_owner_keeps_its_place_in_the_rounds():
    """A short job with no owner (a generation streaming its tokens) is one network across its
    turns: after its turn it goes behind the others, not ahead of them as a newcomer each time
    (which would give it every other turn against two pages)."""
    share, meter = FairShare(slots=1, slice_s=0.0, priority_slice_s=0.0), Meter()
    names = ["anonymous", "page1", "page2"]

    def one(name: str) -> None:
        owner = None if name == "anonymous" else name
        for _ in share.take_turns(meter.work(name, 12), owner=owner, priority=True):
            pass

    threads = [threading.Thread(target=one, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    order = meter.order
    begin = max(order.index(name) for name in names)
    end = min(len(order) - order[::-1].index(name) for name in names)
    middle = order[begin - 2:end]
    assert len(middle) >= 12, order
    assert all(len(set(middle[i:i + 3])) == 3 for i in range(len(middle) - 2)), order
