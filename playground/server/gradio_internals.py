"""Every use of Gradio's private parts, in one module: what ``guard`` and ``reattach`` need of
Gradio that it does not document, each as a small named function.

Gradio keeps each page's values in a ``StateHolder`` (``server_app.state_holder``): one
``SessionState`` per session hash (``session_data``), the time each was last used
(``time_last_used``), and in each the values of the page's ``gr.State`` blocks by block id
(``state_data``). Its queue (``blocks._queue``) keeps waiting events per concurrency id
(``event_queue_per_concurrency_id``), the running ones (``active_jobs``), and each session's
pending events (``pending_event_ids_session``); ``push`` is what ``/queue/join`` calls. None
of it is Gradio's public API, so none of it is promised from one version to the next:
``check_gradio`` runs at launch (``ui.app.launch``) and refuses to start on a Gradio outside
``SUPPORTED`` or one where any part named here is missing, saying which versions work.

>>> version_problem("6.31.0") is None, version_problem("6.25.1.dev0") is None
(True, True)
>>> version_problem("5.49.1")
'Gradio 5.49.1 is outside that range'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
from typing import Any, Awaitable, Callable, NamedTuple

import gradio as gr
from gradio.data_classes import PredictBody
from gradio.queueing import Event, EventQueue
from gradio.state_holder import SessionState, StateHolder
from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

REQUIREMENT = "gradio>=6.20,<7"  # requirements.txt's line (tests/server/ checks the two agree)
SUPPORTED = Requirement(REQUIREMENT).specifier
TESTED_WITH = "6.31.0"  # requirements-dev.txt's pin, the version the suite runs with
# what this module reads or replaces, by the Gradio class that has it (check_gradio)
NEEDED = {
    "Blocks": ("_queue", "fns", "keep_in_cache", "is_running"),
    "Queue": ("push", "event_queue_per_concurrency_id", "active_jobs", "pending_event_ids_session",
              "pending_messages_per_session", "clean_events"),
    "EventQueue": ("queue",),
    "BlockFunction": ("inputs", "api_name", "queue", "concurrency_id"),
    "StateHolder": ("session_data", "time_last_used", "lock", "update", "delete_state"),
    "SessionState": ("state_data", "config_values", "is_closed", "_update_value_in_config"),
}
NEEDED_ARGUMENTS = {  # what push is given and what a queued event holds
    "PredictBody": ("fn_index", "session_hash"),
    "Event": ("session_hash", "fn", "request"),
}


class UnsupportedGradio(RuntimeError):
    """The installed Gradio is not one this server works with; the message says which do."""


# --- the check at launch ----------------------------------------------------------------------

def version_problem(version: str) -> str | None:
    """What is wrong with Gradio ``version`` (None when it is in ``SUPPORTED``)."""
    try:
        if SUPPORTED.contains(Version(version), prereleases=True):
            return None
    except InvalidVersion:
        pass
    return f"Gradio {version} is outside that range"


def _instances(demo: Any) -> dict[str, Any]:
    """One object of each class in ``NEEDED``: ``demo``'s own where it has them."""
    queue = getattr(demo, "_queue", None)
    try:
        state = SessionState(demo)
    except Exception:  # a demo without the config Gradio copies: reported by Blocks' checks
        state = None
    return {"Blocks": demo, "Queue": queue, "EventQueue": EventQueue("check", 1),
            "BlockFunction": next(iter(getattr(demo, "fns", {}).values()), None),
            "StateHolder": StateHolder(), "SessionState": state}


def missing_internals(demo: Any) -> list[str]:
    """The private parts this module needs that ``demo`` and the installed Gradio lack, as
    ``"Class.attribute"``; [] when every one is there."""
    missing = []
    for name, thing in _instances(demo).items():
        missing += [f"{name}.{attribute}" for attribute in NEEDED[name]
                    if thing is None or not hasattr(thing, attribute)]
    fields = {"PredictBody": set(PredictBody.model_fields),
              "Event": set(inspect.signature(Event.__init__).parameters)}
    for name, arguments in NEEDED_ARGUMENTS.items():
        missing += [f"{name}.{argument}" for argument in arguments if argument not in fields[name]]
    return missing


def check_gradio(demo: Any, version: str = gr.__version__) -> None:
    """Refuse (``UnsupportedGradio``) to serve ``demo`` on a Gradio this module was not made
    for: a ``version`` outside ``SUPPORTED``, or one without a private part it needs."""
    problems = [problem for problem in [version_problem(version)] if problem]
    missing = missing_internals(demo)
    if missing:
        problems.append(f"Gradio {version} has no {', '.join(missing)}")
    if problems:
        raise UnsupportedGradio(
            f"This app works with Gradio 6.20 or a later 6.x ({REQUIREMENT}; tested with "
            f"{TESTED_WITH}) and will not start on this one: {'; '.join(problems)}. Install "
            f"a version that works, for example: pip install \"{REQUIREMENT}\".")


# --- the queue: the page's functions, the jobs waiting and running, each join -------------------

