"""Coming back to the page, and the sessions the server holds: how long, how many, for whom.

A phone that switches apps drops the page's heartbeat, and a reload is a close and a new page.
So a page's session is not freed when its page closes:

* the page keeps a random secret in the browser's storage (``token_state``: a
  ``gr.BrowserState`` holding ``sessions.new_token()``); on load (``come_back``) the server
  finds the session filed under that token (``REGISTRY``) and it becomes the new page's
  ``gr.State`` value: its model, tokenizer, corpus, runs and Compare history come back, and
  the page shows its status line, download button, samples and settings. The session hash
  Gradio sends with every request plays no part, so a leaked hash hands over no model.
* a closed page (``close_tab``, from ``demo.unload``) lets its session go: its run stops
  after the current step, and once it has ended its bundle is saved (``finish_interrupted``);
  the session waits ``sessions.grace_seconds()`` (10 minutes, ``PLAYGROUND_GRACE_S``), its
  files kept out of Gradio's cache sweep (``session.LIVE_FILES``), then it is freed. A session
  with nothing in it, or one an API client made (no token), is freed at once as before.
* on SIGTERM (a Space gets one on every push) ``save_for_restart`` stops every run after its
  step, waits a few seconds for each, and copies each returning visitor's bundle into
  ``disk.ReturnStore`` under the digest of its token; the next page load with that token
  loads it back through ``train_tab.upload_bundle``, the upload's own path.
* the server holds at most ``sessions.session_capacity`` sessions, sized to its memory. When
  a new one comes (``make_room``, from ``guard.new_session_refusal``), what goes is chosen by
  ``sessions.eviction_order``: empty sessions first, never a model a page holds; Gradio's own
  least-recently-used eviction, which skipped our callbacks and took trained models, is off.
  Gradio's entry for a session (its copy of the page's config, a pasted text in it) goes
  with ours, at close, at its time-to-live, at eviction, and when idle and empty (``sweep``).
"""

from __future__ import annotations

import collections
import logging
import shutil
import signal
import threading
import time
import urllib.parse
import weakref
from pathlib import Path
from typing import Any

import gradio as gr
import torch

from playground import describe, ready, runs
from playground.checkpoint import save_bundle
from playground.export.links import KEYS as LINK_KEYS
from playground.i18n import normalize_language, t
from playground.runtime import disk, sessions
from playground.runtime.device import RECLAIMER, available_memory
from playground.server import gradio_internals
from playground.train import EvalRecord
from playground.ui import train_tab
from playground.ui.outputs import Outputs
from playground.ui.session import LIVE_FILES, Session, app_temp_dir
from playground.settings import SETTINGS, PageSettings

log = logging.getLogger("playground.ui")

STORAGE_KEY = "transformer-playground-session"
# Gradio encrypts a BrowserState with a key it sends to the page in the config, so the key
# hides nothing from the browser; it must only stay the same across restarts (Gradio draws a
# new one per process by default), or a restarted server could not read the page's token.
BROWSER_SECRET = "transformer-playground-browser-state"
SWEEP_S = 5.0  # how often closed pages' sessions, idle entries and old bundles are looked at
EMPTY_IDLE_S = 600.0  # a Gradio entry with no session of ours is dropped this long after use
UNHELD_S = 30.0  # a session no page holds (and none closed) is let go after this long
RUN_END_WAIT_S = 5.0  # a page load waits this long for a closed page's run to end
STOP_WAIT_PER_RUN_S = 3.0  # on SIGTERM, for each run going...
STOP_WAIT_MAX_S = 6.0  # ...and at most this in all (Docker sends SIGKILL 10 s after SIGTERM)

REGISTRY = sessions.SessionRegistry(sessions.grace_seconds())
SERVED: weakref.WeakSet = weakref.WeakSet()  # the launched demos whose entries hold sessions
_FINISHING = threading.Lock()  # one interrupted run's bundle saved at a time
_unheld: dict[int, float] = {}  # id(session) -> when a sweep first found no page holding it
OPEN_HEARTBEATS: collections.Counter = collections.Counter()  # session hash -> connections open
# A page coming back into view (a phone switching back to the browser) asks again: if the
# server let its session go meanwhile (the heartbeat dropped), the page gets it back at once.
AGAIN_ID = "reattach-again"
VISIBLE_JS = """() => {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") {
      document.querySelector("#%s")?.click();
    }
  });
}""" % AGAIN_ID


