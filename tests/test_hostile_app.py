"""Hostile traffic against the launched app (issue 14): one way into the compute queue, one job
per visitor, bounded requests, no echoed values, no exception text. Everything talks to
127.0.0.1 only, in bounded loops.

Before: every queued function also answered on Gradio's non-queued ``/gradio_api/run/<name>``
(attention in 0.08 s while another visitor's run held the slot; five parallel train_model
calls each passed the memory check); 65 queued runs from one client filled the 64-slot queue
and every other visitor got HTTP 503; a 200 MB paste was read and parsed (+720 MB) before the
5 MB check refused it; a 10 MB choice value was echoed whole into the error and the log.
"""

import dataclasses
import json
import logging
import re
import socket
import threading
from urllib.parse import urlsplit

import httpx
import pytest

from playground.runtime import hosting
from playground.runtime.hosting import Hosting
from playground.server import guard
from playground.ui import tokenizer_tab
from playground.ui.app import QUEUE_MAX_SIZE, build_demo, launch

HELD_OPEN_S = 60  # the gate's own limit: a test that fails cannot hold the server forever


@pytest.fixture
def served(monkeypatch):
    """The app with tokenizer training replaced by a job that holds the compute slot until the
    test opens the gate (no CPU spent): yields (demo, url, gate, calls)."""
    gate, calls = threading.Event(), []

    def held_tokenizer_training(session, kind, vocab_size):
        calls.append(kind)
        gate.wait(HELD_OPEN_S)
        return session, "", "", ""

    monkeypatch.setattr(tokenizer_tab, "train_tokenizer_handler", held_tokenizer_training)
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    try:
        yield demo, url, gate, calls
    finally:
        gate.set()
        demo.close()


def fn_index(demo, api_name: str) -> int:
    return next(i for i, fn in demo.fns.items() if fn.api_name == api_name)


def join(url, demo, api_name, data, session_hash, headers=None):
    """POST /queue/join as the page does; returns the response."""
    body = {"data": data, "fn_index": fn_index(demo, api_name), "session_hash": session_hash,
            "event_data": None, "trigger_id": None}
    return httpx.post(f"{url}gradio_api/queue/join", json=body, headers=headers or {}, timeout=30)


TOKENIZER = [None, "char", 512]  # the session's State (null), kind, vocab_size


def test_every_compute_handler_is_on_the_compute_queue(served):
    demo, *_ = served
    compute = {fn.api_name for fn in demo.fns.values() if fn.concurrency_id in guard.COMPUTE_IDS}
    assert {"train_model", "train_one_change", "train_tokenizer", "upload_bundle", "generate",
            "show_attention", "export_script", "push_to_hub", "inside_forward", "inside_surprise",
            "inside_embedding_map", "inside_step_1", "inside_step_10", "inside_step_100"} <= compute
    training = {fn.api_name for fn in demo.fns.values() if fn.concurrency_id == guard.TRAINING}
    # the runs that take turns: Step xk on the Inside tab is one (issue 27.4: in the short jobs'
    # one-at-a-time group, Step x100 held every other visitor's Generate for the whole press)
    assert training == {"train_model", "train_one_change", "inside_step_1", "inside_step_10",
                        "inside_step_100"}


def test_no_non_queued_route_reaches_a_queued_handler(served):
    demo, url, gate, calls = served
    queued = [fn.api_name for fn in demo.fns.values() if fn.queue and fn.api_name]
    assert "train_tokenizer" in queued and len(queued) > 20
    for name in queued:
        for route in ("run", "api"):
            response = httpx.post(f"{url}gradio_api/{route}/{name}", json={"data": []}, timeout=30)
            assert response.status_code == 404, (route, name, response.text)
            assert "does not accept direct HTTP POST" in response.text
    assert calls == []  # the handler never ran


def test_a_session_gets_one_compute_job_and_the_next_is_refused_with_a_message(served):
    demo, url, gate, calls = served
    assert join(url, demo, "train_tokenizer", TOKENIZER, "visitor-a").status_code == 200
    second = join(url, demo, "train_tokenizer", TOKENIZER, "visitor-a")
    assert second.status_code == 429
    assert "already has a job waiting or running" in second.json()["detail"]
    chinese = join(url, demo, "train_tokenizer", TOKENIZER, "visitor-a",
                   {"accept-language": "zh-CN,zh;q=0.9"})
    assert chinese.status_code == 429 and "任务" in chinese.json()["detail"]
    assert join(url, demo, "train_tokenizer", TOKENIZER, "visitor-b").status_code == 200


