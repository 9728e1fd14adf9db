"""The page's door: what a request may be before Gradio reads it, and how many compute jobs one
visitor and one client may have in the queue.

Gradio parses a whole request body before any handler sees it, and takes as many queued jobs
as its queue holds from anyone. So, in front of it:

* ``RequestGuard`` (ASGI middleware) answers 413 to a POST under ``/gradio_api/`` whose body
  is over ``MAX_BODY_BYTES`` (a 200 MB paste is refused after 6 MB, not parsed), and 422 to a
  call one of whose values is longer than its input allows: a text box takes ``MAX_TEXT`` of
  the body, a file reference ``MAX_FILE_FIELD_CHARS``, any other input (a number, a choice)
  ``MAX_FIELD_CHARS``, and a list of choices (ticked boxes) ``MAX_CHOICES`` of them, each
  ``MAX_FIELD_CHARS``. The refusal names the input, never echoes the value, so no 10 MB choice
  reaches Gradio's error message or the log.
* uploads count against their client address: ``UPLOAD_BYTES_PER_HOUR`` each, so one
  client cannot fill the disk (5 MB files without a session, 200 MB in 1.6 s, before); and
  Gradio's ``/gradio_api/deep_link``, which wrote 127 KB per call for ever, is closed.
* each upload's answer is noted with its client address (``noting_uploads``): a page's
  handler then reads a file only if that page uploaded it (``ui.session.uploaded_files``).
* ``limit_jobs`` wraps the queue's ``push``: a session may have ``JOBS_PER_SESSION`` compute
  job (training, tokenizer training, bundle loading, generation, attention, export) queued or
  running, and one client address ``JOBS_PER_CLIENT``, of them at most
  ``hosting.network_runs`` training runs (12 of the 16 that take turns at once); beyond that
  the join is answered 429 with a message, so one client cannot fill the queue that every
  visitor shares, nor every training slot (issue 27: 16 runs from one address kept another
  visitor's run from starting until they ended).
* ``new_session_refusal``: one client address opens at most ``PLAYGROUND_NEW_SESSIONS_PER_MIN``
  new sessions a minute (60; 429 beyond), and a new session must find room among those the
  server may hold (``reattach.make_room``; 503 when every one holds a model in use).

Non-queued routes (``/gradio_api/run/<name>``) reach no compute handler: ``launch`` queues with
``api_open=False``, so Gradio refuses them for every queued function.

>>> field_limit("Textbox"), field_limit("File"), field_limit("Dropdown")
(6291456, 4096, 64)
"""

from __future__ import annotations

import collections
import json
import logging
import time
from typing import Any, Awaitable, Callable

import anyio
import gradio as gr
from fastapi import HTTPException

from playground.i18n import pick_language, t
from playground.runtime import hosting
from playground.runtime.files import UPLOADS, human_bytes
from playground.runtime.sessions import NewSessionLedger, new_sessions_per_minute
from playground.server import gradio_internals, reattach

log = logging.getLogger("playground.ui")

MAX_BODY_BYTES = 6 * 2**20  # a 5 MB paste or upload (the app's limit) and its JSON around it
MAX_TEXT = MAX_BODY_BYTES  # a text box: the body's limit is its limit
MAX_FILE_FIELD_CHARS = 4096  # a file reference: {"path": ..., "orig_name": ..., "meta": ...}
MAX_FIELD_CHARS = 64  # a number, a checkbox, a choice: the longest is about 25 characters
MAX_CHOICES = 64  # boxes ticked in one group: the most the page has is 20 (the runs to compare)
COMPUTE = "compute"  # the concurrency_id of every computing handler but training
TRAINING = "training"  # training runs': many at once, taking turns (runtime.fairshare)
COMPUTE_IDS = (COMPUTE, TRAINING)  # what a session and a client have a limit of
JOBS_PER_SESSION = 1
JOBS_PER_CLIENT = 16  # a classroom behind one address gets in; one script cannot fill 64
UPLOAD_BYTES_PER_HOUR = 200 * 2**20  # per client address: a classroom's files, not a disk's
GUARDED_PREFIX = "/gradio_api/"
# Gradio's deep links write the session's whole page state to disk on every GET, never deleted,
# and hand it to anyone with the session hash; the page has its own links (export.links)
CLOSED_ROUTES = ("/gradio_api/deep_link",)
CALL_ROUTES = ("queue/join", "call/", "run/", "api/")
SESSION_ROUTES = CALL_ROUTES + ("component_server",)  # the routes that open a Gradio session
UNNAMED_SESSION_ROUTES = ("call/", "component_server")  # ...one of its own when none is named