def return_store() -> disk.ReturnStore:
    """Where SIGTERM leaves bundles for returning visitors (``disk.returns_dir()``)."""
    return disk.ReturnStore(disk.returns_dir(), keep_s=REGISTRY.grace_s)


def capacity() -> int:
    """How many sessions the server holds (``sessions.session_capacity`` of the memory free
    now); past it, ``make_room`` chooses what goes."""
    return sessions.session_capacity(available_memory(torch.device("cpu")))


def token_state() -> gr.BrowserState:
    """The page's secret, kept in the browser's storage across reloads and restarts."""
    return gr.BrowserState(None, storage_key=STORAGE_KEY, secret=BROWSER_SECRET)


def has_work(session: Session) -> bool:
    """Whether ``session`` holds anything a visitor made (else freeing it loses nothing)."""
    return (ready.has_own_model(session) or bool(session.runs.names())
            or session.corpus is not None or session.tokenizer is not None)


# --- who holds a session --------------------------------------------------------------------

def holding(session: Session) -> list[tuple[gr.Blocks, str]]:
    """(demo, session hash) of every Gradio entry whose state holds ``session``."""
    found = []
    for demo in list(SERVED):
        if not gradio_internals.serves_sessions(demo) or not gradio_internals.is_running(demo):
            continue
        for session_hash, values in gradio_internals.session_states(demo).items():
            if any(value is session for value in values.values()):
                found.append((demo, session_hash))
    return found


def _held_ids() -> set[int]:
    """``id()`` of every session some Gradio entry holds (one pass over all of them)."""
    return {id(value) for demo in list(SERVED) if gradio_internals.is_running(demo)
            for values in gradio_internals.session_states(demo).values()
            for value in values.values() if isinstance(value, Session)}


def _our_sessions(values: dict[int, Any]) -> list[tuple[int, Session]]:
    """(block id, session) of each of our sessions among an entry's ``gr.State`` values."""
    return [(key, value) for key, value in values.items() if isinstance(value, Session)]


def _take_out(demo: gr.Blocks, session_hash: str) -> list[Session]:
    """Gradio's entry for ``session_hash`` goes with its state, our sessions taken out of it
    first so Gradio's callback does not free them; returns those of them that no other page
    holds, for the caller to free or let go."""
    ours = _our_sessions(gradio_internals.state_values(demo, session_hash))
    gradio_internals.take_out_values(demo, session_hash, [key for key, _ in ours])
    gradio_internals.delete_states(demo, session_hash)
    gradio_internals.drop_session(demo, session_hash)
    return [session for _, session in ours if not holding(session)]


def free(session: Session) -> None:
    """Free ``session`` now: its model and files go, and it is filed nowhere any more."""
    REGISTRY.forget(session)
    _unheld.pop(id(session), None)
    had_model = session.has_model
    session.release()
    if had_model and session.run.current is None:  # no run holds the model: its memory goes back
        RECLAIMER.soon()  # (once for a burst of frees, from a thread of its own)


def let_go(session: Session) -> None:
    """No page holds ``session`` any more: a page's session with work in it waits for its
    browser to come back (its run stops after the current step); any other is freed now."""
    if REGISTRY.grace_s > 0 and has_work(session) and REGISTRY.let_go(session):
        _unheld.pop(id(session), None)
        session.run.request_stop()  # at once, inside an evaluation too
        return
    free(session)


async def follow_heartbeat(app, scope, receive, send) -> None:
    """Serve a page's heartbeat connection (``guard.RequestGuard``), counting those open per
    session hash. Gradio runs a dropped connection's unload inside it, so ``close_tab`` sees
    it counted, and any more mean the page has connected again (a phone back from another app
    whose old connection the server noticed late): then nothing closes."""
    session_hash = scope.get("path", "").rstrip("/").rsplit("/", 1)[-1]
    OPEN_HEARTBEATS[session_hash] += 1
    try:
        await app(scope, receive, send)
    finally:
        OPEN_HEARTBEATS[session_hash] -= 1
        if OPEN_HEARTBEATS[session_hash] <= 0:
            del OPEN_HEARTBEATS[session_hash]