class Function(NamedTuple):
    """What the guard reads of one of the page's functions (Gradio's ``BlockFunction``)."""

    inputs: list  # the input components
    api_name: Any
    queued: bool  # False where the function was built with queue=False
    concurrency_id: str


def _function(fn: Any) -> Function | None:
    if fn is None:
        return None
    return Function(list(fn.inputs), fn.api_name, fn.queue is not False, fn.concurrency_id)


def function_at(blocks: gr.Blocks, index: Any) -> Function | None:
    """The function ``/queue/join`` names by its ``fn_index`` (None for no such function)."""
    return _function(blocks.fns.get(index)) if isinstance(index, int) else None


def function_named(blocks: gr.Blocks, api_name: str) -> Function | None:
    """The function a direct call names by its ``api_name`` (None for no such function)."""
    return _function(next((fn for fn in blocks.fns.values() if fn.api_name == api_name), None))


class Job(NamedTuple):
    """One event in the queue, waiting or running."""

    session_hash: str
    request: Any  # the request that queued it (its headers, its client)
    concurrency_id: str


def queued_events(blocks: gr.Blocks, concurrency_ids: tuple[str, ...]) -> list[Job]:
    """The events waiting under ``concurrency_ids``, then every event running."""
    queue = blocks._queue
    events = [e for key in concurrency_ids
              for e in getattr(queue.event_queue_per_concurrency_id.get(key), "queue", [])]
    events += [e for job in queue.active_jobs if job for e in job]
    return [Job(e.session_hash, e.request, e.fn.concurrency_id) for e in events]


def has_pending_events(demo: gr.Blocks, session_hash: str) -> bool:
    """Whether ``session_hash`` has an event in ``demo``'s queue, waiting or running."""
    queue = getattr(demo, "_queue", None)
    pending = getattr(queue, "pending_event_ids_session", {}).get(session_hash) if queue else None
    return bool(pending)


# --- pages that never read their results (their stream: /queue/data) --------------------------

UNREAD_TIMEOUT_S = 10.0  # the sweep waits this long for the loop to end a page's jobs


def note_loop(demo: gr.Blocks) -> None:
    """Remember the event loop ``demo`` is served on (called from a request, which runs on
    it): the sweep thread hands it the work that must run there (``end_unread``)."""
    demo.playground_loop = asyncio.get_running_loop()


