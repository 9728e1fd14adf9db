"""Hostile traffic replayed against the app (issue 14): the figures after the fixes.

Issue 14 lists eleven findings of a red-team run against the app on 127.0.0.1, each with a
"before" figure. This section replays each attack (at the size its row names) against
``app.py`` started in a process of its own, and records what the attack cost the server and
what the attacker and a second visitor were told:

* memory: the server's peak resident memory during the attack above what it held before
  (``VmHWM``, reset through ``/proc/<pid>/clear_refs`` just before), and what it still held
  after;
* disk: bytes added under the server's folders (Gradio's temporary folder, the app's data
  folder, TMPDIR, the working folder), and the growth of its log (stdout and stderr);
* waits: the seconds a second visitor's cheap call took while the attack held the server;
* what a response said: its first ``SAID_CHARS`` characters.

A row fails (✗) when the server died, a bound was passed, or a response shows a traceback or a
server path. A process keeps most of the memory it frees, and reuses it, which would hide the
next attack's peak: a server holding more than ``RESTART_ABOVE_MB`` over its idle size is
started afresh before the next finding. The server runs as on a Space (``PLAYGROUND_SHARED=1``) behind a proxy it trusts
(``PLAYGROUND_TRUST_PROXY=1``): each visitor and attacker is told apart by the
``X-Forwarded-For`` address it sends (documentation addresses, RFC 5737), as a Space's proxy
tells its clients apart. Nothing but 127.0.0.1 is contacted; the browser used for the restart
and the shared link aborts every request to anywhere else (and counts it).

``python -m bench --only hostile`` runs it (about six minutes on two busy cores); ``--quick``
runs the attacks that need no training and no browser (about 25 s; a test runs those).

>>> said('Traceback (most recent call last):\\n  File "/srv/app.py"')
'Traceback (most recent call last): File "/srv/app.py"'
>>> leak('Error: /srv/app/tmp/gradio/abc/x.zip', ['/srv/app'])
'/srv/app'
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx

from bench.core import REPO_ROOT, Context, Row

SAID_CHARS = 120  # what a row quotes of a response
START_TIMEOUT_S = 120.0  # the server answers /config within this after its start
CALL_TIMEOUT_S = 60.0  # any one call of an attack
SECOND_VISITOR_WAIT_S = 15.0  # a second visitor's cheap call under attack: at most this
LOG_LINE_KB = 0.3  # one log line per refused call
ALONE_PEAK_MB = 100.0  # a refused attack may cost the server at most this much memory
RESTART_ABOVE_MB = 200.0  # a server holding more than this over its idle size starts afresh
# Markers of what a response must never show: Python's traceback and the server's own paths
# (the folders of this run are added per server)
LEAK_MARKERS = ("Traceback (most recent", 'File "', "site-packages", "/usr/lib/python",
                str(REPO_ROOT))
FLOOD_CAPACITY = 200  # sessions the bench's server holds (a 16 GB Space holds 4,096)
SERVER_ENV = {"PLAYGROUND_SHARED": "1", "PLAYGROUND_TRUST_PROXY": "1",
              # the session flood overflows it, so eviction chooses what goes
              "PLAYGROUND_MAX_SESSIONS": str(FLOOD_CAPACITY),
              "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
              "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1",
              "PYTHONUNBUFFERED": "1"}  # its log on disk as it is written
TINY_RUN = dict(max_steps=30, eval_interval=30, eval_iters=2, sample_tokens=20, threads=1,
                device="cpu", dtype="float32")


def said(value: Any) -> str:
    """A response as one line, cut to ``SAID_CHARS`` characters."""
    text = value if isinstance(value, str) else repr(value)
    return re.sub(r"\s+", " ", text).strip()[:SAID_CHARS]


def leak(text: str, paths: list[str]) -> str | None:
    """The first marker of a traceback or a server path in ``text`` (None: none)."""
    return next((marker for marker in (*LEAK_MARKERS, *paths) if marker in text), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the server, in a process of its own --------------------------------------------------------

def _status_bytes(pid: int, name: str) -> int:
    """A memory line of /proc/<pid>/status in bytes (0 for a process that is gone)."""
    try:
        for line in open(f"/proc/{pid}/status", encoding="ascii"):
            if line.startswith(name + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                found += [int(p) for p in f.read().split()]
    except OSError:
        pass
    return found + [grandchild for child in found for grandchild in _children(child)]


def folder_bytes(folder: Path, skip: Path | None = None) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file() and path != skip:
                total += path.stat().st_size
        except OSError:
            pass
    return total


class Server:
    """``app.py`` in a process of its own on 127.0.0.1, its folders under ``folder``."""

    def __init__(self, folder: Path, env: dict[str, str] | None = None,
                 cgroup: Path | None = None):
        self.folder, self.cgroup = folder, cgroup  # cgroup: a memory cgroup it runs in
        self.env = {**os.environ, **SERVER_ENV, **(env or {}),
                    "GRADIO_TEMP_DIR": str(folder / "gradio"),
                    "PLAYGROUND_DATA_DIR": str(folder / "data"), "TMPDIR": str(folder / "tmp")}
        self.log_path = folder / "server.log"
        self.process: subprocess.Popen | None = None
        self.url = ""
        for name in ("gradio", "data", "tmp", "cwd"):
            (folder / name).mkdir(parents=True, exist_ok=True)

    def start(self) -> float:
        """Start it (again on the same port, so a page can reload) and wait for its page;
        returns the seconds that took."""
        port = int(self.url.rsplit(":", 1)[1].strip("/")) if self.url else free_port()
        self.url = f"http://127.0.0.1:{port}/"
        log = open(self.log_path, "ab")
        start = time.perf_counter()
        procs = None if self.cgroup is None else self.cgroup / "cgroup.procs"
        self.process = subprocess.Popen([sys.executable, str(REPO_ROOT / "app.py")],
                                        cwd=self.folder / "cwd", stdout=log, stderr=subprocess.STDOUT,
                                        env={**self.env, "GRADIO_SERVER_PORT": str(port)},
                                        # in its cgroup before it allocates anything
                                        preexec_fn=None if procs is None else
                                        lambda: procs.write_text(str(os.getpid())))
        log.close()
        while time.perf_counter() - start < START_TIMEOUT_S:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server ended at its start: {self.log_tail()}")
            try:
                if httpx.get(self.url + "config", timeout=5).status_code == 200:
                    return time.perf_counter() - start
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the server did not answer in {START_TIMEOUT_S:.0f} s")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, wait_s: float = 30.0) -> tuple[float, int | None]:
        """SIGTERM (as a Space's restart sends), then SIGKILL after ``wait_s``: (seconds to
        its end, its exit status)."""
        if self.process is None or self.process.poll() is not None:
            return 0.0, None if self.process is None else self.process.returncode
        start = time.perf_counter()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(wait_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        return time.perf_counter() - start, self.process.returncode

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else 0

    def rss(self) -> int:
        return _status_bytes(self.pid, "VmRSS")

    def children_rss(self) -> int:
        return sum(_status_bytes(child, "VmRSS") for child in _children(self.pid))

    def reset_peak(self) -> None:
        with open(f"/proc/{self.pid}/clear_refs", "w", encoding="ascii") as f:
            f.write("5")  # VmHWM := VmRSS

    def peak(self) -> int:
        return _status_bytes(self.pid, "VmHWM")

    def disk(self) -> int:
        return folder_bytes(self.folder, skip=self.log_path)

    def log_bytes(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_tail(self, chars: int = 300) -> str:
        return said(self.log_path.read_text(errors="replace")[-chars:]) if self.log_path.exists() else ""

    def paths(self) -> list[str]:
        """The server's own folders: a response naming one gives the server away."""
        return [str(self.folder), str(self.folder.resolve())]


@dataclass
class Cost:
    """What one attack cost the server, in MB (2**20 bytes) and seconds."""

    peak_mb: float = 0.0  # the server's peak above its memory before
    held_mb: float = 0.0  # what it held after, above before
    child_peak_mb: float = 0.0  # the largest child process it started (a tokenizer's), sampled
    disk_mb: float = 0.0
    log_kb: float = 0.0
    seconds: float = 0.0

    def words(self) -> str:
        parts = [f"peak +{self.peak_mb:.0f} MB", f"held +{self.held_mb:.0f} MB"]
        if self.child_peak_mb:
            parts.append(f"child process {self.child_peak_mb:.0f} MB")
        parts += [f"disk +{self.disk_mb:.1f} MB", f"log +{self.log_kb:.1f} KB"]
        return ", ".join(parts)


