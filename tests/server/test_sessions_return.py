"""Coming back to the page (issue 13, part 5) and sessions floods cannot evict (issue 14):
a reload finds the model, a closed page's run stops and is saved, the grace period ends,
a wrong token finds nothing, SIGTERM keeps the bundles for a later load, new sessions per
client are capped, eviction takes empty sessions first, and the disk budget refuses a save
before it starts. Tiny runs, 127.0.0.1 only."""

import dataclasses
import json
import os
import signal
import threading
import time
import types
from pathlib import Path

import gradio as gr
import httpx
import pytest
import torch
from checks import page_settings, sessions_of, wait_for
from gradio_client import Client

from playground.checkpoint import load_bundle
from playground.runtime import hosting, sessions
from playground.runtime.hosting import SESSION_DISK_MB, Hosting
from playground.runtime.sessions import SessionRegistry, new_token, token_digest
from playground.train import EndRecord
from playground.server import reattach
from playground.ui import corpus_tab, generate_tab, tokenizer_tab, train_tab
from playground.ui.app import build_demo, launch
from playground.ui.session import LIVE_FILES, Session, app_temp_dir
from playground.settings import PageSettings

ENDLESS = dict(max_steps=1_000_000, eval_interval=100_000)
NO_DEMO = types.SimpleNamespace()  # sweep() of handlers alone: no Gradio entries to look at


@pytest.fixture(autouse=True)
def registry(monkeypatch, tmp_path):
    """A registry of this test's own (the module's is the process's), and a data folder."""
    fresh = SessionRegistry(grace_s=600)
    monkeypatch.setattr(reattach, "REGISTRY", fresh)
    monkeypatch.setattr(reattach, "_unheld", {})
    hosting.use(Hosting(data_dir=tmp_path / "data"))  # PLAYGROUND_DATA_DIR
    return fresh


def ready_session(text: str) -> Session:
    session, _, _ = corpus_tab.use_corpus(None, "Paste text", None, text)
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    return session


def trained_session(text: str, **changes) -> Session:
    session = ready_session(text)
    list(train_tab.train_model(session, False, *page_settings(**changes)))
    assert session.trained is not None and session.trained.bundle_path
    return session


def come_back(fresh: Session, token, query=None) -> tuple:
    """What the page load's first event returns for a page holding ``fresh`` and ``token``."""
    request = gr.Request(headers={"accept-language": "en"}, query_params=query or {})
    return reattach.come_back(fresh, token, request)


def weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def same_weights(a, b) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def is_skip(value) -> bool:
    return isinstance(value, dict) and value.get("__type__") == "update" and len(value) == 1


def steps_trained(session: Session) -> int:
    trained = session.trained
    return sum(type(r).__name__ == "StepRecord" for r in trained.history) if trained else 0


# --- a reload finds the session ---------------------------------------------------------------

def test_a_reload_finds_the_model_its_runs_and_shows_them(tiny_text):
    session = trained_session(tiny_text, sample_tokens=8)
    first = come_back(session, None)  # the first page: a new token, stored by the browser
    token = first[1]
    assert sessions.valid_token(token) and first[0] is session
    reattach.let_go(session)  # the page closed (close_tab: no other page holds it)
    assert reattach.REGISTRY.closed_since(session) is not None and session.trained is not None

    fresh = Session()
    page = come_back(fresh, token)
    assert page[0] is session and page[1] == token  # the new page's state is the old session
    assert reattach.REGISTRY.closed_since(session) is None  # its grace period is over
    assert page[2].selected == "train"  # the tab with the status line and the download
    status, download, samples = page[3], page[4], page[5]
    assert status.startswith("**Welcome back.** Your model is still here: ")
    assert f"{session.trained.model.num_params():,} parameters, trained 6 steps" in status
    assert download.value["path"] == session.trained.bundle_path
    assert Path(download.value["path"]).is_file()
    assert samples.startswith("── step 6 · validation loss")  # the newest evaluation first
    shown = PageSettings.from_list(list(page[7:]))
    assert shown == PageSettings.from_configs(session.trained.model_config,
                                              session.trained.train_config)
    assert session.runs.names() == ["run 1"]  # the Compare tab's history
    again = reattach.come_back(session, token, gr.Request(headers={}),
                               show_tab=False)  # the page, back in view, asks again
    assert again[0] is session and all(is_skip(value) for value in again[2:])  # nothing lost
    # the Generate tab works at once, with the model that came back
    written = list(generate_tab.generate_text(page[0], "To", 12, 1.0, 0, 1.0, 7))[-1][1]
    assert written.startswith("To") and len(written) == 14