def test_one_client_cannot_fill_the_queue(served, monkeypatch):
    """Twenty sessions from one address: JOBS_PER_CLIENT get in, the rest are told why, and a
    visitor from another address still joins (before: 65 filled the queue, others got 503)."""
    demo, url, gate, calls = served
    # PLAYGROUND_TRUST_PROXY=1: the proxy's X-Forwarded-For names clients
    hosting.use(dataclasses.replace(hosting.current(), trust_proxy=True))
    flood = {"x-forwarded-for": "198.51.100.7"}
    answers = [join(url, demo, "train_tokenizer", TOKENIZER, f"fake-{i}", flood).status_code
               for i in range(20)]
    assert answers == [200] * guard.JOBS_PER_CLIENT + [429] * (20 - guard.JOBS_PER_CLIENT)
    refused = join(url, demo, "train_tokenizer", TOKENIZER, "fake-99", flood)
    assert "Too many jobs from your network" in refused.json()["detail"]
    other = join(url, demo, "train_tokenizer", TOKENIZER, "someone-else",
                 {"x-forwarded-for": "203.0.113.5"})
    assert other.status_code == 200
    assert len(demo._queue) <= guard.JOBS_PER_CLIENT + 1 < QUEUE_MAX_SIZE
    # the simple /call/ route counts against the same client
    call = httpx.post(f"{url}gradio_api/call/train_tokenizer", json={"data": ["char", 512]},
                      headers=flood, timeout=30)
    assert call.status_code == 429


def test_a_forwarded_address_counts_only_behind_a_trusted_proxy():
    """On a Space every connection comes from its proxy, so the client is the address the
    proxy appended to X-Forwarded-For (the last; PLAYGROUND_PROXY_HOPS counts more proxies);
    elsewhere it is the connection's (uvicorn itself already takes X-Forwarded-For from a
    proxy on 127.0.0.1)."""
    hosting.use(Hosting.from_env({}))  # no SYSTEM, SPACE_ID nor PLAYGROUND_TRUST_PROXY
    headers = {"x-forwarded-for": "203.0.113.9, 10.0.0.1"}
    assert guard.client_address(headers, "10.0.0.1") == "10.0.0.1"
    hosting.use(Hosting.from_env({"SYSTEM": "spaces"}))
    assert guard.client_address(headers, "10.0.0.2") == "10.0.0.1"
    assert guard.client_address({}, "10.0.0.1") == "10.0.0.1"
    hosting.use(Hosting.from_env({"SYSTEM": "spaces", "PLAYGROUND_PROXY_HOPS": "2"}))
    assert guard.client_address(headers, "10.0.0.2") == "203.0.113.9"


def test_a_client_cannot_become_many_by_writing_its_own_forwarded_header():
    """Before: 2,100 requests, each with a new X-Forwarded-For, were 2,100 clients (each with
    its own allowance of sessions and jobs). What a client writes stays left of what the
    proxy appends, so a new value on every request is still one client."""
    hosting.use(Hosting.from_env({"SYSTEM": "spaces"}))
    seen = {guard.client_address({"x-forwarded-for": f"198.51.100.{i}, 203.0.113.5"}, "10.0.0.1")
            for i in range(200)}
    assert seen == {"203.0.113.5"}