@contextmanager
def measured(server: Server) -> Iterator[Cost]:
    """The cost of what the block does to ``server`` (filled in when the block ends)."""
    cost = Cost()
    server.reset_peak()
    rss, disk, log = server.rss(), server.disk(), server.log_bytes()
    stop = threading.Event()

    def watch_children() -> None:
        while not stop.wait(0.1):
            cost.child_peak_mb = max(cost.child_peak_mb, server.children_rss() / 2**20)

    watcher = threading.Thread(target=watch_children, daemon=True)
    watcher.start()
    start = time.perf_counter()
    try:
        yield cost
    finally:
        cost.seconds = time.perf_counter() - start
        time.sleep(0.3)  # an error is logged just after its answer is sent
        stop.set()
        watcher.join(5)
        if server.alive():
            cost.peak_mb = max(0, server.peak() - rss) / 2**20
            cost.held_mb = (server.rss() - rss) / 2**20
        cost.disk_mb = (server.disk() - disk) / 2**20
        cost.log_kb = (server.log_bytes() - log) / 2**10


# --- talking to it --------------------------------------------------------------------------

def visitor(server: Server, address: str):
    """A ``gradio_client`` visitor (its own session) from ``address``."""
    from gradio_client import Client

    return Client(server.url, verbose=False, analytics_enabled=False, download_files=False,
                  headers={"x-forwarded-for": address}, httpx_kwargs={"timeout": CALL_TIMEOUT_S})


def answer_of(call: Callable[[], Any]) -> tuple[bool, Any, float]:
    """(whether it returned, its outputs or the error's text, seconds) of one call."""
    start = time.perf_counter()
    try:
        return True, call(), time.perf_counter() - start
    except Exception as error:  # a refusal comes back as an exception of gradio_client's
        from gradio_client.exceptions import AppError

        text = str(error) if isinstance(error, AppError) else f"{type(error).__name__}: {error}"
        return False, text, time.perf_counter() - start


def text_of(outputs: Any) -> str:
    """The words of a handler's outputs: its strings joined (plots, files and numbers left out)."""
    if isinstance(outputs, str):
        return outputs
    if isinstance(outputs, (tuple, list)):
        return " | ".join(o for o in outputs if isinstance(o, str) and o.strip())
    return repr(outputs)


def dependencies(server: Server) -> list[dict]:
    """Every event of the page, as its /config lists them (index, api_name, queued or not)."""
    return httpx.get(server.url + "config", timeout=30).json()["dependencies"]


def fn_indexes(server: Server) -> dict[str, int]:
    """Every event's index by its api_name."""
    return {d["api_name"]: d["id"] for d in dependencies(server) if d.get("api_name")}


def join(server: Server, fn_index: int, data: list, session_hash: str, address: str,
         query: str = "") -> httpx.Response:
    """POST /queue/join as the page does (the page adds its own address's query string)."""
    body = {"data": data, "fn_index": fn_index, "session_hash": session_hash,
            "event_data": None, "trigger_id": None}
    # JSON text with non-ASCII escaped, as a browser sends it (a lone surrogate too)
    return httpx.post(f"{server.url}gradio_api/queue/join{'?' + query if query else ''}",
                      content=json.dumps(body).encode(), timeout=CALL_TIMEOUT_S,
                      headers={"x-forwarded-for": address, "content-type": "application/json"})


def page_call(server: Server, fn_index: int, data: list, address: str, query: str = "",
              session_hash: str | None = None) -> tuple[int, Any]:
    """One call as the page makes it: join, then read the session's stream to the end of the
    event. Returns (the join's status, the event's output data, or the refusal's detail)."""
    session_hash = session_hash or uuid.uuid4().hex[:11]
    joined = join(server, fn_index, data, session_hash, address, query)
    if joined.status_code != 200:
        return joined.status_code, joined.text
    event = joined.json().get("event_id")
    with httpx.stream("GET", f"{server.url}gradio_api/queue/data",
                      params={"session_hash": session_hash}, timeout=CALL_TIMEOUT_S,
                      headers={"x-forwarded-for": address}) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("event_id") == event and message.get("msg") == "process_completed":
                output = message.get("output") or {}
                if message.get("success"):
                    return 200, output.get("data")
                return 200, f"refused ({message.get('title')}): {output.get('error')}"
    return 200, None


# --- bundles made to attack the loader ------------------------------------------------------

BUNDLE_TEXT = "to be or not to be, that is the question. " * 30


def tiny_bundle(folder: Path) -> Path:
    """The bundle of a real (tiny) run, with the trainer state the app saves."""
    from playground.checkpoint import save_bundle
    from playground.config import ModelConfig, TrainConfig
    from playground.corpus import from_text
    from playground.prepare import prepare_run
    from playground.tokenizer import train_tokenizer

    corpus = from_text(BUNDLE_TEXT)
    tok = train_tokenizer("char", corpus.text)
    run = prepare_run(corpus, tok, ModelConfig(block_size=16, n_layer=1, n_head=2, n_embd=16),
                      TrainConfig(max_steps=6, batch_size=4, warmup_steps=2, eval_interval=3,
                                  eval_iters=1, sample_tokens=0, device="cpu", dtype="float32"),
                      check_free_memory=False)
    trainer = run.trainer()
    list(trainer.run())
    return save_bundle(folder / "run.zip", run.trained.model, tok, run.trained.train_config, trainer.history,
                       trainer.state_dict())


def json_bomb(n_bytes: int, seed: int = 0) -> bytes:
    """A JSON list of empty objects and lists that deflates about 90:1 (under a 100:1 zip-bomb
    guard), the issue's ``[{},[],{},…]``.

    >>> import zlib
    >>> bomb = json_bomb(100_000)
    >>> json.loads(bomb)[:2], 80 < len(bomb) / len(zlib.compress(bomb)) < 100
    ([{}, {}], True)
    """
    rng = random.Random(seed)
    parts, size = [], 0
    while size < n_bytes:
        piece = ("{}," if rng.getrandbits(1) else "[],") * rng.randint(10, 50)
        parts.append(piece)
        size += len(piece)
    return b"[" + "".join(parts).encode() + b"{}]"


def rewritten(src: Path, dest: Path, changes: dict[str, Any], encrypted: bool = False) -> Path:
    """A copy of bundle ``src`` with members replaced (bytes or JSON-able) or dropped (None);
    ``encrypted`` sets every entry's encryption flag (zipfile itself never writes one)."""
    with zipfile.ZipFile(src) as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    for name, value in changes.items():
        if value is None:
            parts.pop(name, None)
        else:
            parts[name] = value if isinstance(value, bytes) else json.dumps(value).encode()
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    if encrypted:  # bit 0 of the flags, in each local header (offset 6) and directory entry (8)
        data = bytearray(dest.read_bytes())
        for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            start = data.find(signature)
            while start != -1:
                data[start + offset] |= 0x1
                start = data.find(signature, start + 4)
        dest.write_bytes(bytes(data))
    return dest


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def long_context_bundle(src: Path, dest: Path) -> Path:
    """The issue's legal bundle: 256 layers with RoPE at block_size 65,536, zero weights (a
    few thousand of them), whose cos/sin tables and KV cache would take gigabytes."""
    import safetensors.torch
    import torch

    from playground.config import ModelConfig
    from playground.model import GPT

    config = {**json.loads(_members(src)["model_config.json"]),
              "block_size": 65_536, "n_layer": 256, "n_head": 1, "n_embd": 8, "pos": "rope"}
    with torch.device("meta"):
        expected = GPT(ModelConfig(**config)).state_dict()
    weights = {k: torch.zeros(v.shape) for k, v in expected.items() if k != "lm_head.weight"}
    data = safetensors.torch.save(weights, metadata={"format": "pt", "lm_head.weight": "tok_emb.weight"})
    return rewritten(src, dest, {"model_config.json": config, "model.safetensors": data})


def crafted_bundles(src: Path, folder: Path) -> dict[str, Path]:
    """Finding 11's bundles: an encrypted flag, a trainer state nested 900 deep, a negative
    step, a missing key, NaN weights."""
    import safetensors.torch

    parts = _members(src)
    state = json.loads(parts["trainer_state.json"])
    deep = json.dumps({**state, "elapsed": "DEEP"}, indent=1).replace(
        '"DEEP"', "[ " * 900 + "]" * 900).encode()
    missing = {k: v for k, v in state.items() if k != "torch_rng"}
    weights = safetensors.torch.load(parts["model.safetensors"])
    weights["blocks.0.mlp.fc.weight"][3, 1] = float("nan")
    nan = safetensors.torch.save(weights, metadata={"format": "pt", "lm_head.weight": "tok_emb.weight"})
    return {
        "encrypted-flag zip": rewritten(src, folder / "locked.zip", {}, encrypted=True),
        "trainer state nested 900 deep": rewritten(src, folder / "deep.zip", {"trainer_state.json": deep}),
        "trainer state with step -5": rewritten(src, folder / "negative.zip",
                                                {"trainer_state.json": {**state, "step": -5}}),
        "trainer state without torch_rng": rewritten(src, folder / "missing.zip",
                                                     {"trainer_state.json": missing}),
        "a NaN weight": rewritten(src, folder / "nan.zip", {"model.safetensors": nan}),
    }