def test_a_shared_link_in_the_address_keeps_its_settings_and_chinese_is_spoken(tiny_text):
    session = trained_session(tiny_text)
    token = come_back(session, None)[1]
    reattach.let_go(session)
    page = come_back(Session(), token, query={"v": "1", "n_layer": "2", "lang": "zh-CN"})
    assert page[0] is session and page[3].startswith("**欢迎回来。**")
    assert all(is_skip(value) for value in page[7:])  # the link's settings win


def test_a_wrong_token_or_a_leaked_session_hash_finds_nothing(tiny_text):
    session = trained_session(tiny_text)
    token = come_back(session, None)[1]
    reattach.let_go(session)
    near = token[:-1] + ("A" if token[-1] != "A" else "B")
    for guess in (new_token(), near, session.id, token_digest(token), None, 12345, "x" * 10_000):
        fresh = Session()
        page = come_back(fresh, guess)
        assert page[0] is fresh and fresh.trained is None, guess
        assert page[1] != token and sessions.valid_token(page[1])
        assert all(is_skip(value) for value in page[2:])
    assert come_back(Session(), token)[0] is session  # the real token still does


def test_after_the_grace_period_the_model_and_its_files_are_freed(tiny_text):
    session = trained_session(tiny_text)
    token = come_back(session, None)[1]
    folder = app_temp_dir() / session.id
    reattach.let_go(session)
    now = time.monotonic()
    reattach.sweep(NO_DEMO, now=now + 599)
    assert session.trained is not None and folder.is_dir()
    reattach.sweep(NO_DEMO, now=now + 601)
    assert session.trained is None and session.run.released
    assert not folder.exists() and session.id not in LIVE_FILES.sessions
    fresh = Session()
    assert come_back(fresh, token)[0] is fresh


def test_an_empty_session_or_no_grace_frees_at_once(tiny_text, registry):
    empty = Session()
    come_back(empty, None)
    reattach.let_go(empty)  # nothing in it: nothing to come back to
    assert empty.run.released and reattach.REGISTRY.sessions() == []
    registry.grace_s = 0  # PLAYGROUND_GRACE_S=0: closed pages free at once, as before
    session = trained_session(tiny_text)
    come_back(session, None)
    reattach.let_go(session)
    assert session.trained is None and session.run.released


def test_an_in_grace_sessions_download_survives_gradios_cache_sweep(tiny_text):
    from gradio.route_utils import delete_files_created_by_app

    demo = build_demo()
    session = trained_session(tiny_text)
    come_back(session, None)
    reattach.let_go(session)
    bundle = session.trained.bundle_path
    demo.temp_file_sets[0].add(bundle)  # what Gradio records for a file the page served
    delete_files_created_by_app(demo, age=None)
    assert Path(bundle).is_file()


# --- a page closed mid-run ----------------------------------------------------------------------

def start_endless(session: Session):
    run = train_tab.train_model(session, False, *page_settings(**ENDLESS))
    while steps_trained(session) < 3:
        next(run)
    return run


def test_a_page_closed_mid_run_stops_it_and_its_model_is_saved_for_its_return(tiny_text):
    session = ready_session(tiny_text)
    token = come_back(session, None)[1]
    run = start_endless(session)
    reattach.let_go(session)  # the page closed
    assert session.run.stop_requested
    run.close()  # and Gradio closes the handler of a page that went away, before it saves
    assert not session.run.running
    step = session.trained.trainer_state["step"]
    page = come_back(Session(), token)  # the reload saves what the closed run left unsaved
    assert page[0] is session and f"trained {step} steps" in page[3]
    end = session.trained.history[-1]
    assert isinstance(end, EndRecord) and (end.reason, end.step) == ("stopped", step)
    bundle = load_bundle(page[4].value["path"])
    assert same_weights(weights(bundle.model), weights(session.trained.model))
    assert bundle.trainer_state["step"] == step and bundle.history[-1].reason == "stopped"
    assert session.runs.names() == ["run 1"]