def field_size(value: Any) -> int:
    """A value's size against ``field_limit``: a string's length, a list of choices' longest
    choice (as JSON; more than ``MAX_CHOICES`` of them count as too long), anything else's
    JSON length. (The lesson builder's nine tabs, all ticked, are 97 characters of JSON: a
    limit on the whole list refused the builder as it opens.)

    >>> field_size("hello"), field_size(["corpus", "tokenizer"]), field_size(7.5)
    (5, 9, 3)
    """
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list) and len(value) <= MAX_CHOICES:
        return max((field_size(item) if isinstance(item, str)
                    else len(json.dumps(item, default=str)) for item in value), default=2)
    return len(json.dumps(value, default=str))


def field_limit(component: str) -> int:
    """The most characters (as JSON) a value for an input of this component type may take."""
    if component in ("Textbox", "Code", "TextArea"):
        return MAX_TEXT
    if component in ("File", "UploadButton", "Image", "Audio", "Video"):
        return MAX_FILE_FIELD_CHARS
    return MAX_FIELD_CHARS


def client_address(headers: dict[str, str] | Any, host: str | None) -> str:
    """The client a request comes from: behind a trusted proxy (``Hosting.trusts_proxy``: on a
    Space, or ``PLAYGROUND_TRUST_PROXY=1``) the X-Forwarded-For address the proxies appended,
    ``Hosting.proxy_hops`` from the right; else the connection's address. The addresses to
    the left of it are whatever the client sent: a new one on every request must not make a
    new client.

    >>> client_address({"x-forwarded-for": "203.0.113.9, 10.0.0.1"}, "10.0.0.1")
    '10.0.0.1'
    """
    host_settings = hosting.current()
    forwarded = (headers.get("x-forwarded-for") or "") if host_settings.trusts_proxy else ""
    chain = [address.strip() for address in forwarded.split(",") if address.strip()]
    if not chain:
        return host or "unknown"
    return chain[-min(host_settings.proxy_hops, len(chain))]


def _language(headers) -> str:
    return pick_language(headers.get("accept-language") if headers is not None else None)


class UploadLedger:
    """Bytes each client address uploaded in the last hour (Gradio keeps uploads 1-2 hours).

    >>> ledger = UploadLedger(limit=10)
    >>> ledger.take("a", 6, now=0.0), ledger.take("a", 6, now=1.0), ledger.take("b", 6, now=1.0)
    (True, False, True)
    >>> ledger.take("a", 6, now=3601.0)  # an hour later the first upload no longer counts
    True
    """

    def __init__(self, limit: int, window_s: float = 3600.0):
        self.limit, self.window_s = limit, window_s
        self.taken: dict[str, collections.deque] = {}  # address -> (time, bytes), oldest first

    def take(self, address: str, size: int, now: float | None = None) -> bool:
        """Count ``size`` bytes for ``address`` if they fit its hour's budget; whether they did."""
        now = time.monotonic() if now is None else now
        for key in list(self.taken):  # forget what is older than the window, for every client
            entries = self.taken[key]
            while entries and entries[0][0] <= now - self.window_s:
                entries.popleft()
            if not entries:
                del self.taken[key]
        past = self.taken.setdefault(address, collections.deque())
        if sum(n for _, n in past) + size > self.limit:
            return False
        past.append((now, size))
        return True