def read_response(sock) -> str:
    """One HTTP response from ``sock``: its head, then as much body as it declares."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096) or b"\r\n\r\n"
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return (head + b"\r\n\r\n" + body).decode()


def test_a_200_mb_request_is_refused_before_it_is_read(served):
    """The declared length alone refuses it; a body that does not declare one is cut off at
    MAX_BODY_BYTES as it arrives."""
    demo, url, *_ = served
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(b"POST /gradio_api/queue/join HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 209715200\r\n\r\n"
                     b'{"data": ["Paste text", null, "')
        answer = read_response(sock)
    assert answer.startswith("HTTP/1.1 413") and "larger than the 6.0 MB" in answer

    def chunks():  # 8 MB, undeclared
        for _ in range(8):
            yield b"a" * 2**20

    response = httpx.post(f"{url}gradio_api/queue/join", content=chunks(), timeout=30,
                          headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_values_longer_than_their_input_allows_are_refused_without_echoing_them(served):
    demo, url, *_ = served
    value = "Paste text" + "x" * 100_000  # a choice (Radio) 100 KB long
    response = join(url, demo, "use_corpus", [None, value, None, "hello"], "visitor-c")
    assert response.status_code == 422 and len(response.text) < 1000
    detail = response.json()["detail"]
    assert "100,010 long; this input takes at most 64" in detail and "xxxx" not in detail
    # a text box takes a real paste (the corpus's own 5 MB check decides about it)
    paste = join(url, demo, "use_corpus", [None, "Paste text", None, "to be " * 600_000], "visitor-c")
    assert paste.status_code == 200


def test_calls_gradio_would_refuse_with_a_traceback_get_one_line_instead(served, caplog):
    """A join naming a function the page lacks, and calls with too few values, printed a
    3 KB Gradio traceback each (the log grew 192 KB for 60 calls): now a 422 with our message
    and one log line."""
    demo, url, *_ = served
    body = {"data": [], "fn_index": 10_000, "session_hash": "visitor-d", "event_data": None,
            "trigger_id": None}
    with caplog.at_level(logging.INFO, logger="playground.ui"):
        missing = httpx.post(f"{url}gradio_api/queue/join", json=body, timeout=30)
        short = join(url, demo, "use_corpus", [], "visitor-d")
    assert missing.status_code == 422 and "no function 10000" in missing.json()["detail"]
    assert short.status_code == 422
    assert short.json()["detail"].startswith("The call sent 0 values where this function takes")
    refused = [r for r in caplog.records if r.getMessage().startswith("refused")]
    assert len(refused) == 2 and not any(r.exc_info for r in caplog.records)
    # the page's own calls, State included, still go through
    assert join(url, demo, "use_corpus", [None, "Paste text", None, "hello"], "visitor-d").status_code == 200


def test_monitoring_and_exception_text_are_closed(served):
    demo, url, *_ = served
    assert httpx.get(f"{url}monitoring/summary", timeout=30).status_code in (403, 404)
    assert demo.show_error is False


def test_the_guard_bounds_match_the_app(served):
    """The body limit holds the largest upload or paste the page takes, and no more."""
    from playground.ui.corpus_tab import MAX_UPLOAD_BYTES

    assert MAX_UPLOAD_BYTES < guard.MAX_BODY_BYTES <= MAX_UPLOAD_BYTES + 2**20
    demo, *_ = served
    assert json.loads(json.dumps(demo.config["max_file_size"])) == MAX_UPLOAD_BYTES


def test_the_cache_sweep_spares_the_files_of_live_sessions_only(tmp_path):
    """Gradio's hourly sweep deleted a live session's bundle (Export then failed with its
    FileNotFoundError); now it removes what no live session holds, and a released session's
    folder goes with the session."""
    from gradio.route_utils import delete_files_created_by_app

    from playground.ui.session import LIVE_FILES, Session, app_temp_dir

    demo = build_demo()
    live = Session()
    bundle = live.workdir() / "playground-model-step3.zip"
    bundle.write_bytes(b"a bundle")
    orphan = app_temp_dir() / "no-such-session" / "old.zip"  # a session that is gone
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"old")
    for path in (bundle, orphan):  # what Gradio records for every file the page served
        demo.temp_file_sets[0].add(str(path))
    delete_files_created_by_app(demo, age=None)
    assert bundle.exists() and not orphan.exists()
    live.release()
    assert not bundle.exists() and live.id not in LIVE_FILES.sessions


def test_a_model_that_is_training_is_lent_to_no_other_handler():
    """With PLAYGROUND_CONCURRENCY=2 a Generate during training switched the model to eval mode
    and changed the run's result: every handler that takes the model refuses while it trains."""
    import gradio as gr

    from playground.i18n import msg
    from playground.trained import TrainedModel
    from playground.ui.session import Session, require_model

    session = Session()
    session.trained = TrainedModel(model=None, tokenizer=None, model_config=None, train_config=None)
    assert require_model(session, msg("generate with")) is session.trained
    session.run.running = True
    with pytest.raises(gr.Error, match=r"The model is training right now: wait for the run to end "
                                       r"\(or press Stop\), then generate with it\."):
        require_model(session, msg("generate with"))
    session.lang = "zh-CN"
    with pytest.raises(gr.Error, match="模型正在训练"):
        require_model(session, msg("look inside"))