# --- the attacks, one function per finding -----------------------------------------------------

@dataclass
class Attack:
    """What every finding gets: the server, a folder for its files, and the run's mode."""

    server: Server
    folder: Path
    quick: bool
    bundle: Path | None = None
    deaths: int = 0  # times an attack left the server dead (it is started again for the next)
    idle_rss: int = 0  # the server's resident memory just after its start
    addresses: Iterator[int] = field(default_factory=lambda: iter(range(1, 255)))

    def address(self) -> str:
        """A fresh client address (TEST-NET-3), so no two attacks share a client's limits."""
        return f"203.0.113.{next(self.addresses)}"

    def row(self, finding: int | str | None, metric: str, value: Any, unit: str = "", target: str = "",
            met: bool | None = None, response: str = "", cost: Cost | None = None,
            note: str = "", stopped: bool = False) -> Row:
        """One row; ✗ where the response gives the server away or the server died (unless the
        attack ``stopped`` it)."""
        given_away = leak(response, self.server.paths())
        died = not stopped and not self.server.alive()
        words = [w for w in (note, cost.words() if cost else "",
                             f"said: {said(response)}" if response else "") if w]
        if given_away:
            words.insert(0, f"LEAKS {given_away!r}")
        if died:
            words.insert(0, "THE SERVER DIED")
        if (given_away or died) and met is not False:
            met, target = False, target or "no leak, server up"
        name = metric if finding is None else f"{finding}. {metric}"
        return Row("hostile", name, value, unit, target, note="; ".join(words), met=met)


def _settings(**changes) -> list:
    """The training tab's values (``SETTINGS`` order): the tiny preset, ``TINY_RUN``, changes."""
    from playground.ui import train_tab

    values = dict(zip(train_tab.SETTINGS, train_tab.preset_values("tiny")))
    values.update(TINY_RUN, **changes)
    return [values[name] for name in train_tab.SETTINGS]


def _upload(client, path: Path) -> tuple[bool, str]:
    from gradio_client import handle_file

    ok, out, _ = answer_of(lambda: client.predict(handle_file(str(path)), api_name="/upload_bundle"))
    return ok, text_of(out)


def bundles(attack: Attack) -> list[Row]:
    """1: the 2.35 MB bundle whose meta.json is [{},[],...] (214 MB inflated); the legal
    long-RoPE bundle uploaded in two sessions of one client, with a Generate; and the same
    bundle with a trainer state of another model."""
    server, rows = attack.server, []
    bomb_bytes = 214_000_000  # the issue's: 2.35 MB of zip
    bomb = rewritten(attack.bundle, attack.folder / "bomb.zip", {"meta.json": json_bomb(bomb_bytes)})
    client = visitor(server, attack.address())
    try:
        with measured(server) as cost:
            ok, response = _upload(client, bomb)
        rows.append(attack.row(1, f"JSON-bomb bundle ({bomb.stat().st_size / 2**20:.2f} MB, "
                               f"{bomb_bytes / 1e6:.0f} MB inflated): server peak", cost.peak_mb,
                               "MB", f"refused, <= {ALONE_PEAK_MB:.0f} MB",
                               met=not ok and cost.peak_mb <= ALONE_PEAK_MB, response=response,
                               cost=cost))
    finally:
        client.close()
    crafted = long_context_bundle(attack.bundle, attack.folder / "long-state.zip")
    client = visitor(server, attack.address())
    try:
        with measured(server) as cost:
            ok, response = _upload(client, crafted)
        rows.append(attack.row(1, "long-RoPE bundle with another model's trainer state: server peak",
                               cost.peak_mb, "MB", f"refused, <= {ALONE_PEAK_MB:.0f} MB",
                               met=not ok and cost.peak_mb <= ALONE_PEAK_MB, response=response,
                               cost=cost))
    finally:
        client.close()
    # what that refusal built is garbage the next load would reuse: a fresh server measures it
    server.stop()
    server.start()
    legal = rewritten(crafted, attack.folder / "long.zip", {
        "trainer_state.json": None, "trainer_state.safetensors": None,
        "meta.json": {**json.loads(_members(crafted)["meta.json"]), "has_trainer_state": False}})
    what = f"legal long-RoPE bundle ({legal.stat().st_size / 2**10:.0f} KB, 256 layers, ctx 65,536)"
    owner, clients, before = attack.address(), [], server.rss()
    try:
        for session in (1, 2):
            clients.append(visitor(server, owner))
            with measured(server) as cost:
                ok, response = _upload(clients[-1], legal)
            rows.append(attack.row(1, f"{what}, session {session} of one client: server peak",
                                   cost.peak_mb, "MB", f"refused, <= {ALONE_PEAK_MB:.0f} MB",
                                   met=not ok and cost.peak_mb <= ALONE_PEAK_MB, response=response,
                                   cost=cost, note="loaded" if ok else "refused"))
            if ok and session == 1:
                with measured(server) as cost:
                    ok, response = _generated(clients[-1], prompt=BUNDLE_TEXT[:6])
                rows.append(attack.row(1, "...Generate with it (20 tokens): server peak",
                                       cost.peak_mb, "MB", cost=cost, response=response))
    finally:
        for c in clients:
            c.close()
    # the server sees a client go when its heartbeat connection ends (at the next beat)
    for c in clients:
        c.heartbeat.join(timeout=30)
    time.sleep(3)
    rows.append(attack.row(1, "...after both clients went: resident memory above before them",
                           round((server.rss() - before) / 2**20), "MB",
                           note="what a process frees it mostly keeps (the C heap), for reuse"))
    return rows


# 2: a large legal run through the page's own Start, made small enough to take seconds here
LARGE_RUN = dict(block_size=64, n_layer=8, n_head=8, n_embd=512, batch_size=4, max_steps=2,
                 eval_interval=2, eval_iters=1, warmup_steps=1, sample_tokens=8, pos="learned")


def memory_estimate(attack: Attack) -> list[Row]:
    """2: the memory estimate against the server's measured peak for a whole run, save
    included (the issue's 100.8M model here at 25M parameters, so it runs in seconds)."""
    from dataclasses import replace

    from playground.config import ModelConfig, TrainConfig
    from playground.corpus import load_tiny_shakespeare
    from playground.model import count_params, estimate_memory
    from playground.ui import train_tab

    server = attack.server
    values = dict(zip(train_tab.SETTINGS, _settings(**LARGE_RUN)))
    corpus = load_tiny_shakespeare("bundled")
    vocab = len(set(corpus.text))  # the default character tokenizer's
    model_cfg = ModelConfig(vocab_size=vocab, **{k: values[k] for k in train_tab.MODEL_SETTINGS})
    train_cfg = replace(TrainConfig(), **{k: values[k] for k in train_tab.TRAIN_SETTINGS})
    estimate = estimate_memory(model_cfg, train_cfg, data_tokens=len(corpus.text)) / 2**20
    client = visitor(server, attack.address())
    try:
        with measured(server) as cost:
            ok, out, _ = answer_of(lambda: client.predict(False, *_settings(**LARGE_RUN),
                                                          api_name="/train_model"))
    finally:
        client.close()
    response = text_of(out)
    ratio = cost.peak_mb / estimate
    return [attack.row(2, f"{count_params(model_cfg) / 1e6:.1f}M-parameter run: measured peak / "
                       "estimate", round(ratio, 2), "x", "<= 1.3x",
                       met=ok and "Done" in response and ratio <= 1.3, response=response,
                       cost=cost, note=f"estimate {estimate:.0f} MB, 2 steps, bundle saved")]


def _wait_of_a_cheap_call(attack: Attack) -> tuple[bool, str, float]:
    """A second visitor, from its own address, trains a character tokenizer (0.1-0.3 s alone)."""
    client = visitor(attack.server, attack.address())
    try:
        ok, out, seconds = answer_of(lambda: client.predict("char", 512, api_name="/train_tokenizer"))
    finally:
        client.close()
    return ok, text_of(out), seconds