class RequestGuard:
    """ASGI middleware: bodies and values bounded before Gradio parses them (see the module)."""

    def __init__(self, app, blocks: gr.Blocks):
        self.app = app
        self.blocks = blocks
        self.uploads = UploadLedger(UPLOAD_BYTES_PER_HOUR)
        self.new_sessions = NewSessionLedger(new_sessions_per_minute())

    async def __call__(self, scope, receive, send):
        gradio_internals.note_loop(self.blocks)  # (the sweep hands it work: reattach.end_unread_jobs)
        path = scope.get("path", "")
        if scope["type"] == "http" and path.endswith(CLOSED_ROUTES):
            return await self._refuse(send, 404, "Not found.", path, scope)
        if scope["type"] == "http" and f"{GUARDED_PREFIX}heartbeat/" in path:
            return await reattach.follow_heartbeat(self.app, scope, receive, send)
        if scope["type"] == "http" and path.endswith(f"{GUARDED_PREFIX}queue/data"):
            return await reattach.follow_stream(self.app, scope, receive, send)
        if scope["type"] != "http" or scope.get("method") != "POST" or GUARDED_PREFIX not in path:
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        lang = _language(headers)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return await self._refuse(send, 413, self._too_big(lang), path, scope)
        chunks, size = [], 0
        while True:  # read it all here (bounded), then hand it on as one piece
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                return await self._refuse(send, 413, self._too_big(lang), path, scope)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        route = path.split(GUARDED_PREFIX, 1)[1]
        if route.startswith("upload"):
            address = client_address(headers, (scope.get("client") or (None,))[0])
            if not self.uploads.take(address, len(body)):
                return await self._refuse(send, 429, t(
                    "This network has uploaded {limit} in the last hour, as much as the page "
                    "takes; try again later.", lang, limit=human_bytes(UPLOAD_BYTES_PER_HOUR)),
                    path, scope)
            send = noting_uploads(send, address)
        if route.startswith(CALL_ROUTES):
            problem = self._check_fields(route, body, lang)
            if problem:
                return await self._refuse(send, 422, problem, path, scope)
        if route.startswith(SESSION_ROUTES):
            address = client_address(headers, (scope.get("client") or (None,))[0])
            refused = await new_session_refusal(self.blocks, self.new_sessions, route, body,
                                                address, lang)
            if refused:
                return await self._refuse(send, *refused, path, scope)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    def _too_big(lang: str) -> str:
        return t("This request is larger than the {limit} this page takes, so it was not read. "
                 "For a long text, upload it as a file (up to 5 MB).", lang,
                 limit=human_bytes(MAX_BODY_BYTES))

    def _check_fields(self, route: str, body: bytes, lang: str) -> str | None:
        """What is wrong with a call, said without its values: a function the page does not
        have, values that are not as many as its inputs (Gradio printed a traceback for each
        such call: one line of log here), or the first value longer than its input allows."""
        try:
            payload = json.loads(body or b"{}")
        except (ValueError, RecursionError):
            return None  # Gradio answers malformed JSON itself
        if not isinstance(payload, dict):
            return None
        data = payload.get("data")
        fn = self._function(route, payload)
        if fn is None:
            if route.startswith("queue/join"):
                return t("This page has no function {index}; reload the page.", lang,
                         index=str(payload.get("fn_index"))[:20])
            return None  # Gradio answers an unknown name with a 404 of its own
        inputs = list(fn.inputs)
        # the simple format leaves out State and other hidden inputs
        shown = [block for block in inputs if not getattr(block, "skip_api", False)]
        sent = len(data) if isinstance(data, list) else 0
        # a queued function on a direct route is Gradio's 404 (api_open=False), as it must be
        direct_to_queued = not route.startswith("queue/join") and fn.queued
        if sent not in (len(inputs), len(shown)) and not direct_to_queued:
            return t("The call sent {sent} values where this function takes {takes}; reload "
                     "the page.", lang, sent=sent, takes=len(shown))
        if len(data) != len(inputs):
            inputs = shown
        for position, value in enumerate(data):
            component = type(inputs[position]).__name__ if position < len(inputs) else ""
            size = field_size(value)
            if size > field_limit(component):
                label = getattr(inputs[position], "label", None) if position < len(inputs) else None
                name = label if isinstance(label, str) and label else f"{component or 'input'} {position + 1}"
                return t("The value sent for '{input}' is {size} long; this input takes at most "
                         "{limit}, so the call was refused.", lang, input=name[:40],
                         size=f"{size:,}", limit=f"{field_limit(component):,}")
        return None

    def _function(self, route: str, payload: dict) -> gradio_internals.Function | None:
        """The Blocks function a call names: by fn_index (queue/join) or by its api_name."""
        if route.startswith("queue/join"):
            return gradio_internals.function_at(self.blocks, payload.get("fn_index"))
        name = route.split("/", 1)[1].strip("/").split("/", 1)[0] if "/" in route else ""
        if name == "v2":  # call/v2/<name>
            name = route.split("/")[2] if len(route.split("/")) > 2 else ""
        return gradio_internals.function_named(self.blocks, name)

    @staticmethod
    async def _refuse(send, status: int, message: str, path: str, scope) -> None:
        client = (scope.get("client") or ("?",))[0]
        log.info("refused %s from %s: %s", path[:80], client, message[:120])  # one line each
        body = json.dumps({"detail": message, "error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def noting_uploads(send, address: str):
    """``send`` for an upload's response that also notes the paths it answers with as uploaded
    from ``address`` (``runtime.files.UPLOADS``: what a page's handler may then take)."""
    status, chunks = 0, []

    async def noting(message):
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body" and status == 200:
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                try:
                    paths = json.loads(b"".join(chunks))
                except ValueError:
                    paths = None
                if isinstance(paths, list):
                    UPLOADS.arrived([p for p in paths if isinstance(p, str)], address)
        await send(message)

    return noting


def address_of(request) -> str:
    """The client address of a Gradio request (``client_address``: the one place it is read)."""
    return client_address(getattr(request, "headers", None) or {},
                          getattr(getattr(request, "client", None), "host", None))


def _compute_jobs(blocks: gr.Blocks) -> list[tuple[str, str, str]]:
    """(session hash, client address, concurrency id) of each compute event queued or running."""
    return [(job.session_hash, address_of(job.request), job.concurrency_id)
            for job in gradio_internals.queued_events(blocks, COMPUTE_IDS)
            if job.concurrency_id in COMPUTE_IDS]


def limit_jobs(blocks: gr.Blocks) -> None:
    """Wrap ``blocks``' queue so a session has at most ``JOBS_PER_SESSION`` compute jobs queued
    or running and a client at most ``JOBS_PER_CLIENT``, ``hosting.network_runs`` of them
    training (after ``blocks.queue()``)."""
    joining: list[tuple[str, str, str]] = []  # joins past the check whose event is not queued yet

    async def guarded_push(join: gradio_internals.Join, push: Callable[[], Awaitable]):
        if join.concurrency_id not in COMPUTE_IDS:
            return await push()
        request = join.request
        address, lang = address_of(request), _language(getattr(request, "headers", None))
        jobs = _compute_jobs(blocks) + joining
        if join.session_hash is not None and sum(
                session == join.session_hash for session, _, _ in jobs) >= JOBS_PER_SESSION:
            raise HTTPException(status_code=429, detail=t(
                "This page already has a job waiting or running (training, a tokenizer, "
                "generating...). Wait for it to finish, or press Stop, then try again.", lang))
        if sum(client == address for _, client, _ in jobs) >= JOBS_PER_CLIENT:
            log.info("refused a compute job from %s: %d already queued or running",
                     address, JOBS_PER_CLIENT)
            raise HTTPException(status_code=429, detail=t(
                "Too many jobs from your network are waiting or running ({n}). Try again when "
                "one of them has finished.", lang, n=JOBS_PER_CLIENT))
        if join.concurrency_id == TRAINING and sum(
                client == address and kind == TRAINING
                for _, client, kind in jobs) >= hosting.network_runs():
            log.info("refused a run from %s: %d already waiting or under way",
                     address, hosting.network_runs())
            raise HTTPException(status_code=429, detail=t(
                "Your network already has {n} training runs waiting or under way, as many as "
                "one network may have here, so that visitors elsewhere can train too. Try again "
                "when one of them has finished.", lang, n=hosting.network_runs()))
        entry = (join.session_hash, address, join.concurrency_id)
        joining.append(entry)
        try:  # once push returns, the event is in the queue and _compute_jobs counts it
            return await push()
        finally:
            joining.remove(entry)

    gradio_internals.wrap_queue_push(blocks, guarded_push)


async def new_session_refusal(blocks: gr.Blocks, ledger: NewSessionLedger, route: str,
                              body: bytes, address: str, lang: str) -> tuple[int, str] | None:
    """(status, message) for a call that would open one session too many, else None.

    A call of a session the server holds goes through. A new session counts against its
    client address (``ledger``: 10,100 invented session hashes in 5 minutes took 3.3 GB and
    evicted a visitor's model), then must find room among the sessions the server may hold
    (``reattach.make_room``: empty ones go first, never a model a page holds)."""
    try:
        payload = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # not JSON (a form): a session no one can name
        payload = None
    key = payload.get("session_hash") if isinstance(payload, dict) else None
    key = key if isinstance(key, str) else None
    if key is None and not route.startswith(UNNAMED_SESSION_ROUTES):
        return None  # a call without a session hash opens none (queue/join refuses it)
    if not gradio_internals.serves_sessions(blocks) or (
            key is not None and gradio_internals.has_session(blocks, key)):
        return None
    if not ledger.take(address, key):
        return 429, t("This network opened {n} new sessions of this page in the last minute, "
                      "as many as it may; wait a minute, then reload the page.", lang,
                      n=ledger.limit)
    if not await anyio.to_thread.run_sync(reattach.make_room, blocks):
        return 503, t("This server holds as many sessions as it can, and every one of them is "
                      "in use; try again in a few minutes.", lang)
    return None