def test_one_client_cannot_fill_the_disk_with_uploads(monkeypatch):
    """Before: 5 MB files without a session, as many as the client liked (200 MB in 1.6 s)."""
    monkeypatch.setattr(guard, "UPLOAD_BYTES_PER_HOUR", 2**20)  # 1 MB an hour, for the test
    hosting.use(dataclasses.replace(hosting.current(), trust_proxy=True))  # PLAYGROUND_TRUST_PROXY=1
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    try:
        def upload(address):
            return httpx.post(f"{url}gradio_api/upload", headers={"x-forwarded-for": address},
                              files={"files": ("notes.txt", b"a" * 300_000)}, timeout=30)

        answers = [upload("198.51.100.7").status_code for _ in range(5)]
        assert answers == [200, 200, 200, 429, 429]
        assert "uploaded 1.0 MB in the last hour" in upload("198.51.100.7").json()["detail"]
        assert upload("203.0.113.5").status_code == 200  # another client is not held back
        # and Gradio's deep links, which wrote the session's state to disk on every call, are closed
        assert httpx.get(f"{url}gradio_api/deep_link", params={"session_hash": "x"},
                         timeout=30).status_code == 404
    finally:
        demo.close()


def served_behind_a_proxy():
    """The app launched behind a trusted proxy (its X-Forwarded-For names clients): (demo,
    url, Start's values with the default preset)."""
    from playground.config import DEFAULT_PRESET
    from playground.settings import PageSettings

    hosting.use(dataclasses.replace(hosting.current(), trust_proxy=True))
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    return demo, url, [None, False, *PageSettings.preset(DEFAULT_PRESET).as_list()]


def test_one_network_cannot_hold_every_training_slot(monkeypatch):
    """Issue 27, item 3: sixteen runs from one address filled the sixteen runs that take turns,
    and another visitor's Start waited in the queue until they ended (240 s, and on). Now one
    network holds at most ``hosting.network_runs`` of them (12), the rest are told why, and a
    run from another address starts at once."""
    import gradio as gr

    from playground.ui import train_tab

    gate, started = threading.Event(), {}
    newcomer_started = threading.Event()

    def held_training(request: gr.Request, *values):  # a run that holds its slot, no CPU spent
        address = request.headers.get("x-forwarded-for")
        started[address] = started.get(address, 0) + 1
        if address == "203.0.113.5":
            newcomer_started.set()
        gate.wait(HELD_OPEN_S)
        return (gr.skip(),) * 6

    monkeypatch.setattr(train_tab, "train_model", held_training)
    demo, url, values = served_behind_a_proxy()
    try:
        flood = {"x-forwarded-for": "198.51.100.7"}
        answers = [join(url, demo, "train_model", values, f"flood-{i}", flood)
                   for i in range(hosting.max_runs())]
        kept = hosting.network_runs()
        assert kept == 12 and [a.status_code for a in answers] == [200] * kept + [429] * (16 - kept)
        assert "Your network already has 12 training runs" in answers[-1].json()["detail"]
        chinese = join(url, demo, "train_model", values, "flood-zh",
                       {**flood, "accept-language": "zh-CN"})
        assert chinese.status_code == 429 and "训练" in chinese.json()["detail"]
        newcomer = join(url, demo, "train_model", values, "newcomer",
                        {"x-forwarded-for": "203.0.113.5"})
        assert newcomer.status_code == 200
        # (a bound, not a timing: before, it never started while the flood held its slots)
        assert newcomer_started.wait(HELD_OPEN_S / 2), started
        assert started["198.51.100.7"] <= kept
    finally:
        gate.set()
        demo.close()


def test_a_run_takes_turns_as_its_clients_network(monkeypatch):
    """The network a run's turns count against is the one the guard counts its jobs against
    (``guard.address_of``: behind the trusted proxy, its X-Forwarded-For address)."""
    from playground import runs
    from playground.config import ConfigError
    from playground.i18n import msg

    asked = []

    def recorded_start_run(*args, network=None, **kwargs):  # what the handler passes on
        asked.append(network)
        raise ConfigError(msg("Not now."))

    monkeypatch.setattr(runs, "start_run", recorded_start_run)
    demo, url, values = served_behind_a_proxy()
    try:
        answer = join(url, demo, "train_model", values, "visitor",
                      {"x-forwarded-for": "198.51.100.7, 203.0.113.5"})
        assert answer.status_code == 200
        with httpx.stream("GET", f"{url}gradio_api/queue/data?session_hash=visitor",
                          timeout=30) as events:
            for line in events.iter_lines():
                if "process_completed" in line:
                    break
        assert asked == ["203.0.113.5"]  # the proxy's, not what the client wrote
    finally:
        demo.close()
