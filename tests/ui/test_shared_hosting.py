"""Limits of shared hosting on the training tab (runtime.hosting), and a run that waits its turn
(runtime.fairshare): handlers called as plain functions, a tiny model, no server."""

from __future__ import annotations

import threading

import gradio as gr
import pytest

from checks import page_settings
from playground.runtime import fairshare, hosting
from playground.runtime.fairshare import FairShare
from playground.runtime.hosting import Hosting
from playground.ui import train_tab


@pytest.fixture
def own_share(monkeypatch):
    """A machine of this test's own, so nothing another test left can hold a turn."""
    share = FairShare()
    monkeypatch.setattr(fairshare, "MACHINE", share)
    return share


def test_a_run_over_the_time_limit_stops_with_its_model_and_continues(ready, own_share):
    hosting.use(Hosting(max_run_s=1.0))  # PLAYGROUND_MAX_RUN_S=1 (a step-0 evaluation on busy cores can take 0.3 s)
    updates = list(train_tab.train_model(ready, False, *page_settings(max_steps=1_000_000,
                                                                      eval_interval=100_000)))
    session, plot, status, samples, download, coach = updates[-1]
    assert status.startswith("**Stopped.**")
    assert "time limit of this shared server" in status and "Continue training" in status
    assert download.visible and str(download.value["path"] if isinstance(download.value, dict) else download.value).endswith(".zip")
    step = session.trained.trainer_state["step"]
    assert 0 < step < 1_000_000
    # Continue training goes on from that step, under the same limit
    hosting.use(Hosting(max_run_s=None))  # the host turned it off (0): runs to the end
    *_, last = train_tab.train_model(session, True, *page_settings(max_steps=step + 5,
                                                                   eval_interval=100_000))
    assert last[2].startswith("**Done.**") and session.trained.trainer_state["step"] == step + 5


def test_the_time_limit_message_is_chinese_for_a_chinese_page(ready, own_share):
    hosting.use(Hosting(max_run_s=0.2))
    ready.lang = "zh-CN"
    *_, last = train_tab.train_model(ready, False, *page_settings(max_steps=1_000_000,
                                                                  eval_interval=100_000))
    assert "共享服务器每次训练的时间上限" in last[2]


def test_stop_while_waiting_for_a_turn_ends_at_once_and_changes_nothing(ready, own_share,
                                                                        monkeypatch):
    monkeypatch.setattr(fairshare, "REPORT_S", 0.05)
    list(train_tab.train_model(ready, False, *page_settings(max_steps=6)))  # an earlier model
    before = ready.trained
    holding, release = threading.Event(), threading.Event()

    def busy():  # another visitor's job holds the machine until the test lets go
        with own_share.turn("other"):
            holding.set()
            release.wait(30)

    other = threading.Thread(target=busy)
    other.start()
    assert holding.wait(10)
    try:
        run = train_tab.train_model(ready, False, *page_settings(max_steps=1_000))
        seen = []  # planning takes a turn too, so it waits: in a thread
        planner = threading.Thread(target=lambda: seen.append(next(run)))
        planner.start()
        planner.join(0.5)
        assert planner.is_alive()  # the plan waits behind the other job
    finally:
        release.set()
        other.join(10)
    planner.join(30)
    assert "Starting" in seen[0][2]
    holding.clear()
    release.clear()
    other = threading.Thread(target=busy)
    other.start()
    assert holding.wait(10)
    try:
        waiting = next(run)
        assert "Waiting for a turn" in waiting[2]
        train_tab.stop_training(ready)
        *_, last = list(run)
    finally:
        release.set()
        other.join(10)
    assert "before it began" in last[2]
    assert ready.trained is before  # the earlier model, untouched
    assert ready.run.running is False
    assert own_share.stats() == {"holding": 0, "waiting": 0, "runs": 0}
    assert own_share.memory_held() == 0


@pytest.mark.parametrize("changes, words", [
    (dict(compile=True), "compile (torch.compile) is off on this shared server"),
    (dict(n_layer=4, n_embd=256, n_head=4, block_size=256, batch_size=32, max_steps=200_000),
     "shared server takes runs of up to about 1 h"),
])
def test_shared_hosting_refuses_before_start_and_start_works_after(ready, own_share, changes,
                                                                   words):
    hosting.use(Hosting.from_env({"SPACE_ID": "someone/playground"}))
    with pytest.raises(gr.Error, match=words.replace("(", r"\(").replace(")", r"\)")):
        train_tab.check_start(ready, False, *page_settings(**changes))
    with pytest.raises(gr.Error, match="shared server"):  # the API, straight to train_model
        list(train_tab.train_model(ready, False, *page_settings(**changes)))
    assert ready.run.running is False
    train_tab.check_start(ready, False, *page_settings())  # fixed: accepted


def test_locally_the_same_settings_are_accepted(ready, own_share):
    hosting.use(Hosting.from_env({}))  # no SPACE_ID, SYSTEM, PLAYGROUND_SHARED nor a limit
    train_tab.check_start(ready, False, *page_settings(compile=True))


def test_a_second_run_counts_the_memory_the_first_may_still_take(ready, own_share, monkeypatch):
    """Two runs checked at the same moment no longer both pass against the same free memory."""
    from playground import prepare

    monkeypatch.setattr(prepare, "available_memory", lambda device: 10 * 2**30)
    key = own_share.hold_memory(9 * 2**30)  # a run under way may take 9 GiB of the 10
    try:
        with pytest.raises(gr.Error, match="other runs under way here may still need 9.0 GB"):
            train_tab.check_start(ready, False, *page_settings())
    finally:
        own_share.release_memory(key)
    train_tab.check_start(ready, False, *page_settings())