def one_client(attack: Attack) -> list[Row]:
    """3: one client queues many endless runs, then another visitor's cheap call; a run with
    eval_iters and sample_tokens at 10,000, then another visitor's call, then Stop."""
    server, rows = attack.server, []
    ok, response, alone = _wait_of_a_cheap_call(attack)
    rows.append(attack.row(3, "second visitor's tokenizer, server idle", alone, "s", response=response))
    client = visitor(server, attack.address())
    try:
        ok, out, _ = answer_of(lambda: client.predict(False, *_settings(
            max_steps=1_000_000, eval_interval=1_000_000), api_name="/train_model"))
    finally:
        client.close()
    rows.append(attack.row(3, "an endless run (1,000,000 steps) refused before Start", not ok, "",
                           "yes", met=not ok, response=text_of(out)))
    # the longest runs this shared server takes instead: endless for the minute of the attack
    flooder, n = attack.address(), 20
    long_run = _settings(max_steps=20_000, eval_interval=20_000)
    clients = [visitor(server, flooder) for _ in range(n)]
    try:
        jobs = [c.submit(False, *long_run, api_name="/train_model") for c in clients]
        time.sleep(3)  # every join answered
        refused = [str(j.exception(timeout=0)) for j in jobs if j.done() and j.exception(timeout=0)]
        ok, response, wait = _wait_of_a_cheap_call(attack)
        one_more = join(server, fn_indexes(server)["train_tokenizer"], [None, "char", 512],
                        uuid.uuid4().hex[:11], flooder)
        rows.append(attack.row(3, f"{n} runs of 20,000 steps from one client: let in",
                               n - len(refused), f"of {n}", "<= 12", met=n - len(refused) <= 12,
                               response=f"one more job: {one_more.status_code} {one_more.text}"))
        rows.append(attack.row(3, "...meanwhile a second visitor's tokenizer", wait, "s",
                               f"<= {SECOND_VISITOR_WAIT_S:.0f} s, answered",
                               met=ok and wait <= SECOND_VISITOR_WAIT_S, response=response))
    finally:
        for c in clients:
            answer_of(lambda c=c: c.predict(api_name="/stop_training"))
            c.close()
    client = visitor(server, attack.address())
    try:
        ok, out, _ = answer_of(lambda: client.predict(False, *_settings(
            eval_iters=10_000, sample_tokens=10_000), api_name="/train_model"))
        rows.append(attack.row(3, "eval_iters and sample_tokens 10,000: refused before Start",
                               not ok, "", "", response=text_of(out)))
        # the most this server takes: every evaluation 10,000 batches, every sample 2,000 tokens
        job = client.submit(False, *_settings(max_steps=100, eval_interval=100, eval_iters=10_000,
                                              sample_tokens=2_000), api_name="/train_model")
        time.sleep(3)
        ok, response, wait = _wait_of_a_cheap_call(attack)
        rows.append(attack.row(3, "eval_iters 10,000, sample_tokens 2,000 (the most taken): a second "
                               "visitor's tokenizer", wait, "s",
                               f"<= {SECOND_VISITOR_WAIT_S:.0f} s, answered",
                               met=ok and wait <= SECOND_VISITOR_WAIT_S, response=response,
                               note="the run inside its first evaluation" if not job.done() else
                                    "the run had already ended"))
        stopped = time.perf_counter()
        answer_of(lambda: client.predict(api_name="/stop_training"))
        ended, out, _ = answer_of(lambda: job.result(timeout=CALL_TIMEOUT_S))
        seconds = time.perf_counter() - stopped
        rows.append(attack.row(3, "...Stop pressed: the run ended after", seconds, "s", "<= 10 s",
                               met=seconds <= 10, response=text_of(out)))
    finally:
        client.close()
    return rows


def _second_run(attack: Attack) -> tuple[bool, str, float]:
    """A second visitor, from its own address, trains ``TINY_RUN`` (30 steps): seconds to its
    end, or ``CALL_TIMEOUT_S`` and not ok where it never got to train."""
    client = visitor(attack.server, attack.address())
    try:
        job = client.submit(False, *_settings(), api_name="/train_model")
        ok, out, seconds = answer_of(lambda: job.result(timeout=CALL_TIMEOUT_S))
        if not ok:
            answer_of(lambda: client.predict(api_name="/stop_training"))
    finally:
        client.close()
    return ok and "Done" in text_of(out), text_of(out), seconds


def one_network(attack: Attack) -> list[Row]:
    """27.3: one network holds as many long runs as it may, then a visitor from elsewhere
    presses Start (before: its run waited 240 s, until the flood was stopped)."""
    server, rows = attack.server, []
    ok, response, alone = _second_run(attack)
    rows.append(attack.row("27.3", "a second visitor's 30-step run, server idle: done after",
                           alone, "s", met=ok, response=response))
    flooder, n = attack.address(), 16
    long_run = _settings(max_steps=20_000, eval_interval=20_000)
    clients = [visitor(server, flooder) for _ in range(n)]
    try:
        jobs = [c.submit(False, *long_run, api_name="/train_model") for c in clients]
        time.sleep(5)  # every join answered, the runs let in under way
        refused = [str(j.exception(timeout=0)) for j in jobs if j.done() and j.exception(timeout=0)]
        rows.append(attack.row("27.3", f"{n} runs of 20,000 steps from one network: let in",
                               n - len(refused), f"of {n}", "<= 12", met=n - len(refused) <= 12,
                               response=refused[0] if refused else ""))
        ok, response, seconds = _second_run(attack)
        rows.append(attack.row("27.3", "...meanwhile a second visitor's 30-step run: done after",
                               seconds, "s", f"<= {SECOND_VISITOR_WAIT_S * 2:.0f} s, done",
                               met=ok and seconds <= SECOND_VISITOR_WAIT_S * 2, response=response,
                               note=f"alone {alone:.1f} s"))
    finally:
        for c in clients:
            answer_of(lambda c=c: c.predict(api_name="/stop_training"))
            c.close()
    return rows


UNREAD_WAIT_S = 45.0  # past sessions.UNREAD_S (30 s) and a sweep (5 s)


def unread_stream(attack: Attack) -> list[Row]:
    """27.6: a client joins a long training run and never opens its result stream (before:
    the server kept every update the run sent, about 250 MB, after the client had gone)."""
    server = attack.server
    indexes, session = fn_indexes(server), f"silent{uuid.uuid4().hex[:8]}"
    address = attack.address()
    with measured(server) as cost:
        joined = join(server, indexes["train_model"],
                      [None, False, *_settings(max_steps=20_000, eval_interval=50)],
                      session, address)
        busy = join(server, indexes["train_tokenizer"], [None, "char", 512], session, address)
        time.sleep(UNREAD_WAIT_S)
        # its run has ended when the same page may start another compute job (a page gets one)
        again = join(server, indexes["train_tokenizer"], [None, "char", 512], session, address)
    ended = joined.status_code == 200 and busy.status_code == 429 and again.status_code == 200
    return [attack.row("27.6", "a training run whose client never reads its stream: ended "
                       f"within {UNREAD_WAIT_S:.0f} s", ended, "", "yes, what waited dropped",
                       met=ended, cost=cost, response="" if ended else again.text,
                       note=f"join {joined.status_code}; the page's next compute job: "
                            f"{busy.status_code} at once, {again.status_code} after")]



# 27.4: a model whose every step takes a sizeable share of a second on one thread (25M parameters)
STEP_RUN = dict(LARGE_RUN, max_steps=2, eval_interval=2, eval_iters=1, sample_tokens=8)
STEP_PRESS = dict(STEP_RUN, max_steps=1_000, eval_interval=1_000)  # a press steps up to max_steps
STEP_STOP_S = 10.0  # the attacker's Stop ends the stepping within this (one step, with margin)


def step_hold(attack: Attack) -> list[Row]:
    """27.4: a visitor trains a sizeable model, then presses Step ×100; meanwhile another
    visitor's Generate, then the attacker's Stop (before: the Generate waited 373 s, 0.8 s
    alone, and the Stop took about 150 s to act)."""
    server, rows = attack.server, []
    victim = _trained_visitor(attack)
    attacker = visitor(server, attack.address())
    try:
        start = time.perf_counter()
        _generated(victim)
        alone = time.perf_counter() - start
        ok, out, trained_s = answer_of(lambda: attacker.predict(False, *_settings(**STEP_RUN),
                                                                api_name="/train_model"))
        if not (ok and "Done" in text_of(out)):
            return [attack.row("27.4", "the attacker's model could not be trained", None, "",
                               "trained", met=False, response=text_of(out))]
        press = _settings(**STEP_PRESS)
        job = attacker.submit("ROMEO:", 0.8, 0, 1.0, *press, api_name="/inside_step_100")
        time.sleep(5)  # the press under way, its first steps taken
        pressing = not job.done()
        start = time.perf_counter()
        ok, response = _generated(victim)
        wait = time.perf_counter() - start
        rows.append(attack.row("27.4", "a second visitor's generate (20 tokens) during Step ×100 "
                               "of a 25M-parameter model: answered after", wait, "s",
                               f"<= {SECOND_VISITOR_WAIT_S:.0f} s, answered",
                               met=ok and pressing and wait <= SECOND_VISITOR_WAIT_S,
                               response=response,
                               note=f"alone {alone:.1f} s; the attacker's 2-step run took "
                                    f"{trained_s:.0f} s; the press "
                                    f"{'still under way' if not job.done() else 'had ended'} "
                                    "after the generate" + ("" if pressing else
                                                            "; THE PRESS ENDED BEFORE IT")))
        answer_of(lambda: attacker.predict(api_name="/stop_training"))
        answer_of(lambda: job.result(timeout=CALL_TIMEOUT_S * 4))
        # Stop, timed on a press of its own (the generate may have waited out the first)
        job = attacker.submit("ROMEO:", 0.8, 0, 1.0, *press, api_name="/inside_step_100")
        time.sleep(10)
        under_way, stopped = not job.done(), time.perf_counter()
        answer_of(lambda: attacker.predict(api_name="/stop_training"))
        ended, out, _ = answer_of(lambda: job.result(timeout=CALL_TIMEOUT_S * 4))
        seconds = time.perf_counter() - stopped
        rows.append(attack.row("27.4", "...the attacker's Stop, 10 s into another press, ended "
                               "the stepping after", seconds, "s", f"<= {STEP_STOP_S:.0f} s",
                               met=ended and under_way and seconds <= STEP_STOP_S,
                               response=text_of(out) if ended else str(out),
                               note="" if under_way else "THE PRESS HAD ENDED BEFORE STOP"))
    finally:
        answer_of(lambda: attacker.predict(api_name="/stop_training"))
        attacker.close()
        victim.close()
    return rows


