"""Load test of the class board: three classes of twelve on 127.0.0.1, at once.

Each class sits behind its own address (a school's network: ``X-Forwarded-For`` from a trusted
proxy) and has its own lesson link. Each learner is a ``gradio_client`` of its own, in its own
thread: it pastes a text of its own, opens the lesson link (the page's load event, joined with
the link's query as the browser joins it), picks a nickname and ticks "Share my runs with the
class" (half before training, half after), trains a tokenizer and a tiny model. Meanwhile one
viewer per class redraws its board as the tab's timer does. The test checks that:

* every board ends listing exactly its class's twelve learners, and never showed anyone else;
* the boards followed the runs live (each showed the class growing, not only the end);
* the queue served every learner (every run finished and was shared).

The figures (learners, distinct boards each viewer saw, the longest training call) are printed
(``pytest -s``). Nothing is timed except one generous limit on the whole test, against a hang.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import gradio as gr
import httpx
import pytest
from gradio_client import Client

from playground.insight import board as board_module
from playground.insight.board import Board, new_code
from playground.runtime import hosting
from playground.ui import board_tab
from playground.ui.app import build_demo, launch
from playground.ui.session import Session

from checks import page_settings

CLASSES, LEARNERS = 3, 12
LIMIT_S = 900  # for the whole test: far above the few minutes it takes on 2 cores
SKIP = type(gr.skip())
SMALLER = dict(block_size=8, n_embd=8, max_steps=5, warmup_steps=1, eval_interval=5)


def session_of(demo, session_hash: str) -> Session | None:
    data = demo.server_app.state_holder.session_data.get(session_hash)
    values = list(data.state_data.values()) if data is not None else []
    return next((v for v in values if isinstance(v, Session)), None)


def open_lesson_link(url: str, demo, client: Client, query: str, headers: dict) -> None:
    """What the browser does on opening the link: the page's load events, joined with the
    link's query string (Gradio's page client adds it to every join); here only the one that
    reads the lesson."""
    index = next(i for i, fn in demo.fns.items() if fn.name == "open_lesson")
    answer = httpx.post(f"{url}gradio_api/queue/join?{query}", headers=headers, timeout=60, json={
        "data": [None], "fn_index": index, "session_hash": client.session_hash,
        "event_data": None, "trigger_id": None})
    answer.raise_for_status()


def learn(url, demo, code, k, n, waits, errors):
    """One learner's visit; problems go to ``errors`` (threads cannot raise to pytest)."""
    nickname, address = f"c{k}-learner{n:02d}", f"198.51.100.{k + 1}"
    headers = {"x-forwarded-for": address}
    text = "".join(f"class {k} learner {n} writes line {i % 9} of the lesson.\n" for i in range(80))
    doing = "opening the page"
    client = Client(url, verbose=False, analytics_enabled=False, headers=headers,
                    httpx_kwargs={"timeout": 120})
    try:
        doing = "/use_corpus"
        client.predict("Paste text", None, text, api_name="/use_corpus")
        doing = "opening the lesson link"
        open_lesson_link(url, demo, client, f"title=Class+{k}&class={code}", headers)
        deadline = time.monotonic() + 60
        while getattr(session_of(demo, client.session_hash), "class_code", "") != code:
            if time.monotonic() > deadline:
                raise TimeoutError("the lesson link never set the class code")
            time.sleep(0.1)
        early = n % 2 == 0
        if early:
            doing = "ticking share before training"
            client.predict(True, nickname, api_name="/share_with_class")
        doing = "/train_tokenizer"
        client.predict("char", 512, api_name="/train_tokenizer")
        doing = "/train_model"
        started = time.monotonic()
        status = client.predict(False, *page_settings(SMALLER), api_name="/train_model")[1]
        waits.append(time.monotonic() - started)
        if "Finished all 5 steps" not in status:
            errors.append(f"{nickname}: training status {status!r}")
        if not early:
            doing = "ticking share after training"
            note = client.predict(True, nickname, api_name="/share_with_class")[1]
            if "Shared as" not in note:
                errors.append(f"{nickname}: sharing said {note!r}")
    except Exception as error:  # any failure of the queue or the app
        errors.append(f"{nickname}, {doing}: {type(error).__name__}: {error}")
    finally:
        client.close()


def watch(code: str, stop: threading.Event, seen: list[tuple[str, ...]]) -> None:
    """A board on a projector: redrawn as the tab's timer redraws it, every board kept."""
    viewer = Session()
    viewer.class_code = code
    version = -1
    while not stop.wait(0.1):
        drawn = board_tab.show_board(viewer, version)
        if isinstance(drawn[0], SKIP):  # unchanged since the last redraw
            continue
        version, _, ranking, *_ = drawn
        seen.append(tuple(sorted(row[1] for row in ranking.value["data"])))


@pytest.mark.slow
def test_three_classes_of_twelve_each_see_only_their_own_board_live(monkeypatch):
    fresh = Board()
    monkeypatch.setattr(board_module, "BOARD", fresh)
    monkeypatch.setattr(board_tab, "BOARD", fresh)
    # a trusted proxy names each school's network; one compute job at a time, as on 2 CPUs
    hosting.use(dataclasses.replace(hosting.current(), trust_proxy=True, concurrency=1))
    demo = build_demo(session_ttl_s=600)
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    codes = [new_code() for _ in range(CLASSES)]
    errors: list[str] = []
    waits: list[float] = []
    boards: list[list[tuple[str, ...]]] = [[] for _ in codes]
    stop = threading.Event()
    try:
        watchers = [threading.Thread(target=watch, args=(code, stop, boards[k]), daemon=True)
                    for k, code in enumerate(codes)]
        learners = [threading.Thread(target=learn, args=(url, demo, code, k, n, waits, errors),
                                     daemon=True)
                    for n in range(LEARNERS) for k, code in enumerate(codes)]
        for thread in watchers + learners:
            thread.start()
        deadline = time.monotonic() + LIMIT_S
        for thread in learners:
            thread.join(max(0.0, deadline - time.monotonic()))
        assert not any(t.is_alive() for t in learners), f"the learners did not finish in {LIMIT_S} s"
        time.sleep(1.0)  # the watchers' last redraw
        stop.set()
        for thread in watchers:
            thread.join(10)
        assert errors == []
        assert len(waits) == CLASSES * LEARNERS  # the queue served every learner
        for k, code in enumerate(codes):
            own = {f"c{k}-learner{n:02d}" for n in range(LEARNERS)}
            assert {e.name for e in fresh.entries(code)} == own  # exactly its class, once each
            assert all(set(board) <= own for board in boards[k])  # never anyone else's run
            assert boards[k][-1] == tuple(sorted(own))
            counts = [len(board) for board in boards[k]]
            assert len(set(counts)) >= 3, counts  # the board grew as runs finished: live
        print(f"\nclass boards: {CLASSES} classes x {LEARNERS} learners; distinct boards each "
              f"viewer saw {[len(set(b)) for b in boards]}; longest training call (queue wait "
              f"included) {max(waits):.1f} s")
    finally:
        stop.set()
        demo.close()
