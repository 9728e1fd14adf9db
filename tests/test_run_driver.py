"""The one run driver (``playground.runs``) without any web server: Start, Stop, Step ×k, a
closed page, a restart, and the checks made once."""

from __future__ import annotations

import threading
import time

import pytest
import torch
from checks import run_settings

from playground import runs
from playground.checkpoint import load_bundle
from playground.config import ConfigError
from playground.corpus import from_text
from playground.runtime import fairshare, hosting
from playground.runtime.hosting import Hosting
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord
from playground.workspace import Workspace

settings = run_settings  # (the tiny preset, smaller still: tests/checks.py)


@pytest.fixture
def workspace(tiny_text, tmp_path, monkeypatch) -> Workspace:
    """A workspace with a pasted corpus and a character tokenizer, its files under tmp_path."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    corpus = from_text(tiny_text)
    ws = Workspace(corpus=corpus, tokenizer=train_tokenizer("char", corpus.text),
                   tokenizer_corpus=corpus)
    yield ws
    ws.release()


def events_of(run: runs.Run) -> list:
    return list(run.events())


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


def test_start_trains_keeps_the_model_a_bundle_and_a_compare_line(workspace):
    events = events_of(runs.start_run(workspace, settings()))
    names = kinds(events)
    assert names[0] == "Planned" and "Started" in names and names[-1] == "Finished"
    assert names.index("Started") < names.index("StepRecord")
    done = events[-1]
    assert done.end.reason == "done" and done.step == 6 and done.start_step == 0
    assert workspace.trained is done.trained and workspace.trained.trainer_state["step"] == 6
    assert [r.name for r in workspace.runs.get(workspace.runs.names())] == ["run 1"]
    bundle = load_bundle(done.bundle)  # the file is a bundle of this very model
    for name, value in bundle.model.state_dict().items():
        assert torch.equal(value, done.trained.model.state_dict()[name])
    assert not workspace.run.running and workspace.run.current is None


def test_the_same_run_as_the_trainer_alone(workspace):
    """The driver adds no step of its own: its weights are the trainer's own run's."""
    from playground.prepare import prepare_run

    done = events_of(runs.start_run(workspace, settings()))[-1]
    model_cfg, train_cfg = settings().configs(workspace.tokenizer.vocab_size)
    alone = prepare_run(workspace.corpus, workspace.tokenizer, model_cfg, train_cfg).trainer()
    list(alone.run())
    for name, value in alone.model.state_dict().items():
        assert torch.equal(value, done.trained.model.state_dict()[name]), name


def test_stop_ends_after_the_current_step_and_keeps_the_model(workspace):
    run = runs.start_run(workspace, settings(max_steps=10_000, eval_interval=10_000))
    events = []
    for event in run.events():
        events.append(event)
        if isinstance(event, StepRecord) and event.step == 3:
            assert workspace.run.request_stop()
    done = events[-1]
    assert isinstance(done, runs.Finished) and done.end.reason == "stopped"
    assert done.step == 3 and workspace.trained.trainer_state["step"] == 3
    assert not workspace.run.request_stop()  # nothing going: nothing to ask


def test_a_stop_pressed_while_the_run_waits_in_the_queue_ends_it_unstarted(workspace):
    runs.reserve(workspace)
    assert workspace.run.request_stop()  # pending: the flag waits for the run
    events = events_of(runs.start_run(workspace, settings()))
    assert not any(isinstance(e, StepRecord) for e in events)


def test_step_k_trains_exactly_k_more_steps_and_adds_no_compare_line(workspace):
    first = events_of(runs.start_run(workspace, settings(max_steps=100), steps=1))[-1]
    assert first.step == 1 and first.record is None and workspace.runs.names() == []
    ten = events_of(runs.start_run(workspace, settings(max_steps=100), continue_=True,
                                   steps=10))[-1]
    assert (ten.start_step, ten.step) == (1, 11)
    assert workspace.trained.trainer_state["step"] == 11
    # 1 + 10 steps give the very weights of a straight run of 11
    straight = Workspace(corpus=workspace.corpus, tokenizer=workspace.tokenizer,
                         tokenizer_corpus=workspace.corpus)
    alone = events_of(runs.start_run(straight, settings(max_steps=11)))[-1]
    for name, value in alone.trained.model.state_dict().items():
        assert torch.equal(value, ten.trained.model.state_dict()[name]), name
    straight.release()


def test_a_second_start_is_refused_while_one_waits_or_runs(workspace):
    runs.reserve(workspace)
    with pytest.raises(runs.Busy, match="already going"):
        runs.reserve(workspace)
    runs.release(workspace)
    runs.reserve(workspace)  # released: Start works again at once
    going = runs.start_run(workspace, settings(max_steps=10_000)).events()
    next(going)
    with pytest.raises(runs.Busy):
        events_of(runs.start_run(workspace, settings()))
    going.close()
    assert not workspace.run.running


def test_a_closed_page_ends_the_run_unsaved_and_a_restart_keeps_what_it_made(workspace):
    """The page closes mid-run (the server closes the run's events): the model keeps its
    steps; the visitor's return (or SIGTERM) saves them as a "stopped" run."""
    events = runs.start_run(workspace, settings(max_steps=10_000, eval_interval=10_000)).events()
    for event in events:
        if isinstance(event, StepRecord) and event.step == 2:
            break
    events.close()
    assert not workspace.run.running and workspace.trained.trainer_state["step"] == 2
    assert workspace.trained.bundle_path is None and workspace.runs.names() == []
    path = runs.finish_interrupted(workspace)
    assert path is not None and workspace.runs.names() == ["run 1"]
    kept = load_bundle(path)
    assert kept.trainer_state["step"] == 2 and isinstance(kept.history[-1], EndRecord)
    assert kept.history[-1].reason == "stopped"
    assert runs.finish_interrupted(workspace) == path  # nothing left to finish


def test_a_released_workspace_ends_its_run_and_writes_nothing(workspace):
    events = runs.start_run(workspace, settings(max_steps=10_000, eval_interval=10_000)).events()
    for event in events:
        if isinstance(event, StepRecord):
            workspace.release()  # the session expired
    assert workspace.trained is None and not workspace.run.running
    assert not list(workspace.workdir().glob("*.zip"))


def test_the_checks_are_made_before_the_queue_and_once(workspace, monkeypatch):
    probes = []
    real = runs.estimate.run_speed
    monkeypatch.setattr(runs.estimate, "run_speed", lambda m, t: probes.append(1) or real(m, t))
    checked = runs.check_run(workspace, settings())
    assert checked.timing is not None and len(probes) == 1
    run = runs.start_run(workspace, settings())
    assert run is checked  # the queued half takes the checked run
    events_of(run)
    assert len(probes) == 1  # no second estimate, no second check
    other = runs.check_run(workspace, settings())
    assert runs.start_run(workspace, settings(max_steps=7)) is not other  # another request


def test_refusals_say_what_to_change(workspace):
    with pytest.raises(ConfigError, match="no model to continue training"):
        runs.check_run(workspace, settings(), continue_=True)
    workspace.corpus = from_text("another text " * 200)
    with pytest.raises(ConfigError, match="Train the tokenizer again"):
        runs.check_run(workspace, settings())
    assert not workspace.run.pending


def test_a_shared_host_refuses_compile_and_caps_the_time(workspace, monkeypatch):
    hosting.use(Hosting.from_env({"SPACE_ID": "someone/playground"}))
    try:
        with pytest.raises(ConfigError, match="compile"):
            runs.check_run(workspace, settings(compile=True))
        with pytest.raises(ConfigError, match="compile"):  # Step ×k too
            events_of(runs.start_run(workspace, settings(compile=True), steps=1))
        monkeypatch.setattr(hosting, "run_time_cap", lambda host=None: 0.0)
        done = events_of(runs.start_run(workspace, settings(max_steps=10_000,
                                                            eval_interval=10_000)))[-1]
        assert done.end.reason == "stopped" and "time limit" in done.end.message
    finally:
        hosting.use(Hosting())


def test_the_run_takes_turns_and_holds_its_memory_while_it_goes(workspace):
    held = []
    for event in runs.start_run(workspace, settings()).events():
        if isinstance(event, (StepRecord, EvalRecord)):
            held.append(fairshare.MACHINE.memory_held())
    assert held and min(held) > 0 and fairshare.MACHINE.memory_held() == 0



@pytest.mark.parametrize("network", ["203.0.113.5", "198.51.100.7"])
def test_a_run_takes_turns_as_one_of_its_networks(workspace, monkeypatch, network):
    """Issue 27, item 3: twelve runs of one network under way; a run that ``start_run`` is told
    comes from another network gets every other turn (before: one in thirteen), and one from
    the same network shares that network's turns with its twelve."""
    machine = fairshare.FairShare(slice_s=0.0, priority_slice_s=0.0)
    monkeypatch.setattr(fairshare, "MACHINE", machine)
    order, lock, stop = [], threading.Lock(), threading.Event()

    def attacker(name: str) -> None:
        def endless():
            for step in range(100_000):  # bounded: stopped below long before
                if stop.is_set():
                    return
                with lock:
                    order.append("A")
                time.sleep(0.001)  # the step's compute
                yield step
        for _ in machine.take_turns(endless(), owner=name, network="198.51.100.7"):
            pass

    threads = [threading.Thread(target=attacker, args=(f"a{i}",)) for i in range(12)]
    for thread in threads:
        thread.start()
    while machine.runs() < 12 or len(order) < 24:
        time.sleep(0.005)
    run = runs.start_run(workspace, settings(max_steps=12, eval_interval=100),
                         network=network)
    assert run.network == network
    for event in run.events():
        if isinstance(event, StepRecord):
            with lock:
                order.append("B")
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    ours = [i for i, who in enumerate(order) if who == "B"]
    gaps = sorted(b - a - 1 for a, b in zip(ours, ours[1:]))  # the other network's turns between
    assert len(ours) == 12
    if network == "203.0.113.5":
        assert gaps[len(gaps) // 2] <= 2, gaps
    else:
        assert gaps[len(gaps) // 2] >= 8, gaps  # (12 in a strict round robin)


def test_step_k_takes_turns_so_another_visitors_job_waits_one_step(workspace, monkeypatch):
    """Step ×100 is a run like any other: it holds the machine for a slice, not a press (a
    Generate behind a hundred steps of a large model waited 373 s)."""
    machine = fairshare.FairShare(slice_s=0.0, priority_slice_s=0.0)  # a slice: one item
    monkeypatch.setattr(fairshare, "MACHINE", machine)
    seen, ran_at = [0], []

    def generate():  # another visitor's short job
        with machine.turn():
            ran_at.append(seen[0])

    other = threading.Thread(target=generate)
    for event in runs.start_run(workspace, settings(max_steps=1_000), steps=100).events():
        if isinstance(event, StepRecord):
            seen[0] = event.step
            if event.step == 5:
                other.start()
                while machine.stats()["waiting"] == 0 and other.is_alive():
                    time.sleep(0.001)  # it joins the line before the next step
    other.join()
    assert ran_at and 5 <= ran_at[0] <= 6  # its turn came after at most one more step


def test_stop_while_the_run_waits_for_a_turn_ends_it_at_once(workspace, monkeypatch):
    """Another job holds the machine; the run, between two steps, waits. Stop ends it then,
    not when its next turn comes, and the model keeps its steps and a "stopped" end."""
    machine = fairshare.FairShare(slice_s=0.0, priority_slice_s=0.0)
    monkeypatch.setattr(fairshare, "MACHINE", machine)
    monkeypatch.setattr(fairshare, "REPORT_S", 0.01)
    holding, done_waiting = threading.Event(), threading.Event()

    def long_job():
        with machine.turn():
            holding.set()
            done_waiting.wait(30)

    other = threading.Thread(target=long_job)
    events = []
    for event in runs.start_run(workspace, settings(max_steps=1_000)).events():
        events.append(event)
        if isinstance(event, StepRecord) and event.step == 3:
            other.start()
            holding.wait(30)
        if isinstance(event, fairshare.Waiting):
            workspace.run.request_stop()
    done_waiting.set()
    other.join()
    done = events[-1]
    assert isinstance(done, runs.Finished) and done.end.reason == "stopped"
    assert done.step == 3 and done.trained.history[-1] == done.end
    assert load_bundle(done.bundle).trainer_state["step"] == 3