FORWARDED_JOINS = 600  # each with a new left part of X-Forwarded-For (the issue sent 2,100)


def forwarded_flood(attack: Attack) -> list[Row]:
    """27.5: a visitor trains a long run while an attacker sends ``FORWARDED_JOINS`` joins,
    each with a new session and a new address written left of its own in X-Forwarded-For
    (before: 2,100 of 2,100 let in, the visitor's run cut off, its page then answered 429
    "already has a job waiting or running" to every call). The bench's server trusts the
    proxy, so the rightmost entry is the client's: the entry a Space's proxy appends."""
    from playground.runtime.hosting import NEW_SESSIONS_PER_MINUTE as cap

    server, rows = attack.server, []
    index = fn_indexes(server)["stop_training"]  # a cheap call that opens a session
    victim, attacker = visitor(server, attack.address()), attack.address()
    try:
        job = victim.submit(False, *_settings(max_steps=20_000, eval_interval=20_000),
                            api_name="/train_model")
        time.sleep(5)  # the run under way
        with measured(server) as cost:
            statuses = [join(server, index, [None], f"xff{i:07d}",
                             f"198.51.100.{i % 250 + 1}, {attacker}").status_code
                        for i in range(FORWARDED_JOINS)]
        let_in = statuses.count(200)
        rows.append(attack.row("27.5", f"{FORWARDED_JOINS} joins from one client, each with a new "
                               "X-Forwarded-For address left of its own: let in", let_in,
                               f"of {FORWARDED_JOINS}", f"<= {cap} a minute",
                               met=let_in <= cap * max(1, math.ceil(cost.seconds / 60)), cost=cost,
                               note=f"other answers {sorted(set(statuses) - {200})}; "
                                    f"{cost.seconds:.0f} s; the server sees "
                                    "'198.51.100.x, <client>' as a Space's proxy passes it on "
                                    "(it appends the address it saw)"))
        going = not job.done()
        stopped = answer_of(lambda: victim.predict(api_name="/stop_training"))[0]
        ended, out, _ = answer_of(lambda: job.result(timeout=CALL_TIMEOUT_S))
        rows.append(attack.row("27.5", "...the visitor's run under way through the flood, then "
                               "ended by its own Stop", going and ended, "", "yes",
                               met=going and ended and stopped, response=text_of(out)
                               if ended else str(out)))
        ok, out, _ = answer_of(lambda: victim.predict("char", 512, api_name="/train_tokenizer"))
        rows.append(attack.row("27.5", "...the visitor's next compute job after its run: let in",
                               ok, "", "yes", met=ok, response=text_of(out)))
    finally:
        answer_of(lambda: victim.predict(api_name="/stop_training"))
        victim.close()
    return rows


NO_SPACES_BYTES = 1_000_000


def tokenizer_without_spaces(attack: Attack) -> list[Row]:
    """4: BPE tokenizer training on 1 MB of text without spaces."""
    rng = random.Random(0)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(NO_SPACES_BYTES))
    client = visitor(attack.server, attack.address())
    try:
        answer_of(lambda: client.predict("Paste text", None, text, api_name="/use_corpus"))
        with measured(attack.server) as cost:
            ok, out, seconds = answer_of(lambda: client.predict("bpe", 512, api_name="/train_tokenizer"))
    finally:
        client.close()
    from playground.ui.tokenizer_tab import TIME_BUDGET_S

    return [attack.row(4, "BPE (vocab 512) on 1 MB without spaces", seconds, "s",
                       f"<= {TIME_BUDGET_S} s budget", met=seconds <= TIME_BUDGET_S + 5,
                       response=text_of(out), cost=cost,
                       note="trained" if ok else "refused")]


def bypass(attack: Attack) -> list[Row]:
    """5: every queued function called on Gradio's non-queued routes (/run and /api)."""
    queued = [d["api_name"] for d in dependencies(attack.server)
              if d.get("api_name") and d.get("queue") is not False]
    answers = {}
    with measured(attack.server) as cost:
        for name in queued:
            for route in ("run", "api"):
                answers[(route, name)] = httpx.post(
                    f"{attack.server.url}gradio_api/{route}/{name}", json={"data": []},
                    timeout=CALL_TIMEOUT_S, headers={"x-forwarded-for": attack.address()})
    reached = [key for key, r in answers.items() if r.status_code != 404]
    first = answers[("run", "train_model")]
    return [attack.row(5, f"/run and /api calls of the {len(queued)} queued functions reaching one",
                       len(reached), f"of {len(answers)}", "0", met=not reached,
                       response=f"{first.status_code} {first.text}", cost=cost,
                       note=", ".join(f"{r}/{n}" for r, n in reached[:4]))]


def _trained_visitor(attack: Attack):
    """A visitor who trained the tiny preset briefly (its model is what a flood must not take)."""
    client = visitor(attack.server, attack.address())
    answer_of(lambda: client.predict(False, *_settings(), api_name="/train_model"))
    return client


def _generated(client, prompt: str = "ROMEO:") -> tuple[bool, str]:
    ok, out, _ = answer_of(lambda: client.predict(prompt, 20, 0.8, 0, 1.0, 1, api_name="/generate"))
    return ok, text_of(out)


def session_flood(attack: Attack) -> list[Row]:
    """6: fake session hashes from one address, then from many (a botnet), against a visitor's
    trained model; the server holds ``FLOOD_CAPACITY`` sessions (``PLAYGROUND_MAX_SESSIONS``)."""
    server, rows = attack.server, []
    index = fn_indexes(server)["stop_training"]  # a cheap call that opens a session
    victim = None if attack.quick else _trained_visitor(attack)
    try:
        one, n_one = attack.address(), 100
        with measured(server) as cost:
            answers = [join(server, index, [None], f"fake{i:07d}", one) for i in range(n_one)]
        let_in = sum(a.status_code == 200 for a in answers)
        refused = next((a.text for a in answers if a.status_code != 200), "")
        rows.append(attack.row(6, f"{n_one} fake session hashes from one address: let in", let_in,
                               f"of {n_one}", "<= 60 a minute", met=let_in <= 60, response=refused,
                               cost=cost))
        if attack.quick:
            return rows
        n_many, per_address = FLOOD_CAPACITY * 3 // 2, 10  # with the first 60: past the capacity
        statuses, seconds = [], []
        with measured(server) as cost:
            for i in range(n_many):
                start = time.perf_counter()
                statuses.append(join(server, index, [None], f"bot{i:07d}",
                                     f"198.51.100.{i // per_address + 1}").status_code)
                seconds.append(time.perf_counter() - start)
        let_in = statuses.count(200)
        rows.append(attack.row(6, f"{n_many} fake hashes from {n_many // per_address} addresses "
                               f"(capacity {FLOOD_CAPACITY}): memory per hash let in",
                               round(cost.peak_mb * 1024 / max(1, let_in)), "KB",
                               "< 350 KB (before)", met=cost.peak_mb * 1024 / max(1, let_in) < 350,
                               cost=cost,
                               note=f"let in {let_in}, other answers {sorted(set(statuses) - {200})}; "
                                    f"a join took {statistics.median(seconds[:50]) * 1e3:.0f} ms "
                                    f"below capacity, {statistics.median(seconds[-50:]) * 1e3:.0f} "
                                    f"ms at it (median)"))
        ok, response = _generated(victim)
        rows.append(attack.row(6, "...the visitor's trained model after the flood generates", ok,
                               "", "yes", met=ok, response=response))
    finally:
        if victim is not None:
            victim.close()
    return rows