async def follow_stream(app, scope, receive, send) -> None:
    """Serve a page's result stream (``/queue/data``, ``guard.RequestGuard``), noting it open
    for its session hash (``sessions.STREAMS``): the sweep ends the jobs of pages that never
    open theirs (``end_unread_jobs``)."""
    query = urllib.parse.parse_qs((scope.get("query_string") or b"").decode("latin-1"))
    session_hash = (query.get("session_hash") or [""])[0]
    if not session_hash:
        return await app(scope, receive, send)
    sessions.STREAMS.opened(session_hash)
    try:
        await app(scope, receive, send)
    finally:
        sessions.STREAMS.closed(session_hash)


def end_unread_jobs(demo: gr.Blocks, now: float | None = None) -> None:
    """End the jobs of pages whose results have waited unread for ``sessions.UNREAD_S`` with no
    stream of theirs open, and drop what waited: a client that joins a run and never reads it
    made the server keep every update (about 250 MB a run, kept after it had gone). Their runs
    are asked to stop too (they would end at their next update anyway)."""
    for session_hash in sessions.STREAMS.unread(gradio_internals.waiting_messages(demo), now):
        for _, session in _our_sessions(gradio_internals.state_values(demo, session_hash)):
            session.run.request_stop()
        dropped = gradio_internals.end_unread(demo, session_hash)
        log.info("ended the jobs of a page that read none of its results for %.0f s "
                 "(%d messages dropped)", sessions.STREAMS.unread_s, dropped)


def close_tab(demo: gr.Blocks, session_hash: str | None) -> None:
    """A page closed (``demo.unload``): Gradio's entry for it goes now (Gradio alone would
    keep it an hour), and its session is let go unless another page of the browser holds it.
    Nothing closes while a newer heartbeat connection of the same page is open."""
    if not session_hash or not gradio_internals.has_session(demo, session_hash):
        return
    if OPEN_HEARTBEATS.get(session_hash, 0) > 1:  # the page is back on a new connection
        gradio_internals.reopen(demo, session_hash)
        return
    for session in _take_out(demo, session_hash):
        let_go(session)


def release_held(session: Session | None) -> None:
    """``gr.State``'s delete callback (a session past its time-to-live, or evicted): freed
    with its Gradio entry, unless another page holds it too."""
    if session is None:
        return
    holders = holding(session)
    if len(holders) > 1:  # the entry being deleted is one of them: another page holds it
        return
    free(session)
    for demo, session_hash in holders:
        gradio_internals.drop_session(demo, session_hash)


# --- a run whose page went away -------------------------------------------------------------

def finish_interrupted(session: Session) -> str | None:
    """``runs.finish_interrupted``, one session at a time (a page load and SIGTERM may both
    ask)."""
    with _FINISHING:
        return runs.finish_interrupted(session)


def _wait_for_run(session: Session, limit_s: float) -> bool:
    """Wait (at most ``limit_s``) for ``session``'s run to end; whether it has."""
    deadline = time.monotonic() + limit_s
    while session.run.running and time.monotonic() < deadline:
        time.sleep(0.05)
    return not session.run.running


# --- the page coming back -------------------------------------------------------------------

def _restore(session: Session, digest: str) -> bool:
    """Load the bundle SIGTERM kept for ``digest`` into ``session`` (the upload's own path)."""
    store = return_store()
    kept = store.find(digest)
    if kept is None or ready.has_own_model(session):  # a ready-made model gives way
        return False
    try:
        train_tab.upload_bundle(session, str(kept))
    except gr.Error:
        log.warning("a bundle kept over a restart could not be loaded", exc_info=True)
        store.discard(digest)
        return False
    copy = session.workdir() / f"playground-model-step{runs.steps_trained(session.trained)}.zip"
    trained = session.trained
    if "upgraded_from" in trained.meta:  # kept by an older playground: the download is today's
        save_bundle(copy, trained.model, trained.tokenizer, trained.train_config,
                    trained.history, trained.trainer_state)
    else:
        shutil.copyfile(kept, copy)  # the download, and what the next save replaces
    trained.bundle_path = str(copy)
    store.discard(digest)
    return True


