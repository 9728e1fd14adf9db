"""A class at once (issue: a public Space): twelve visitors press Start together against the app
on 127.0.0.1 and take turns on the machine, instead of waiting in single file.

No wall time is asserted (this machine is shared and noisy); what is checked is the order of
events that single file cannot produce: every visitor's first training step comes before any
visitor's run is done. ``make bench`` (section ``load``) reports the seconds.
"""

from __future__ import annotations

import threading
import time

import pytest

from bench.load import visitors
from checks import page_settings
from playground.runtime import fairshare

N = 12


def alphabet_text(i: int) -> str:
    """Visitor ``i``'s own text: two letters no other visitor's text has, spaces, newlines."""
    a, b = chr(ord("a") + 2 * i), chr(ord("a") + 2 * i + 1)
    return f"{a}{b}{a} {b}{a}{a}{b} {b}{b}{a}\n" * 400


@pytest.fixture
def short_slices(monkeypatch):
    """Turns of 50 ms, so each visitor's short run (about a second here) takes many turns."""
    monkeypatch.setattr(fairshare.MACHINE, "slice_s", 0.05)


def test_twelve_visitors_at_once_take_turns_and_each_gets_its_own_model(app_url, short_slices):
    texts = [alphabet_text(i) for i in range(N)]
    settings = page_settings(max_steps=600, eval_interval=300, eval_iters=2)
    visits = visitors(app_url, settings, N, texts=texts, timeout_s=400)

    assert [v.error for v in visits] == [""] * N
    assert all(v.final_status.startswith("**Done.**") for v in visits), \
        [v.final_status[:80] for v in visits]
    # in turns, not single file: nobody's run was done before everyone had trained a step
    # (in single file, visitor 12's first step came after eleven finished runs)
    assert max(v.first_step_s for v in visits) < min(v.done_s for v in visits)
    # each wrote with its own model: only the letters of its own text
    for visit, text in zip(visits, texts):
        assert visit.generated and set(visit.generated) <= set(text), (visit.name, visit.generated)
    # every turn was given back, and no run's memory is still counted
    assert fairshare.MACHINE.stats() == {"holding": 0, "waiting": 0, "runs": 0}
    assert fairshare.MACHINE.memory_held() == 0


def test_a_visitor_behind_others_is_told_where_it_stands(app_url, monkeypatch):
    """While another visitor's run computes its turn, Start shows the line ahead, then trains."""
    monkeypatch.setattr(fairshare.MACHINE, "slice_s", 1.0)  # the other run's turns are long
    monkeypatch.setattr(fairshare, "REPORT_S", 0.05)  # and a waiting run says so at once

    def steps():
        for step in range(40):
            time.sleep(0.05)  # a step's compute
            yield step

    other = threading.Thread(target=lambda: list(fairshare.MACHINE.take_turns(steps(), "other")))
    other.start()
    try:
        [visit] = visitors(app_url, page_settings(max_steps=30), 1)
    finally:
        other.join(timeout=60)
    assert visit.error == "" and visit.final_status.startswith("**Done.**")
    assert visit.most_ahead >= 1, visit.statuses
    assert any("Waiting for a turn" in status for status in visit.statuses)