def disk(attack: Attack) -> list[Row]:
    """7: uploads without a session from one address, and deep_link calls."""
    server, rows = attack.server, []
    size, n = (2**20, 12) if attack.quick else (int(4.9 * 2**20), 50)
    address = attack.address()
    with measured(server) as cost:  # each file its own bytes: Gradio stores equal files once
        statuses = [httpx.post(f"{server.url}gradio_api/upload", headers={"x-forwarded-for": address},
                               files={"files": ("notes.txt", os.urandom(size))},
                               timeout=CALL_TIMEOUT_S)
                    for _ in range(n)]
    taken = sum(r.status_code == 200 for r in statuses)
    refused = next((r.text for r in statuses if r.status_code != 200), "")
    from playground.server.guard import UPLOAD_BYTES_PER_HOUR

    limit_mb = UPLOAD_BYTES_PER_HOUR / 2**20
    rows.append(attack.row(7, f"{n} uploads of {size / 2**20:.1f} MB, no session: disk growth",
                           round(cost.disk_mb, 1), "MB", f"<= {limit_mb:.0f} MB an hour per address",
                           met=cost.disk_mb <= limit_mb + 1, response=refused, cost=cost,
                           note=f"{taken} taken"))
    with measured(server) as cost:
        links = [httpx.get(f"{server.url}gradio_api/deep_link", params={"session_hash": f"x{i}"},
                           timeout=CALL_TIMEOUT_S) for i in range(50)]
    rows.append(attack.row(7, "50 deep_link calls: disk growth", round(cost.disk_mb, 3), "MB", "0",
                           met=cost.disk_mb == 0, response=f"{links[0].status_code} {links[0].text}",
                           cost=cost))
    return rows


INJECTED_LINK = "v=1&n_layer=2&%5BLog%20in%20to%20keep%20your%20model%5D(%2F%2Fev.il)=1&%21%5Bx%5D(https%3A%2F%2Fev.il%2Fp.png)=1"


def injected_link(attack: Attack) -> list[Row]:
    """9: the issue's link, as the page's load sends it: what the banner's Markdown holds."""
    index = fn_indexes(attack.server)["restore_from_link"]
    status, data = page_call(attack.server, index, [None], attack.address(), query=INJECTED_LINK)
    banner = data[0] if isinstance(data, list) and data else data
    text = banner.get("value", "") if isinstance(banner, dict) else str(banner)
    injected = any(mark in text for mark in ("ev.il", "](", "![", "<img", "<a "))
    return [attack.row(9, "injected link: link or image markup in the banner", injected, "", "no",
                       met=status == 200 and not injected, response=text)]