def _welcome(session: Session, restored: bool) -> str:
    lang, trained = session.lang, session.trained
    values = dict(params=f"{trained.model.num_params():,}", steps=f"{runs.steps_trained(session.trained):,}")
    if restored:
        return t("**Welcome back.** The server restarted since your last visit; your model was "
                 "saved before it did and is loaded again: {params} parameters, trained {steps} "
                 "steps. Generate with it, or download it below; tick 'Continue training' to "
                 "train it further. (The Compare tab's runs did not outlast the restart.)",
                 lang, **values)
    return t("**Welcome back.** Your model is still here: {params} parameters, trained {steps} "
             "steps. Generate with it, look at its attention, or download it below; tick "
             "'Continue training' to train it further. Your runs are on the Compare tab.",
             lang, **values)


def _samples(session: Session) -> str:
    evals = [r for r in session.trained.history if isinstance(r, EvalRecord) and r.sample]
    return "".join(describe.sample_entry(r, session.lang) for r in reversed(evals))


# the page load's outputs: the session, the browser's token and what the training tab shows
CAME_BACK = Outputs("session", "token", "tabs", "status", "download", "samples", "coach",
                    *SETTINGS)


def come_back(fresh: Session, token: Any, request: gr.Request | None, *,
              show_tab: bool = True) -> tuple:
    """On page load: the session this browser's token names, if it is alive or waiting for
    its return (or a bundle SIGTERM kept for it), becomes the page's; else ``fresh`` is filed
    under the token (a new one if the browser had none).

    Returns ``CAME_BACK``: the session and token, and where a model came back the training
    tab (``show_tab``: on a page load, not when a page in view asks again), its status,
    download, samples and coach, and the settings only when the address holds no shared link
    (the link's win); every other output stays as it is."""
    if not sessions.valid_token(token):
        token = sessions.new_token()
    session, restored = REGISTRY.find(token), False
    if session is fresh:  # asked again by a page that still holds its session: all is well
        return CAME_BACK.only(session=session, token=token)
    if session is not None:
        asked = (getattr(request, "query_params", None) or {}).get("lang")  # ?lang=zh-CN
        if fresh.lang_from_page:  # the page reported its language to the fresh session first
            session.lang, session.lang_from_page = fresh.lang, True
        elif asked:  # else the address's, as lang.detect_language reads it
            session.lang = normalize_language(asked)
        if session.run.running and all(gradio_internals.is_closed(demo, key)
                                       for demo, key in holding(session)):
            session.run.request_stop()  # a reload whose closed page has not been seen yet
            _wait_for_run(session, RUN_END_WAIT_S)
        REGISTRY.take_back(session)
    else:
        session = fresh
        restored = _restore(session, sessions.token_digest(token))
    REGISTRY.register(token, session)
    _unheld.pop(id(session), None)
    if not ready.has_own_model(session):
        return CAME_BACK.only(session=session, token=token)
    shown = {"tabs": gr.Tabs(selected="train")} if show_tab else {}
    if session.run.running:
        return CAME_BACK.only(session=session, token=token, **shown, status=t(
            "**Welcome back.** This session is training in another tab of this browser; its "
            "model shows here once that run has ended and this page is reloaded.", session.lang))
    bundle = finish_interrupted(session)
    query = dict(getattr(request, "query_params", None) or {})
    linked = any(key == "v" or key in LINK_KEYS for key in query)
    trained = session.trained
    settings = {} if linked else PageSettings.from_configs(trained.model_config,
                                                           trained.train_config).values
    came = dict(shown, status=_welcome(session, restored), samples=_samples(session), **settings)
    if bundle:
        came["download"] = gr.DownloadButton(value=bundle, visible=True)
    if session.plot.coach:
        came["coach"] = session.plot.coach
    return CAME_BACK.only(session=session, token=token, **came)