def test_a_run_told_to_stop_by_a_closed_page_saves_its_own_bundle(tiny_text):
    session = ready_session(tiny_text)
    come_back(session, None)
    run = start_endless(session)
    reattach.let_go(session)
    updates = list(run)  # a handler Gradio did not close ends after its step, as Stop does
    assert "Stopped." in updates[-1][2] and not session.run.running
    saved = session.trained.bundle_path
    assert reattach.finish_interrupted(session) == saved  # nothing left to finish
    assert load_bundle(saved).trainer_state["step"] == session.trained.trainer_state["step"]


# --- SIGTERM --------------------------------------------------------------------------------

def test_sigterm_stops_runs_keeps_bundles_and_a_later_load_finds_them(tiny_text, monkeypatch,
                                                                    tmp_path):
    idle = trained_session(tiny_text)
    idle_token = come_back(idle, None)[1]
    busy = ready_session(tiny_text)
    busy_token = come_back(busy, None)[1]
    run = train_tab.train_model(busy, False, *page_settings(**ENDLESS))
    worker = threading.Thread(target=lambda: list(run), daemon=True)
    worker.start()
    wait_for(lambda: steps_trained(busy) >= 3, "the run to take a few steps")

    kept = reattach.save_for_restart()
    assert sorted(kept) == sorted([token_digest(idle_token), token_digest(busy_token)])
    worker.join(60)
    assert not busy.run.running and busy.trained.history[-1].reason == "stopped"
    stored = sorted(p.relative_to(tmp_path / "data").as_posix()
                    for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert stored == sorted(f"returning/{d}/bundle.zip" for d in kept)  # digests, no token
    expected = weights(busy.trained.model)

    monkeypatch.setattr(reattach, "REGISTRY", SessionRegistry(600))  # a new process
    fresh = Session()
    page = come_back(fresh, busy_token)
    assert page[0] is fresh and fresh.trained is not None
    assert same_weights(weights(fresh.trained.model), expected)
    assert page[3].startswith("**Welcome back.** The server restarted since your last visit")
    assert Path(page[4].value["path"]).parent == app_temp_dir() / fresh.id  # its own download
    assert reattach.return_store().find(token_digest(busy_token)) is None  # taken, not copied
    other = Session()
    assert come_back(other, new_token())[0].trained is None
    assert reattach.REGISTRY.find(busy_token) is fresh


def test_a_bundle_kept_by_an_older_playground_comes_back_in_todays_format():
    """A format-1 bundle kept over the restart that brought format 2: the download is format 2,
    which the exported standalone script reads."""
    token = new_token()
    reattach.return_store().put(token_digest(token), Path(__file__).parents[1] / "fixtures" /
                                "format1-tiny.zip")
    fresh = Session()
    page = come_back(fresh, token)
    assert fresh.trained is not None and fresh.trained.meta["upgraded_from"] == 1
    download = load_bundle(page[4].value["path"])
    assert download.meta["format_version"] == 2 and "upgraded_from" not in download.meta
    assert download.history == fresh.trained.history


def test_the_sigterm_handler_saves_then_ends_as_ctrl_c_does(tiny_text):
    session = trained_session(tiny_text)
    token = come_back(session, None)[1]
    previous = signal.getsignal(signal.SIGTERM)
    try:
        reattach.install_sigterm()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs in this thread before the sleep ends
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert reattach.return_store().find(token_digest(token)) is not None


# --- floods: new sessions, capacity, time-to-live -------------------------------------------

@pytest.fixture
def served(monkeypatch):
    hosting.use(dataclasses.replace(hosting.current(), new_sessions_per_min=3))
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    yield demo, url
    demo.close()


def test_new_sessions_from_one_address_are_capped_per_minute(served):
    demo, url = served
    index = next(i for i, fn in demo.fns.items() if fn.api_name == "share_link")

    def join(session_hash, lang="en"):
        return httpx.post(f"{url}gradio_api/queue/join", headers={"accept-language": lang},
                          json={"data": [None] * len(demo.fns[index].inputs), "fn_index": index,
                                "session_hash": session_hash},
                          timeout=30)

    assert [join(f"flood-{n}").status_code for n in range(3)] == [200] * 3
    refused = join("flood-3")
    assert refused.status_code == 429
    assert refused.json()["detail"] == ("This network opened 3 new sessions of this page in the "
                                        "last minute, as many as it may; wait a minute, then "
                                        "reload the page.")
    assert join("flood-1").status_code == 200  # a session already counted goes on
    assert "新会话" in join("flood-4", "zh-CN").json()["detail"]
    other_door = httpx.post(f"{url}gradio_api/component_server", timeout=30, json={
        "session_hash": "flood-5", "component_id": 0, "fn_name": "x", "data": None})
    assert other_door.status_code == 429  # Gradio's other route that opens a session
    assert len(demo.server_app.state_holder.session_data) <= 3


def test_a_paste_and_what_the_page_draws_are_not_kept_in_gradios_page_config(served):
    """Gradio copies every value in and out of a session into its page config, for deep links
    (closed here): a 5 MB paste stayed there, about 6 MB a visitor, while the session lived.
    Before: the largest value held was the whole paste."""
    demo, url = served
    paste = "".join(f"line {n} of a long pasted text, all of it different\n" for n in range(20_000))
    client = Client(url, verbose=False, analytics_enabled=False)
    try:
        summary, _ = client.predict("Paste text", None, paste, api_name="/use_corpus")
        assert f"{len(paste):,} characters" in summary  # the paste arrived and was used
        client.predict("char", 512, api_name="/train_tokenizer")
        states = list(demo.server_app.state_holder.session_data.values())
        assert states
        held = max(len(json.dumps(state.config_values, default=str)) for state in states)
        assert held < 20_000, held  # the paste is 1 MB; the page's own config of a block, kB
    finally:
        client.close()


def session_block(demo) -> int:
    return next(b._id for b in demo.blocks.values()
                if isinstance(b, gr.State) and b.delete_callback is reattach.release_held)


def test_when_the_server_is_full_empty_sessions_go_first_never_a_model_in_use(served, tiny_text):
    demo, _ = served
    holder, key = demo.server_app.state_holder, session_block(demo)
    model = trained_session(tiny_text)
    closed = trained_session(tiny_text)
    come_back(closed, None)
    reattach.let_go(closed)  # a model whose page has closed, waiting in its grace period
    work = ready_session(tiny_text)  # a corpus and a tokenizer, no model
    for name, session in (("model", model), ("work", work), ("empty", Session())):
        holder[name][key] = session
    holder["stateless"]  # an entry that never touched our state (a flood's)
    assert set(holder.session_data) == {"model", "work", "empty", "stateless"}

    def room_at(capacity):
        demo.playground_capacity = capacity
        return reattach.make_room(demo)

    assert room_at(4) and set(holder.session_data) == {"model", "work"}  # 5 held: 2 went
    assert room_at(3) and set(holder.session_data) == {"model"} and work.run.released
    assert room_at(2) and closed.trained is None  # then the closed page's model
    assert not room_at(1)  # the model a page holds never goes: no room
    assert set(holder.session_data) == {"model"} and model.trained is not None
    holder.capacity = 1  # and Gradio's own least-recently-used eviction is off
    holder["newcomer"]
    assert "model" in holder.session_data


def test_a_closed_tab_lets_its_session_go_unless_another_page_holds_it(served, tiny_text):
    demo, _ = served
    holder, key = demo.server_app.state_holder, session_block(demo)
    session = trained_session(tiny_text)
    come_back(session, None)
    holder["first tab"][key] = session
    holder["second tab"][key] = session  # the same browser's other tab came back to it
    reattach.release_held(session)  # one tab's time-to-live passed: the other holds it too
    assert session.trained is not None and not session.run.released
    reattach.close_tab(demo, "first tab")
    assert "first tab" not in holder.session_data  # Gradio's entry goes at once
    assert reattach.REGISTRY.closed_since(session) is None  # the other tab still holds it
    reattach.close_tab(demo, "second tab")
    assert holder.session_data == {} and reattach.REGISTRY.closed_since(session) is not None
    assert session.trained is not None and Path(session.trained.bundle_path).is_file()
    holder["api client"][key] = api = trained_session(tiny_text)  # no page token: no return
    reattach.close_tab(demo, "api client")
    assert api.trained is None and api.run.released


def test_a_page_back_on_a_new_heartbeat_keeps_its_session_when_the_old_one_drops(
        monkeypatch, tiny_text):
    """A phone back from another app connects again before the server notices its old
    connection dropped: that late unload must not take the session from the page."""
    monkeypatch.setenv("GRADIO_HEARTBEAT_INTERVAL", "1")
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    http = httpx.Client(timeout=None)
    try:
        holder, key = demo.server_app.state_holder, session_block(demo)
        session = trained_session(tiny_text)
        come_back(session, None)
        holder["phone"][key] = session
        old = http.stream("GET", f"{url}gradio_api/heartbeat/phone")
        old.__enter__()
        new = http.stream("GET", f"{url}gradio_api/heartbeat/phone")
        new.__enter__()
        wait_for(lambda: reattach.OPEN_HEARTBEATS["phone"] == 2, "both connections")
        old.__exit__(None, None, None)  # the old one drops: its unload runs inside it
        wait_for(lambda: reattach.OPEN_HEARTBEATS["phone"] == 1, "the old connection's end")
        assert "phone" in holder.session_data and reattach.REGISTRY.closed_since(session) is None
        new.__exit__(None, None, None)  # now the page is gone
        wait_for(lambda: "phone" not in reattach.OPEN_HEARTBEATS, "the last connection's end")
        assert "phone" not in holder.session_data
        assert reattach.REGISTRY.closed_since(session) is not None and session.trained is not None
    finally:
        http.close()
        demo.close()


def test_at_its_time_to_live_gradios_entry_goes_with_the_session(tiny_text):
    demo = build_demo(session_ttl_s=1.0)
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    client = Client(url, verbose=False, analytics_enabled=False)
    try:
        client.predict("Paste text", None, tiny_text, api_name="/use_corpus")
        holder = demo.server_app.state_holder
        (session,) = sessions_of(demo, client.session_hash)
        wait_for(lambda: session.run.released, "the session's time-to-live to pass")
        wait_for(lambda: client.session_hash not in holder.session_data,
                 "Gradio's entry, with the pasted text in its config, to go too")
    finally:
        client.close()
        demo.close()


# --- the disk budget ---------------------------------------------------------------------------

def test_a_save_past_the_disk_budget_is_refused_before_it_starts_and_loses_nothing(
        tiny_text, monkeypatch):
    session = trained_session(tiny_text)
    folder = app_temp_dir() / session.id
    saved = Path(session.trained.bundle_path)
    before = saved.read_bytes()
    hosting.use(dataclasses.replace(hosting.current(), session_disk_mb=0.001))  # 1 KB a visitor
    with pytest.raises(gr.Error, match=r"past this server's limit of 1\.0 KB per visitor, so it "
                                       r"was not saved; everything saved before is kept"):
        list(train_tab.train_model(session, False, *page_settings(seed=5)))
    assert sorted(folder.glob("*.zip")) == [saved] and saved.read_bytes() == before
    assert not list(folder.glob(".*.tmp"))  # nothing begun either
    assert session.trained is not None and session.trained.train_config.seed == 5  # kept here
    hosting.use(dataclasses.replace(hosting.current(), session_disk_mb=SESSION_DISK_MB,
                                    app_disk_mb=0.001))
    session.lang = "zh-CN"
    with pytest.raises(gr.Error, match="本服务器存放模型的空间"):
        list(train_tab.train_model(session, False, *page_settings(seed=6)))
    assert sorted(folder.glob("*.zip")) == [saved] and saved.read_bytes() == before