def _response(sock: socket.socket) -> str:
    """One HTTP response read from ``sock``: its head, then as much body as it declares."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096) or b"\r\n\r\n"
    head, body = data.split(b"\r\n\r\n", 1)
    length = re.search(rb"content-length: (\d+)", head, re.I)
    while length and len(body) < int(length.group(1)):
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return (head + b"\r\n\r\n" + body).decode(errors="replace")


def bodies(attack: Attack) -> list[Row]:
    """10: a 200 MB body (declared), a 50 MB body (undeclared, in chunks), and choice values of
    10 MB and 1 MB (the issue's 69 calls of 10 MB: 10 and 20 calls here)."""
    server, rows = attack.server, []
    host, port = "127.0.0.1", int(server.url.rsplit(":", 1)[1].strip("/"))
    with measured(server) as cost:
        with socket.create_connection((host, port), timeout=CALL_TIMEOUT_S) as sock:
            sock.sendall(b"POST /gradio_api/queue/join HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 209715200\r\n\r\n" + b'{"data": ["' +
                         b"a" * 2**20)
            head = _response(sock)
    rows.append(attack.row(10, "200 MB body (declared length): server peak", cost.peak_mb, "MB",
                           f"413, <= {ALONE_PEAK_MB:.0f} MB",
                           met=head.startswith("HTTP/1.1 413") and cost.peak_mb <= ALONE_PEAK_MB,
                           response=head.split("\r\n\r\n", 1)[-1] or head, cost=cost))

    def chunks():
        for _ in range(10 if attack.quick else 50):
            yield b"a" * 2**20

    with measured(server) as cost:
        ok, response, _ = answer_of(lambda: httpx.post(
            f"{server.url}gradio_api/queue/join", content=chunks(), timeout=CALL_TIMEOUT_S,
            headers={"content-type": "application/json"}))
    text = f"{response.status_code} {response.text}" if ok else response
    rows.append(attack.row(10, f"{10 if attack.quick else 50} MB body in chunks: server peak",
                           cost.peak_mb, "MB", f"413, <= {ALONE_PEAK_MB:.0f} MB",
                           met=text.startswith("413") and cost.peak_mb <= ALONE_PEAK_MB,
                           response=text, cost=cost))
    index = fn_indexes(server)["use_corpus"]
    address = attack.address()
    for megabytes, calls in ((10, 3 if attack.quick else 10), (1, 5 if attack.quick else 20)):
        value = "Paste text" + "x" * (megabytes * 2**20)
        answers = []
        with measured(server) as cost:
            for i in range(calls):
                ok, response, _ = answer_of(lambda data=[None, value, None, "hi"],
                                            key=f"radio{megabytes}-{i}":
                                            join(server, index, data, key, address))
                answers.append(f"{response.status_code} {response.text}" if ok else response)
        echoed = max(len(a) for a in answers)
        rows.append(attack.row(10, f"{calls} calls with a {megabytes} MB choice value: log growth",
                               round(cost.log_kb, 1), "KB", "<= 10 KB, value not echoed",
                               met=cost.log_kb <= 10 and "xxxxxxxx" not in "".join(answers),
                               response=answers[0], cost=cost,
                               note=f"longest answer {echoed:,} characters"))
    # calls Gradio itself refuses: a function the page calls unqueued, sent no values, and an
    # event that does not exist
    unqueued = [d["api_name"] for d in dependencies(server)
                if d.get("api_name") and d.get("queue") is False]
    calls = 20 if attack.quick else 60
    with measured(server) as cost:
        for i in range(calls):
            if i % 2 and unqueued:
                answer = httpx.post(f"{server.url}gradio_api/run/{unqueued[i // 2 % len(unqueued)]}",
                                    json={"data": []}, timeout=CALL_TIMEOUT_S,
                                    headers={"x-forwarded-for": address})
            else:
                answer = join(server, 9999, [None], f"nothing-{i}", address)
    per_call = cost.log_kb / calls
    rows.append(attack.row(10, f"{calls} calls Gradio refuses itself (unqueued with no values, "
                           "no such event): log per call", round(per_call, 2), "KB",
                           f"<= {LOG_LINE_KB} KB (one line)", met=per_call <= LOG_LINE_KB,
                           response=f"{answer.status_code} {answer.text}", cost=cost,
                           note=f"{len(unqueued)} functions are unqueued"))
    return rows


def smaller(attack: Attack) -> list[Row]:
    """11: crafted bundles, odd prompts and seeds, Gradio's own errors, /monitoring, compile."""
    server, rows = attack.server, []
    monitoring = httpx.get(f"{server.url}monitoring/summary", timeout=CALL_TIMEOUT_S)
    rows.append(attack.row(11, "/monitoring/summary answers", monitoring.status_code, "HTTP",
                           "403 or 404", met=monitoring.status_code in (403, 404),
                           response=monitoring.text))
    # Gradio's own refusals: a list where a number goes, an event that does not exist
    index = fn_indexes(server)["generate"]
    for what, fn, data in (("a list where a number goes", index, [None, "hi", [1, 2], 0.8, 0, 1.0, 0]),
                           ("an event that does not exist", 9999, [None])):
        status, output = page_call(server, fn, data, attack.address())
        response = f"{status} {output}"
        given_away = leak(response, server.paths()) is not None
        rows.append(attack.row(11, f"Gradio's own error ({what}): a traceback or path in it",
                               given_away, "", "no", met=not given_away, response=response))
    if attack.quick:
        return rows
    client = visitor(server, attack.address())
    try:
        for name, path in crafted_bundles(attack.bundle, attack.folder).items():
            ok, response = _upload(client, path)
            rows.append(attack.row(11, f"bundle with {name}: refused with a reason", not ok, "",
                                   "yes", met=not ok and "unexpected" not in response,
                                   response=response))
    finally:
        client.close()
    client = _trained_visitor(attack)
    try:
        index = fn_indexes(server)["generate"]
        for what, prompt, seed in (("a lone surrogate prompt", "\ud800ROMEO", 0),
                                   ("seed=None", "ROMEO:", None), ("seed=2**70", "ROMEO:", 2**70)):
            # as JSON text with the surrogate escaped (gradio_client cannot encode one itself)
            status, out = page_call(server, index, [None, prompt, 20, 0.8, 0, 1.0, seed],
                                    attack.address(), session_hash=client.session_hash)
            response = text_of(out) if status == 200 else f"{status} {out}"
            raw = re.search(r"\b[A-Z]\w*(Error|Exception)\b|codec|Traceback", response)
            plain = "unexpected" not in response and not raw
            rows.append(attack.row(11, f"Generate with {what}: a plain answer", plain, "", "yes",
                                   met=plain, response=response))
        ok, out, _ = answer_of(lambda: client.predict(False, *_settings(compile=True),
                                                      api_name="/train_model"))
        response = text_of(out)
        rows.append(attack.row(11, "compile=True on shared hosting: refused before Start", not ok,
                               "", "yes", met=not ok and "compile" in response, response=response))
        job = client.submit(False, *_settings(max_steps=100_000, eval_interval=100_000),
                            api_name="/train_model")
        time.sleep(3)
        status, response = page_call(server, index, [None, "ROMEO:", 20, 0.8, 0, 1.0, 0],
                                     attack.address(), session_hash=client.session_hash)
        rows.append(attack.row(11, "Generate with a model that is training: refused", status != 200,
                               "", "yes", met=status != 200, response=f"{status} {response}"))
        answer_of(lambda: client.predict(api_name="/stop_training"))
        answer_of(lambda: job.result(timeout=CALL_TIMEOUT_S))
    finally:
        client.close()
    return rows


# --- the restart and the full disk: a server of their own ----------------------------------

FULL_DISK_MB = 4  # a visitor's disk budget for finding 8: a tiny model's bundle fits, not more


def full_disk(attack: Attack) -> list[Row]:
    """8a: a save that would not fit (the visitor's disk budget at ``FULL_DISK_MB``): refused
    before it starts, and the bundle saved before is kept."""
    app_dir = attack.server.folder / "gradio" / "playground"
    client = visitor(attack.server, attack.address())
    try:
        first_ok, first, _ = answer_of(lambda: client.predict(False, *_settings(), api_name="/train_model"))
        before = {p: p.stat().st_size for p in app_dir.rglob("*.zip")}
        with measured(attack.server) as cost:
            ok, out, _ = answer_of(lambda: client.predict(False, *_settings(
                n_layer=4, n_embd=256, n_head=4, max_steps=2, eval_interval=2),
                api_name="/train_model"))
        kept = bool(before) and all(p.exists() and p.stat().st_size == n for p, n in before.items())
    finally:
        client.close()
    response = text_of(out)
    return [attack.row(8, f"save past the disk ({FULL_DISK_MB} MB budget): the earlier bundle kept",
                       kept, "", "yes, refused with a reason",
                       met=kept and "not saved" in response, response=response, cost=cost,
                       note=f"{len(before)} bundle(s) before")]


def _chromium():
    """Playwright's Chromium (Debian's), or None where it is not installed."""
    if not Path("/usr/bin/chromium").exists():
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    return sync_playwright


def restart_and_link(folder: Path) -> list[Row]:
    """8c and 9: a page training when the server gets SIGTERM, the page reloaded on the server
    started again; then the issue's injected link, rendered. Needs Chromium (Playwright)."""
    playwright = _chromium()
    if playwright is None:
        return [Row("hostile", "8. SIGTERM during a run", None,
                     note="not measured: needs /usr/bin/chromium and Playwright")]
    rows: list[Row] = []
    server = Server(folder)
    server.start()
    attack = Attack(server, folder, quick=False)
    outside: list[str] = []

    def only_here(route):
        host = re.sub(r"^\w+://([^/:]+).*$", r"\1", route.request.url)
        if host == "127.0.0.1":
            return route.continue_()
        outside.append(route.request.url)
        return route.abort()

    with playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.route("**/*", only_here)
            page.set_default_timeout(60_000)
            page.goto(server.url)
            page.get_by_role("tab", name="3 · Model & training").click()
            page.locator("#preset-choice label").filter(has_text="tiny ·").click()
            page.get_by_role("button", name="Start training").click()
            status = page.locator("#train-status")
            status.filter(has_text="Training:").wait_for(timeout=60_000)
            page.wait_for_timeout(2000)
            seconds, code = server.stop()
            kept = list((folder / "data").rglob("*.zip"))
            rows.append(attack.row(8, "SIGTERM during a run: seconds to exit", seconds, "s",
                                   "<= 10 s, bundle kept", met=seconds <= 10 and bool(kept),
                                   note=f"exit status {code}, {len(kept)} bundle(s) kept "
                                        f"for the returning visitor", stopped=True))
            server.start()
            page.reload()
            came_back = True
            try:
                status.filter(has_text="Welcome back").wait_for(timeout=60_000)
            except Exception:
                came_back = False
            rows.append(attack.row(8, "...the page reloaded on the restarted server has its model",
                                   came_back, "", "yes", met=came_back,
                                   response=status.inner_text()))
            link = browser.new_context().new_page()
            link.route("**/*", only_here)
            link.goto(f"{server.url}?{INJECTED_LINK}")
            banner = link.locator("#link-message")
            banner.wait_for(state="visible", timeout=60_000)
            link.wait_for_timeout(1000)
            markup = banner.locator("a, img").count()
            elsewhere = [u for u in outside if "ev.il" in u]
            rows.append(attack.row(9, "injected link in the browser: links and images in the banner",
                                   markup, "", "0, nothing fetched from ev.il",
                                   met=markup == 0 and not elsewhere, response=banner.inner_text(),
                                   note=f"{len(elsewhere)} requests to ev.il (aborted)"))
        finally:
            browser.close()
            server.stop()
    return rows


# --- round 3 (issue 27) -------------------------------------------------------------------------

HELD_CAP_MB = 1600  # the capped server's memory cgroup (a 16 GB Space, scaled to this bench)
HELD_VISITORS = 5
HELD_RUN = dict(n_layer=6, n_embd=512, n_head=8, block_size=64, batch_size=8, max_steps=2,
                eval_interval=2, eval_iters=1, sample_tokens=0, optimizer="adamw")
HELD_PASTE_CHARS = 4_500_000  # the next visitor's paste, then a BPE tokenizer on it


def memory_cgroup(name: str, limit_mb: int) -> Path | None:
    """A memory cgroup below this process's own, limited to ``limit_mb`` (cgroup v1 or v2),
    or None where this machine lets us make none (not root, no memory controller)."""
    from playground.runtime.device import CGROUP_ROOT, own_cgroups

    own = own_cgroups()
    for top, below, limit_file in ((CGROUP_ROOT, own.get(""), "memory.max"),
                                   (CGROUP_ROOT / "memory", own.get("memory"),
                                    "memory.limit_in_bytes")):
        parent = top.joinpath(*[p for p in (below or "/").split("/") if p])
        if below is None or not (parent / limit_file).exists():
            continue
        try:
            path = parent / name
            path.mkdir(exist_ok=True)
            (path / limit_file).write_text(str(limit_mb * 2**20))
            return path
        except OSError:
            continue
    return None


def held_models(folder: Path) -> list[Row]:
    """Round 3, 2: models finished runs leave in memory are counted. A server in a memory
    cgroup of ``HELD_CAP_MB``; ``HELD_VISITORS`` visitors each train a model and keep it;
    then one more pastes a text and trains a BPE tokenizer. Before, the kernel killed the
    server there; now idle models go to disk and come back when their visitor generates."""
    cgroup = memory_cgroup(f"playground-hostile-{os.getpid()}", HELD_CAP_MB)
    if cgroup is None:
        return [Row("hostile", "27.2. five held models and a tokenizer in a memory cgroup", None,
                    note="not replayed: this machine lets the bench make no memory cgroup")]
    server = Server(folder, cgroup=cgroup)
    attack = Attack(server, folder, False)
    rows: list[Row] = []
    clients = []
    try:
        server.start()
        idle = server.rss()
        trained = 0
        for _ in range(HELD_VISITORS):
            client = visitor(server, attack.address())
            clients.append(client)
            ok, out, _ = answer_of(lambda c=client: c.predict(False, *_settings(**HELD_RUN),
                                                              api_name="/train_model"))
            trained += ok and "Done" in text_of(out)
            if not server.alive():
                break
        held = server.rss()
        rows.append(attack.row("27.2", f"{HELD_VISITORS} visitors train a {HELD_RUN['n_layer']}x"
                               f"{HELD_RUN['n_embd']} model each and keep it (cap {HELD_CAP_MB} "
                               "MB): runs done", trained, f"of {HELD_VISITORS}",
                               f"{HELD_VISITORS}", met=trained == HELD_VISITORS,
                               note=f"RSS {idle / 2**20:.0f} -> {held / 2**20:.0f} MB"))
        rng = random.Random(0)
        words = ["".join(rng.choice("etaoinshrdlu") for _ in range(rng.randint(2, 9)))
                 for _ in range(5000)]
        text = " ".join(rng.choice(words) for _ in range(HELD_PASTE_CHARS // 6))
        late = visitor(server, attack.address())
        clients.append(late)
        answer_of(lambda: late.predict("Paste text", None, text, api_name="/use_corpus"))
        with measured(server) as cost:
            ok, out, _ = answer_of(lambda: late.predict("bpe", 2000, api_name="/train_tokenizer"))
        set_aside = sum(1 for _ in folder.joinpath("gradio").rglob("set-aside-model.pt"))
        rows.append(attack.row("27.2", "...then one more visitor's BPE tokenizer on a "
                               f"{len(text) / 1e6:.1f} MB paste: trained", ok, "",
                               "yes, server up", met=ok and server.alive(),
                               response=text_of(out), cost=cost,
                               note=f"{set_aside} idle models set aside on disk"))
        back = sum(_generated(client)[0] for client in clients[:HELD_VISITORS])
        rows.append(attack.row("27.2", "...each of the first visitors' models generates after",
                               back, f"of {HELD_VISITORS}", f"{HELD_VISITORS}",
                               met=back == HELD_VISITORS,
                               note=f"RSS at the end {server.rss() / 2**20:.0f} MB"))
    except Exception as error:
        rows.append(attack.row("27.2", "held models: the attack could not finish", None, "",
                               "finishes", met=False, note=said(f"{type(error).__name__}: {error}")))
    finally:
        for client in clients:
            client.close()
        server.stop()
        try:
            cgroup.rmdir()
        except OSError:
            pass
    return rows


SECRET = "SECRET-A " * 2100  # 27.1: visitor A's text, 18,900 characters as in issue 27


def _file_data(path: str) -> dict:
    return {"path": path, "meta": {"_type": "gradio.FileData"}, "orig_name": Path(path).name}


def another_visitors_files(attack: Attack) -> list[Row]:
    """27.1: visitor B names visitor A's uploads by their server paths, as B's corpus and as
    B's bundle, in every form a path can take (A's path, relative to the server's working
    folder, climbing out of B's own upload's folder with ..), from another network and from
    A's own; then B's own uploads."""
    from playground.checkpoint import save_bundle
    from playground.config import ModelConfig, TrainConfig
    from playground.model import GPT
    from playground.tokenizer import train_tokenizer

    server, rows, index = attack.server, [], fn_indexes(attack.server)
    tok = train_tokenizer("char", SECRET)
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8))
    bundle = save_bundle(attack.folder / "model_A.zip", model, tok, TrainConfig(), [])

    def upload(name: str, data: bytes, address: str) -> str:
        return httpx.post(f"{server.url}gradio_api/upload", files={"files": (name, data)},
                          headers={"x-forwarded-for": address}, timeout=CALL_TIMEOUT_S).json()[0]

    def as_corpus(path: str, address: str, session: str) -> tuple[int, Any]:
        return page_call(server, index["use_corpus"], [None, "Upload files", [_file_data(path)], ""],
                         address, session_hash=session)

    def as_bundle(path: str, address: str, session: str) -> tuple[int, Any]:
        return page_call(server, index["upload_bundle"], [None, _file_data(path)], address,
                         session_hash=session)

    owner, other = attack.address(), attack.address()
    secret = upload("secret_A.txt", SECRET.encode(), owner)
    model_path = upload("model_A.zip", bundle.read_bytes(), owner)
    as_corpus(secret, owner, "page-a")
    as_bundle(model_path, owner, "page-a")
    own = upload("mine.txt", b"B's own words, nothing more. " * 10, other)

    def forms(path: str) -> dict[str, str]:
        return {"its path": path, "relative": os.path.relpath(path, server.folder / "cwd"),
                "..": str(Path(own).parent / ".." / Path(path).parent.name / Path(path).name)}

    with measured(server) as cost:
        read = [(what, address, as_corpus(p, address, f"page-b{n}"))
                for n, (address, (what, p)) in enumerate(
                    (a, f) for a in (other, owner) for f in forms(secret).items())]
        loaded = [(what, address, as_bundle(p, address, f"page-c{n}"))
                  for n, (address, (what, p)) in enumerate(
                      (a, f) for a in (other, owner) for f in forms(model_path).items())]
    got = [text_of(out) for _, _, (_, out) in read]
    leaked = max((len(SECRET) for text in got if "SECRET-A" in text), default=0)
    refusal = next((text for text in got if "SECRET-A" not in text), "")
    rows.append(attack.row("27.1", f"B names A's {len(SECRET):,}-character upload as its corpus "
                           f"({len(read)} path forms, 2 networks): A's characters B got", leaked,
                           "characters", "0", met=leaked == 0, response=refusal, cost=cost,
                           note=f"read in {sum('SECRET-A' in t for t in got)} of {len(read)} forms"))
    took = [what for what, _, (_, out) in loaded if "Loaded" in text_of(out)]
    rows.append(attack.row("27.1", f"...A's bundle as B's bundle ({len(loaded)} path forms): "
                           "loaded", len(took), f"of {len(loaded)}", "0", met=not took,
                           response=text_of(loaded[0][2][1])))
    _, out = as_corpus(own, other, "page-b0")
    rows.append(attack.row("27.1", "...B's own upload afterwards: read", "Corpus: mine.txt"
                           in text_of(out), "", "yes", met="Corpus: mine.txt" in text_of(out),
                           response=text_of(out)))
    return rows


# --- the section ----------------------------------------------------------------------------

QUICK = (bypass, disk, injected_link, bodies, smaller, session_flood, another_visitors_files)
FULL = (bundles, memory_estimate, one_client, one_network, tokenizer_without_spaces, bypass,
        session_flood, disk, injected_link, bodies, smaller, another_visitors_files,
        unread_stream, step_hold, forwarded_flood)
NOT_REPLAYED = [
    (8, "the hourly cache sweep of a live session's bundle", "not replayed: Gradio sweeps once an "
     "hour; tests/test_hostile_app.py runs the sweep on a live and an orphaned file"),
    (2, "a 100.8M-parameter run inside a 2.5 GB cgroup", "not replayed: needs a memory cgroup; "
     "tests/test_hostile_memory.py measures the 100M run's peak against its estimate"),
]


def _guarded(attack: Attack, fn: Callable[[Attack], list[Row]]) -> list[Row]:
    """One finding's rows; an attack that breaks is a failed row, and a dead server is started
    again for the next. A server holding more than ``RESTART_ABOVE_MB`` over its idle size is
    started afresh first: the memory it freed but kept would hide the next attack's peak."""
    if attack.server.rss() - attack.idle_rss > RESTART_ABOVE_MB * 2**20:
        attack.server.stop()
        attack.server.start()
    try:
        rows = fn(attack)
    except Exception as error:
        rows = [attack.row(re.search(r"(\d+(?:\.\d+)?)", fn.__doc__ or "0").group(1),
                           f"{fn.__name__}: the attack could not finish", None, "", "finishes",
                           met=False, note=said(f"{type(error).__name__}: {error}"))]
    if not attack.server.alive():
        attack.deaths += 1
        attack.server.start()
    return rows


def replay(ctx: Context) -> list[Row]:
    """Every finding of issue 14 replayed against a server of its own (see the module)."""
    folder = Path(tempfile.mkdtemp(prefix="playground-hostile-"))
    rows: list[Row] = []
    try:
        server = Server(folder / "server")
        started = server.start()
        attack = Attack(server, folder, ctx.quick, idle_rss=server.rss())
        if not ctx.quick:
            attack.bundle = tiny_bundle(folder)
        rows.append(Row("hostile", "server start (PLAYGROUND_SHARED=1)", started, "s",
                        note=f"idle RSS {server.rss() / 2**20:.0f} MB"))
        for fn in (QUICK if ctx.quick else FULL):
            start = time.perf_counter()
            rows += _guarded(attack, fn)
            print(f"[bench] hostile: {fn.__name__} in {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
        rows.append(attack.row(None, "attacks after which the server was dead", attack.deaths, "",
                               "0", met=attack.deaths == 0,
                               note=f"RSS at the end {server.rss() / 2**20:.0f} MB"))
        server.stop()
        if not ctx.quick:
            budget = Server(folder / "budget", {"PLAYGROUND_SESSION_DISK_MB": str(FULL_DISK_MB)})
            budget.start()
            try:
                rows += _guarded(Attack(budget, folder, False), full_disk)
            finally:
                budget.stop()
            try:
                rows += restart_and_link(folder / "restart")
            except Exception as error:
                rows.append(Row("hostile", "8. SIGTERM during a run: the attack could not finish",
                                None, target="finishes", met=False,
                                note=said(f"{type(error).__name__}: {error}")))
            rows += held_models(folder / "held")
            rows += [Row("hostile", f"{n}. {what}", None, note=why) for n, what, why in NOT_REPLAYED]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return sorted(rows, key=_finding)


def _finding(row: Row) -> float:
    """The finding a row is about, for the table's order (the start first, the summary last)."""
    number = re.match(r"(\d+(?:\.\d+)?)\. ", row.metric)  # issue 14's 1-11, issue 27's 27.1...
    return float(number.group(1)) if number else (-1 if row.metric.startswith("server start") else 99)