def wire(demo: gr.Blocks, session: gr.State, token: gr.BrowserState, tabs: gr.Tabs, train: Any):
    """The page load's first event: ``come_back``, showing the training tab and writing its
    status, download button, samples, coach and settings. Returns the event, for ``.then``."""
    trains = dict(zip(train_tab.TRAINING.names, train.outputs, strict=True))
    outputs = CAME_BACK.widgets(trains, session=session, token=token, tabs=tabs,
                                **dict(zip(SETTINGS, train.settings, strict=True)))

    def on_load(session_value: Session, token_value: Any, request: gr.Request) -> tuple:
        return come_back(session_value, token_value, request)

    def on_view(session_value: Session, token_value: Any, request: gr.Request) -> tuple:
        return come_back(session_value, token_value, request, show_tab=False)

    # no concurrency limit: it is quick (unless it waits for a closed page's run to end,
    # which must not hold up other pages' loads)
    again = gr.Button(visible="hidden", elem_id=AGAIN_ID)  # clicked by VISIBLE_JS
    again.click(on_view, [session, token], outputs, api_visibility="private",
                show_progress="hidden", concurrency_limit=None)
    demo.load(None, js=VISIBLE_JS)
    return demo.load(on_load, [session, token], outputs, api_visibility="private",
                     show_progress="hidden", concurrency_limit=None)


# --- how many sessions: eviction and the sweep ----------------------------------------------

def _busy(demo: gr.Blocks, session_hash: str, ours: list[Session]) -> bool:
    return (gradio_internals.has_pending_events(demo, session_hash)
            or any(s.run.running or s.run.pending for s in ours))


def _occupants(demo: gr.Blocks) -> tuple[list[sessions.Occupant], dict]:
    """Every session ``demo`` holds (Gradio entries, and sessions of closed pages), as
    ``sessions.eviction_order`` sees them, and what each key stands for."""
    occupants, things = [], {}
    for session_hash, values in gradio_internals.session_states(demo).items():
        ours = [s for _, s in _our_sessions(values)]
        used = gradio_internals.last_used(demo, session_hash)
        key = ("entry", session_hash)
        things[key] = session_hash
        occupants.append(sessions.Occupant(
            key, used if used is not None else 0.0, work=any(has_work(s) for s in ours),
            model=any(ready.has_own_model(s) for s in ours), busy=_busy(demo, session_hash, ours)))
    for session, _, closed_at in REGISTRY.entries():
        if closed_at is None:
            continue
        key = ("closed", id(session))
        things[key] = session
        occupants.append(sessions.Occupant(key, time.time() - (time.monotonic() - closed_at),
                                           work=True, model=ready.has_own_model(session),
                                           let_go=True, busy=session.run.running))
    return occupants, things


def _evict(demo: gr.Blocks, key: tuple, thing: Any) -> None:
    if key[0] == "closed":
        free(thing)
        return
    for session in _take_out(demo, thing):
        free(session)


def make_room(demo: gr.Blocks) -> bool:
    """Before a new session: evict what may go while the server is at its capacity; whether
    there is room (when every session holds a model in use, there is none)."""
    if not gradio_internals.serves_sessions(demo):
        return True
    capacity = getattr(demo, "playground_capacity", sessions.MAX_SESSIONS)
    held = gradio_internals.session_count(demo) + len(REGISTRY.sessions(let_go=True))
    if held < capacity:
        return True
    occupants, things = _occupants(demo)
    over = held - capacity + 1
    victims = sessions.eviction_order(occupants, over)
    for key in victims:
        _evict(demo, key, things[key])
    log.info("at %d sessions: evicted %d (%s)", held, len(victims),
             ", ".join(key[0] for key in victims))
    return len(victims) >= over