def _on_loop(demo: gr.Blocks, coroutine_fn: Callable[[], Awaitable[Any]]) -> Any:
    loop = getattr(demo, "playground_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    try:
        return asyncio.run_coroutine_threadsafe(coroutine_fn(), loop).result(UNREAD_TIMEOUT_S)
    except (TimeoutError, concurrent.futures.TimeoutError, RuntimeError):  # (3.10: not one)
        return None


def waiting_messages(demo: gr.Blocks) -> dict[str, int]:
    """Session hash -> how many messages of its jobs wait for its page to read them."""
    queue = getattr(demo, "_queue", None)
    if queue is None:
        return {}

    async def count() -> dict[str, int]:
        return {key: q.qsize() for key, q in list(queue.pending_messages_per_session.items())
                if q.qsize()}

    return _on_loop(demo, count) or {}


def end_unread(demo: gr.Blocks, session_hash: str) -> int:
    """End the jobs of a page that does not read its results (Gradio's own ``clean_events``,
    as when a page's stream disconnects) and drop the messages waiting for it; how many were
    dropped. The session's entry stays (its page may come back and read a new job)."""
    queue = demo._queue

    async def end() -> int:
        await queue.clean_events(session_hash=session_hash)
        messages = queue.pending_messages_per_session.get(session_hash)
        dropped = 0
        while messages is not None and not messages.empty():
            messages.get_nowait()
            dropped += 1
        return dropped

    return _on_loop(demo, end) or 0


class Join(NamedTuple):
    """A ``/queue/join`` on its way into the queue."""

    concurrency_id: str | None  # its function's (None for a function the page does not have)
    session_hash: str | None
    request: Any


def wrap_queue_push(blocks: gr.Blocks,
                    around: Callable[[Join, Callable[[], Awaitable]], Awaitable]) -> None:
    """Every ``/queue/join`` of ``blocks`` (after ``blocks.queue()``) goes through
    ``around(join, push)``: it may raise (an ``HTTPException`` is the join's answer) or await
    ``push()``, which puts the event in the queue and returns Gradio's answer."""
    queue = blocks._queue
    push: Callable = queue.push

    @functools.wraps(push)
    async def pushed(body, request, username):
        index = getattr(body, "fn_index", None)
        fn = blocks.fns.get(index) if isinstance(index, int) else None
        join = Join(fn.concurrency_id if fn is not None else None, body.session_hash, request)
        return await around(join, lambda: push(body=body, request=request, username=username))

    queue.push = pushed


# --- the sessions Gradio holds: one entry per session hash, gr.State values in each -----------

def _holder(demo: Any) -> StateHolder | None:
    return getattr(getattr(demo, "server_app", None), "state_holder", None)


def serves_sessions(demo: Any) -> bool:
    """Whether ``demo`` has been launched (its entries exist from then on)."""
    return _holder(demo) is not None


def is_running(demo: Any) -> bool:
    """Whether ``demo`` is serving now (launched, not closed)."""
    return bool(getattr(demo, "is_running", False))


def session_count(demo: Any) -> int:
    """How many entries ``demo`` holds (0 before launch)."""
    holder = _holder(demo)
    return len(holder.session_data) if holder is not None else 0


def has_session(demo: Any, session_hash: str) -> bool:
    """Whether ``demo`` holds an entry for ``session_hash``."""
    holder = _holder(demo)
    return holder is not None and session_hash in holder.session_data


def session_hashes(demo: Any) -> list[str]:
    """The session hash of every entry ``demo`` holds, least recently used first."""
    holder = _holder(demo)
    return list(holder.session_data) if holder is not None else []


def session_states(demo: Any) -> dict[str, dict[int, Any]]:
    """Every entry's ``gr.State`` values by block id, by session hash (copies, in one pass)."""
    holder = _holder(demo)
    if holder is None:
        return {}
    return {key: dict(state.state_data) for key, state in list(holder.session_data.items())}


def state_values(demo: Any, session_hash: str) -> dict[int, Any]:
    """The ``gr.State`` values of ``session_hash``'s entry by block id (a copy; {} for none)."""
    holder = _holder(demo)
    state = holder.session_data.get(session_hash) if holder is not None else None
    return dict(state.state_data) if state is not None else {}


def take_out_values(demo: Any, session_hash: str, block_ids: list[int]) -> None:
    """The values of ``block_ids`` leave ``session_hash``'s entry (its delete callbacks will
    not see them)."""
    holder = _holder(demo)
    state = holder.session_data.get(session_hash) if holder is not None else None
    for key in block_ids if state is not None else []:
        state.state_data.pop(key, None)


def last_used(demo: Any, session_hash: str) -> float | None:
    """When ``session_hash``'s entry was last used (a ``time.time()``), None if never."""
    holder = _holder(demo)
    used = holder.time_last_used.get(session_hash) if holder is not None else None
    return used.timestamp() if used is not None else None


def is_closed(demo: Any, session_hash: str) -> bool:
    """Whether the page of ``session_hash`` has closed (Gradio marks it at its unload); an
    entry that is gone counts as closed."""
    holder = _holder(demo)
    state = holder.session_data.get(session_hash) if holder is not None else None
    return getattr(state, "is_closed", True)


def reopen(demo: Any, session_hash: str) -> None:
    """The page of ``session_hash`` is back: its entry is an open page's again (Gradio would
    keep a closed page's state an hour only)."""
    holder = _holder(demo)
    state = holder.session_data.get(session_hash) if holder is not None else None
    if state is not None:
        state.is_closed = False


def delete_states(demo: Any, session_hash: str) -> None:
    """Gradio's own deletion of ``session_hash``'s state: each ``gr.State``'s delete callback
    with the value it holds, then the value out of the entry."""
    holder = _holder(demo)
    if holder is not None:
        holder.delete_state(session_hash)


def drop_session(demo: Any, session_hash: str) -> None:
    """Gradio's entry for ``session_hash`` goes (its copy of the page's config, ~1 MB)."""
    holder = _holder(demo)
    if holder is None:
        return
    with holder.lock:
        holder.session_data.pop(session_hash, None)
        holder.time_last_used.pop(session_hash, None)


def no_blind_eviction(demo: Any) -> None:
    """Gradio evicts its least recently used entry past its capacity, skipping every delete
    callback (a trained model went, its files orphaned); the caller chooses instead
    (``reattach.make_room``). An entry used is still moved to the end, as Gradio does."""
    holder = _holder(demo)

    def update(session_id: str) -> None:
        with holder.lock:
            if session_id in holder.session_data:
                holder.session_data.move_to_end(session_id)

    holder.update = update


def _forget_value(key: int, value: Any) -> None:
    """In place of ``SessionState._update_value_in_config``: keep nothing."""


def keep_no_page_values(demo: Any) -> None:
    """Gradio copies every value a session sends or is sent into that session's page config
    (``SessionState.config_values``), for its deep links only: a 5 MB paste stayed there,
    about 6 MB a visitor, as long as the session lived, and so did every figure and text the
    page drew. Deep links are closed (``guard.CLOSED_ROUTES``), so each entry, as Gradio makes
    it (``StateHolder.__getitem__`` calls ``update`` on it), keeps none."""
    holder = _holder(demo)
    update = holder.update

    def update_and_forget(session_id: str) -> None:
        update(session_id)
        state = holder.session_data.get(session_id)
        if state is not None and "_update_value_in_config" not in vars(state):
            state._update_value_in_config = _forget_value
            state.config_values.clear()  # what a first call wrote before this entry was seen

    holder.update = update_and_forget


# --- files ------------------------------------------------------------------------------------

def keep_in_cache(block: Any, files: Any) -> None:
    """Gradio's hourly cache sweep (``delete_cache``) spares the paths in each block's
    ``keep_in_cache``; ``files`` (any iterable with ``add``) takes its place on ``block``."""
    block.keep_in_cache = files
