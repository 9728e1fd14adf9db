"""Hostile round 3, finding 6 (the rest of it): a client that joins a training run and never
opens its result stream (``/queue/data``) made the server keep every update the run sent
(about 250 MB a run, still held after the client had gone). Now the sweep ends the jobs of a
page whose results wait unread with no stream open (``sessions.STREAMS``), and drops what
waited; a page that reads its stream is never cut off. Talks to 127.0.0.1 only, in bounded
loops."""

from __future__ import annotations

import collections
import json
import threading
import time

import gradio as gr
import httpx

from playground.config import DEFAULT_PRESET
from playground.runtime import sessions
from playground.server import gradio_internals, reattach
from playground.ui import train_tab
from playground.ui.app import build_demo, launch
from playground.settings import PageSettings

UPDATES = 400  # a run's updates, one every 20 ms or more: 8 s at least
UPDATE = "x" * 100_000  # what one update carries (a plot's worth)


def test_a_run_no_one_reads_is_ended_and_what_waited_is_dropped(monkeypatch):
    monkeypatch.setattr(sessions, "STREAMS", sessions.StreamWatch(unread_s=1.0))
    monkeypatch.setattr(reattach, "SWEEP_S", 0.5)
    sent, ended = collections.Counter(), {}

    def updating_run(request: gr.Request, *values):  # a run's stream of updates, no CPU spent
        key = request.session_hash
        try:
            for _ in range(UPDATES):
                sent[key] += 1
                time.sleep(0.02)
                yield (gr.skip(), gr.skip(), UPDATE, gr.skip(), gr.skip(), gr.skip())
        finally:
            ended[key] = sent[key]

    monkeypatch.setattr(train_tab, "train_model", updating_run)
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    try:
        index = next(i for i, fn in demo.fns.items() if fn.api_name == "train_model")
        values = [None, False, *PageSettings.preset(DEFAULT_PRESET).as_list()]
        read = []

        def reader() -> None:  # a page: joins, then reads its stream to the end
            with httpx.stream("GET", f"{url}gradio_api/queue/data",
                              params={"session_hash": "reader"}, timeout=60) as stream:
                for line in stream.iter_lines():
                    if line.startswith("data:"):
                        read.append(json.loads(line[5:]).get("msg"))
                        if read[-1] == "close_stream":
                            return

        for key in ("reader", "silent"):
            body = {"data": values, "fn_index": index, "session_hash": key,
                    "event_data": None, "trigger_id": None}
            assert httpx.post(f"{url}gradio_api/queue/join", json=body, timeout=30).status_code == 200
        thread = threading.Thread(target=reader)
        thread.start()
        thread.join(120)  # (bounded: the reader's run takes 8 s or more)
        for _ in range(100):  # the silent page's run ended, and nothing of it waits
            if "silent" in ended and "silent" not in gradio_internals.waiting_messages(demo):
                break
            time.sleep(0.2)
        assert ended.get("reader") == UPDATES and read[-1] == "close_stream"
        assert read.count("process_generating") >= UPDATES // 2  # (updates may be merged)
        assert "silent" in ended and ended["silent"] < UPDATES, ended
        assert "silent" not in gradio_internals.waiting_messages(demo)
    finally:
        demo.close()