def sweep(demo: gr.Blocks, now: float | None = None) -> None:
    """One pass: closed pages' runs finished and saved, sessions past their grace freed,
    sessions no page holds let go, idle empty Gradio entries dropped, kept bundles swept."""
    now = time.monotonic() if now is None else now
    held = _held_ids()
    for session in REGISTRY.sessions(let_go=True):
        if id(session) in held:  # a page took it back in a way come_back did not see
            REGISTRY.take_back(session)
        else:
            finish_interrupted(session)
    for session in REGISTRY.expired(now):
        free(session)
    for session in REGISTRY.sessions(let_go=False):
        if id(session) in held:
            _unheld.pop(id(session), None)
        elif now - _unheld.setdefault(id(session), now) >= UNHELD_S:
            let_go(session)
    idle_since = time.time() - EMPTY_IDLE_S
    for session_hash, values in gradio_internals.session_states(demo).items():
        used = gradio_internals.last_used(demo, session_hash)
        if not _our_sessions(values) and (used is None or used < idle_since) \
                and not _busy(demo, session_hash, []):
            gradio_internals.drop_session(demo, session_hash)
    end_unread_jobs(demo)
    _sweep_orphan_folders()
    return_store().sweep()


def _sweep_orphan_folders() -> None:
    """Session folders no live session owns (left by an earlier process), once older than the
    grace period: they count against the disk budget and no one can download them."""
    root = app_temp_dir()
    if not root.is_dir():
        return
    old = time.time() - REGISTRY.grace_s
    for folder in root.iterdir():
        try:
            stale = folder.name not in LIVE_FILES.sessions and folder.stat().st_mtime < old
        except OSError:
            continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)


def start(demo: gr.Blocks, capacity: int, *, serving: bool) -> None:
    """After ``demo.launch``: the sweep every ``SWEEP_S`` while it runs, our eviction in place
    of Gradio's, and (``serving`` for good, in the main thread) SIGTERM saving the models."""
    REGISTRY.grace_s = sessions.grace_seconds()
    SERVED.add(demo)
    demo.playground_capacity = capacity
    if gradio_internals.serves_sessions(demo):
        gradio_internals.no_blind_eviction(demo)  # make_room chooses what goes, never Gradio
        gradio_internals.keep_no_page_values(demo)  # a paste is not kept in Gradio's page config
    stopped = threading.Event()

    def loop() -> None:
        while not stopped.wait(SWEEP_S):
            if not gradio_internals.is_running(demo):
                return
            try:
                sweep(demo)
            except Exception:  # the sweep must outlive anything one session does
                log.exception("the session sweep failed")

    threading.Thread(target=loop, name="playground-sweep", daemon=True).start()
    if serving and threading.current_thread() is threading.main_thread():
        install_sigterm()


# --- SIGTERM ----------------------------------------------------------------------------------

def save_for_restart(per_run_s: float = STOP_WAIT_PER_RUN_S,
                     limit_s: float = STOP_WAIT_MAX_S) -> list[str]:
    """Stop every run after its step, wait for them (``per_run_s`` each, ``limit_s`` in all),
    and keep each returning visitor's bundle in the ``return_store``. Returns the digests
    kept for. A run that has not ended in time keeps the bundle it saved before, if any."""
    entries = REGISTRY.entries()
    going = [s for s, _, _ in entries if s.run.request_stop()]
    deadline = time.monotonic() + min(limit_s, per_run_s * len(going))
    for session in going:
        _wait_for_run(session, max(0.0, deadline - time.monotonic()))
    store, budget, kept = return_store(), disk.DiskBudget.from_hosting(), []
    for session, digest, _ in entries:
        if not ready.has_own_model(session):
            continue
        bundle = finish_interrupted(session) or session.trained.bundle_path
        if not bundle or not Path(bundle).is_file():
            log.warning("a model was lost in the restart: its run did not end in time, unsaved")
            continue
        try:
            used = disk.folder_bytes(app_temp_dir()) + store.used_bytes()
            disk.check_room(Path(bundle).stat().st_size, session_used=0, app_used=used,
                            budget=disk.DiskBudget(None, budget.app_bytes))
            store.put(digest, bundle)
            kept.append(digest)
        except Exception:  # past the app's budget, a full disk: the others still go on
            log.warning("a bundle could not be kept over the restart", exc_info=True)
    return kept


def install_sigterm() -> None:
    """SIGTERM: ``save_for_restart``, then end as Ctrl-C does (the server closes)."""
    def on_sigterm(signum, frame) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends at once
        kept = save_for_restart()
        log.info("SIGTERM: kept %d bundles for returning visitors", len(kept))
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
