"""What the host allows and how it serves: every host setting, read once into one ``Hosting``.

A host sets these through environment variables (a Space's "Variables" settings);
``Hosting.from_env`` reads them all once, ``current()`` gives the process's settings, and
every module asks it instead of the environment. The table in README.md lists each variable.

Shared hosting is a Hugging Face Space (``SPACE_ID`` or ``SYSTEM=spaces`` set, as Spaces do:
``on_space``) or any server whose host sets ``PLAYGROUND_SHARED=1`` (``shared``). There, by
default,

* a run stops after ``PLAYGROUND_MAX_RUN_S`` seconds (15 minutes) of wall time, as "stopped",
  with its bundle downloadable and "Continue training" offered;
* settings whose estimated time exceeds ``PLAYGROUND_MAX_ESTIMATE_S`` (an hour) are refused
  before Start, with the estimate and what to change;
* a bundle whose model would need more than ``PLAYGROUND_MAX_MODEL_MB`` (512) of memory to
  load and generate with is refused before it is built;
* ``compile`` (torch.compile) is refused: 13-24 s of CPU per tiny run, and its cache on disk,
  are a cost every visitor pays (``PLAYGROUND_ALLOW_COMPILE=1`` lets it through).

A host sets any of them (``0`` turns a limit off); locally every limit is off unless set.
``PLAYGROUND_MAX_RUNS`` (16) is how many runs take turns at once; more wait in Gradio's queue.
One client network may hold all but a quarter of them (``network_runs``: 12), so a run from
anywhere else always finds room (issue 27: sixteen runs from one address kept every other
visitor's Start waiting until they ended).

A value that is not a number, or out of its range, is ignored for the default, as the app
always did (a host's typo must not keep a classroom's server from starting); only
``PLAYGROUND_CHUNK_SECONDS`` and ``GRADIO_SERVER_PORT``, which stopped the app from starting
before, are refused with a ``ValueError`` naming the variable. A ``Hosting`` built by hand is
checked the same way (``__post_init__``).

>>> space = Hosting.from_env({"SPACE_ID": "me/playground"})
>>> space.on_space, space.shared, space.max_run_s, space.max_estimate_s, space.compile_allowed
(True, True, 900.0, 3600.0, False)
>>> here = Hosting.from_env({"PLAYGROUND_MAX_ESTIMATE_S": "600"})
>>> here.on_space, here.max_run_s, here.max_estimate_s, here.compile_allowed
(False, None, 600.0, True)
>>> Hosting.from_env({"SPACE_ID": "x", "PLAYGROUND_MAX_RUN_S": "0"}).max_run_s is None  # turned off
True

Left where they are, because they are not the host's settings of this app: torchrun's
``RANK``/``WORLD_SIZE``/``LOCAL_RANK``/``TORCHELASTIC_RUN_ID`` and ``PLAYGROUND_DIST_TIMEOUT``
(a torchrun launch's own, read with them in ``runtime.distributed`` and ``cli``),
``PYTHONPATH`` for a subprocess (``tokenizer``), ``GRADIO_TEMP_DIR`` (Gradio's, ``ui.session``),
``GRADIO_ALLOWED_PATHS`` (Gradio's, removed by ``ui.app.launch``), ``HF_HUB_OFFLINE`` and
``HF_DATASETS_OFFLINE`` (the Hub libraries', ``corpus``), and the ``setdefault`` of
``TOKENIZERS_PARALLELISM`` and ``GRADIO_ANALYTICS_ENABLED`` (``app.py``, ``ui.app.main``).
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

RUN_CAP_S = 15 * 60.0  # a run's wall time on shared hosting
ESTIMATE_CAP_S = 60 * 60.0  # the longest estimate Start accepts on shared hosting
MAX_RUNS = 16  # runs taking turns at once (a class of twelve and a few more)
# the memory one model may need on shared hosting: every preset's needs under 60 MB
MODEL_CAP_MB = 512.0
SESSION_TTL_S = 2 * 3600.0  # a session's state is freed this long after its last change
GRACE_S = 600.0  # a closed page's session waits this long for its browser to come back
NEW_SESSIONS_PER_MINUTE = 60  # per client address: a classroom's reloads, not a script's flood
MAX_SESSIONS = 10_000  # Gradio's own default capacity: PLAYGROUND_MAX_SESSIONS=0 means this
SESSION_DISK_MB = 2048.0  # a visitor's saved files: one bundle of a 100M-parameter run and more
APP_DISK_MB = 20 * 1024.0  # everyone's together (a free Space has 50 GB of disk)
LONG_RUN_S = 600.0  # by default a run estimated above 10 minutes gets a warning
CHUNK_S = 45.0  # a ZeroGPU chunk's training time: well inside a call's limit
PORT = 7860  # Gradio's default


def _env(name: str):
    """A field read from the environment variable ``name`` (kept in the field's metadata)."""
    return {"metadata": {"env": name}}


@dataclass(frozen=True)
class Hosting:
    """The host's settings, one field per environment variable; the defaults are those of a
    machine of your own (``Hosting()`` == ``Hosting.from_env({})``).

    Seconds and megabytes that are limits are None for no limit. ``from_env`` fills in the
    shared-hosting defaults; a ``Hosting`` built by hand gets exactly what it is given.

    >>> Hosting(max_runs=0)
    Traceback (most recent call last):
    ...
    ValueError: PLAYGROUND_MAX_RUNS must be a whole number of at least 1, got 0. Set it to how many runs may take turns at once, or leave it unset for 16.
    """

    space_id: str | None = field(default=None, **_env("SPACE_ID"))  # "user/name" on a Space
    system: str | None = field(default=None, **_env("SYSTEM"))  # "spaces" on a Space
    force_shared: bool = field(default=False, **_env("PLAYGROUND_SHARED"))  # "1"
    trust_proxy: bool = field(default=False, **_env("PLAYGROUND_TRUST_PROXY"))  # "1"
    # the proxies in front that each append the address they saw to X-Forwarded-For: the
    # client is the one that many from the right (what a client writes itself is further left)
    proxy_hops: int = field(default=1, **_env("PLAYGROUND_PROXY_HOPS"))
    allow_compile: bool = field(default=False, **_env("PLAYGROUND_ALLOW_COMPILE"))  # "1"
    # the server computes on one thread (runtime.compute): faster on quiet cores, far slower
    # when another process shares them (docs/PERFORMANCE.md, "The page's compute thread")
    compute_thread: bool = field(default=False, **_env("PLAYGROUND_COMPUTE_THREAD"))  # "1"
    # the guided tour opens by itself on a browser's first visit (ui.tour); "off": only asked
    tour_on_first_visit: bool = field(default=True, **_env("PLAYGROUND_TOUR"))
    max_run_s: float | None = field(default=None, **_env("PLAYGROUND_MAX_RUN_S"))
    max_estimate_s: float | None = field(default=None, **_env("PLAYGROUND_MAX_ESTIMATE_S"))
    max_model_mb: float | None = field(default=None, **_env("PLAYGROUND_MAX_MODEL_MB"))
    max_runs: int = field(default=MAX_RUNS, **_env("PLAYGROUND_MAX_RUNS"))
    concurrency: int = field(default=1, **_env("PLAYGROUND_CONCURRENCY"))
    session_ttl_s: float = field(default=SESSION_TTL_S, **_env("PLAYGROUND_SESSION_TTL_S"))
    grace_s: float = field(default=GRACE_S, **_env("PLAYGROUND_GRACE_S"))
    new_sessions_per_min: int = field(default=NEW_SESSIONS_PER_MINUTE,
                                      **_env("PLAYGROUND_NEW_SESSIONS_PER_MIN"))  # 0: no limit
    max_sessions: int | None = field(default=None, **_env("PLAYGROUND_MAX_SESSIONS"))  # None: by memory
    data_dir: Path | None = field(default=None, **_env("PLAYGROUND_DATA_DIR"))  # None: disk.data_dir's
    session_disk_mb: float | None = field(default=SESSION_DISK_MB, **_env("PLAYGROUND_SESSION_DISK_MB"))
    app_disk_mb: float | None = field(default=APP_DISK_MB, **_env("PLAYGROUND_APP_DISK_MB"))
    long_run_s: float = field(default=LONG_RUN_S, **_env("PLAYGROUND_LONG_RUN_S"))
    on_zero_gpu: bool = field(default=False, **_env("SPACES_ZERO_GPU"))  # set by ZeroGPU Spaces
    chunk_s: float = field(default=CHUNK_S, **_env("PLAYGROUND_CHUNK_SECONDS"))
    server_name: str | None = field(default=None, **_env("GRADIO_SERVER_NAME"))  # None: listen_address's
    server_port: int = field(default=PORT, **_env("GRADIO_SERVER_PORT"))

    def __post_init__(self):
        for name in ("force_shared", "trust_proxy", "allow_compile", "compute_thread",
                     "tour_on_first_visit", "on_zero_gpu"):
            self._require(name, isinstance(getattr(self, name), bool), "1 or unset")
        for name in ("space_id", "system", "server_name"):
            self._require(name, getattr(self, name) is None or isinstance(getattr(self, name), str),
                          "text")
        for name in ("max_run_s", "max_estimate_s", "max_model_mb"):
            value = getattr(self, name)
            self._require(name, value is None or _is_number(value) and value > 0,
                          "a number above 0 (0 turns the limit off)")
        for name in ("session_disk_mb", "app_disk_mb"):
            value = getattr(self, name)
            self._require(name, value is None or _is_number(value) and 0 < value < math.inf,
                          "a number above 0 (0 turns the limit off)")
        self._require("proxy_hops", _is_int(self.proxy_hops) and 1 <= self.proxy_hops <= 16,
                      "a whole number from 1 to 16", "how many proxies stand in front")
        self._require("max_runs", _is_int(self.max_runs) and self.max_runs >= 1,
                      "a whole number of at least 1", "how many runs may take turns at once")
        self._require("concurrency", _is_int(self.concurrency) and self.concurrency >= 1,
                      "a whole number of at least 1", "how many jobs compute at once")
        self._require("session_ttl_s", _is_number(self.session_ttl_s) and self.session_ttl_s > 0,
                      "a number of seconds above 0")
        self._require("grace_s", _is_number(self.grace_s) and 0 <= self.grace_s < math.inf,
                      "a number of seconds, 0 or more")
        self._require("new_sessions_per_min",
                      _is_int(self.new_sessions_per_min) and self.new_sessions_per_min >= 0,
                      "a whole number, 0 or more (0: no limit)")
        self._require("max_sessions", self.max_sessions is None
                      or _is_int(self.max_sessions) and self.max_sessions >= 1,
                      "a whole number of at least 1 (0: Gradio's 10,000)")
        self._require("data_dir", self.data_dir is None or isinstance(self.data_dir, Path),
                      "a folder")
        self._require("long_run_s", _is_number(self.long_run_s) and 0 < self.long_run_s < math.inf,
                      "a number of seconds above 0")
        self._require("chunk_s", _is_number(self.chunk_s), "a number of seconds")
        self._require("server_port", _is_int(self.server_port) and 0 <= self.server_port <= 65535,
                      "a port number (0 to 65535)")

    def _require(self, name: str, ok: bool, rule: str, what: str | None = None) -> None:
        """Raise the ``ValueError`` that says which variable is wrong and what to set."""
        if ok:
            return
        var = self.variables()[name]
        default = next(f.default for f in fields(self) if f.name == name)
        raise ValueError(f"{var} must be {rule}, got {getattr(self, name)!r}. Set it to "
                         f"{what or rule}, or leave it unset for "
                         f"{'the default' if default is None else default}.")

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Each field's environment variable.

        >>> Hosting.variables()["max_run_s"]
        'PLAYGROUND_MAX_RUN_S'
        """
        return {f.name: f.metadata["env"] for f in fields(cls)}

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Hosting:
        """The settings that ``env`` (default ``os.environ``) gives; what it leaves unset or
        sets to something unusable takes the default (see the module's docstring).

        >>> host = Hosting.from_env({"PLAYGROUND_SHARED": "1", "PLAYGROUND_GRACE_S": "-1"})
        >>> host.shared, host.on_space, host.max_model_mb, host.grace_s
        (True, False, 512.0, 600.0)
        >>> Hosting.from_env({"GRADIO_SERVER_PORT": "http"})
        Traceback (most recent call last):
        ...
        ValueError: GRADIO_SERVER_PORT must be a port number (0 to 65535), got 'http'. Set it to a port number (0 to 65535), or leave it unset for 7860.
        """
        env = os.environ if env is None else env
        space_id, system = env.get("SPACE_ID") or None, env.get("SYSTEM") or None
        force_shared = env.get("PLAYGROUND_SHARED") == "1"
        # the limits' defaults follow whether the host is shared, said once (``shared``)
        shared = cls(space_id=space_id, system=system, force_shared=force_shared).shared
        max_sessions = _whole(env.get("PLAYGROUND_MAX_SESSIONS"), None)
        return cls(
            space_id=space_id, system=system,
            force_shared=force_shared,
            trust_proxy=env.get("PLAYGROUND_TRUST_PROXY") == "1",
            proxy_hops=min(16, max(1, _whole(env.get("PLAYGROUND_PROXY_HOPS"), 1))),
            allow_compile=env.get("PLAYGROUND_ALLOW_COMPILE") == "1",
            compute_thread=env.get("PLAYGROUND_COMPUTE_THREAD") == "1",
            tour_on_first_visit=env.get("PLAYGROUND_TOUR", "first-visit") != "off",
            max_run_s=_limit(env.get("PLAYGROUND_MAX_RUN_S"), RUN_CAP_S if shared else None),
            max_estimate_s=_limit(env.get("PLAYGROUND_MAX_ESTIMATE_S"),
                                  ESTIMATE_CAP_S if shared else None),
            max_model_mb=_limit(env.get("PLAYGROUND_MAX_MODEL_MB"),
                                MODEL_CAP_MB if shared else None),
            max_runs=max(1, _whole(env.get("PLAYGROUND_MAX_RUNS"), MAX_RUNS)),
            concurrency=max(1, _whole(env.get("PLAYGROUND_CONCURRENCY"), 1)),
            session_ttl_s=_seconds(env.get("PLAYGROUND_SESSION_TTL_S"), SESSION_TTL_S,
                                   lambda s: s > 0),
            grace_s=_seconds(env.get("PLAYGROUND_GRACE_S"), GRACE_S,
                             lambda s: 0 <= s < math.inf),
            new_sessions_per_min=int(_seconds(env.get("PLAYGROUND_NEW_SESSIONS_PER_MIN"),
                                              NEW_SESSIONS_PER_MINUTE, lambda s: 0 <= s < math.inf)),
            max_sessions=None if max_sessions is None else max_sessions if max_sessions > 0
            else MAX_SESSIONS,
            data_dir=Path(env["PLAYGROUND_DATA_DIR"]) if env.get("PLAYGROUND_DATA_DIR") else None,
            session_disk_mb=_megabytes(env.get("PLAYGROUND_SESSION_DISK_MB"), SESSION_DISK_MB),
            app_disk_mb=_megabytes(env.get("PLAYGROUND_APP_DISK_MB"), APP_DISK_MB),
            long_run_s=_seconds(env.get("PLAYGROUND_LONG_RUN_S"), LONG_RUN_S,
                                lambda s: 0 < s < math.inf),
            on_zero_gpu=env.get("SPACES_ZERO_GPU", "").strip().lower() in {"1", "true", "yes"},
            chunk_s=_required(env, "PLAYGROUND_CHUNK_SECONDS", float, CHUNK_S,
                              "a number of seconds"),
            server_name=env.get("GRADIO_SERVER_NAME"),
            server_port=_required(env, "GRADIO_SERVER_PORT", int, PORT,
                                  "a port number (0 to 65535)"),
        )

    @property
    def on_space(self) -> bool:
        """Whether this is a Hugging Face Space: it sets ``SPACE_ID`` and ``SYSTEM=spaces``."""
        return bool(self.space_id) or self.system == "spaces"

    @property
    def oauth_available(self) -> bool:
        """Whether Gradio's "Sign in with Hugging Face" works here: Gradio counts a Space by
        ``SYSTEM=spaces`` alone (``gradio.utils.get_space``) and mounts its login only there,
        so a ``SPACE_ID`` without it (``on_space`` all the same) has no login to offer."""
        return self.system == "spaces" and bool(self.space_id)

    @property
    def shared(self) -> bool:
        """Whether this server is shared by strangers: a Space, or ``PLAYGROUND_SHARED=1``."""
        return self.on_space or self.force_shared

    @property
    def trusts_proxy(self) -> bool:
        """Whether the first X-Forwarded-For address is the client's: on a Space (its proxy
        sets it), or where ``PLAYGROUND_TRUST_PROXY=1`` says a proxy of our own does."""
        return self.on_space or self.trust_proxy

    @property
    def compile_allowed(self) -> bool:
        """Whether a run may use ``compile``: locally yes, on shared hosting only if the host says."""
        return not self.shared or self.allow_compile

    @property
    def model_memory_bytes(self) -> int | None:
        """``max_model_mb`` in bytes (None: no limit)."""
        return None if self.max_model_mb is None else int(self.max_model_mb * 2**20)

    @property
    def listen_address(self) -> str:
        """Where the server listens: ``GRADIO_SERVER_NAME``, else 0.0.0.0 on a Space (its proxy
        must reach it) and 127.0.0.1 elsewhere (this machine only)."""
        if self.server_name is not None:
            return self.server_name
        return "0.0.0.0" if self.on_space else "127.0.0.1"


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _limit(raw: str | None, default: float | None) -> float | None:
    """A limit: the host's number (0 or less: no limit), else ``default`` (also for a value
    that is not a number)."""
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    if math.isnan(value):
        return default
    return value if value > 0 else None


def _seconds(raw: str | None, default: float, ok) -> float:
    """``raw`` as a number when it is one and ``ok``, else ``default``."""
    try:
        value = float(default if raw is None else raw)
    except ValueError:
        return default
    return value if not math.isnan(value) and ok(value) else default


def _whole(raw: str | None, default: int | None) -> int | None:
    try:
        return default if raw is None else int(raw)
    except ValueError:
        return default


def _megabytes(raw: str | None, default: float) -> float | None:
    """Megabytes of a disk budget: a number above 0, 0 for none; anything else the default."""
    value = _seconds(raw, default, lambda mb: 0 <= mb < math.inf)
    return value if value > 0 else None


def _required(env: Mapping[str, str], name: str, kind, default, rule: str):
    """``env[name]`` as ``kind``, or ``default`` when unset; a value that is not one stopped the
    app from starting before, and still does, now saying which variable and what to set."""
    raw = env.get(name)
    if raw is None:
        return default
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be {rule}, got {raw!r}. Set it to {rule}, or leave it "
                         f"unset for {default}.") from None


_current: Hosting | None = None


def current() -> Hosting:
    """The process's host settings: read from the environment on first use, then kept."""
    global _current
    if _current is None:
        _current = Hosting.from_env()
    return _current


def use(host: Hosting | None) -> None:
    """Make ``host`` what ``current()`` gives (a test's own settings); None: read the
    environment again on the next use."""
    global _current
    _current = host


def _host(host: Hosting | None) -> Hosting:
    return current() if host is None else host


def shared_hosting(host: Hosting | None = None) -> bool:
    """Whether this server is shared by strangers (``Hosting.shared``)."""
    return _host(host).shared


def model_memory_cap(host: Hosting | None = None) -> int | None:
    """Bytes one model may need to load and generate with (weights, position tables, a KV
    cache over its context), or None for no limit: on shared hosting a bundle past it is
    refused before it is built, so one visitor's sessions cannot fill the machine with models
    that each fit what is free (a 17 KB bundle with a 65,536-token RoPE context took 1.4 GB).

    >>> model_memory_cap(Hosting.from_env({"SPACE_ID": "x"})) // 2**20, model_memory_cap(Hosting())
    (512, None)
    """
    return _host(host).model_memory_bytes


def run_time_cap(host: Hosting | None = None) -> float | None:
    """Seconds of wall time a run may take before it stops (None: no limit)."""
    return _host(host).max_run_s


def estimate_cap(host: Hosting | None = None) -> float | None:
    """The longest estimated run time Start accepts, in seconds (None: any)."""
    return _host(host).max_estimate_s


def compile_allowed(host: Hosting | None = None) -> bool:
    """Whether a run may use ``compile``: locally yes, on shared hosting only if the host says."""
    return _host(host).compile_allowed


def max_runs(host: Hosting | None = None) -> int:
    """How many runs take turns at once (``PLAYGROUND_MAX_RUNS``, at least 1)."""
    return _host(host).max_runs


def network_runs(host: Hosting | None = None) -> int:
    """How many of the ``max_runs`` one client network may hold, waiting or under way: all but
    a quarter (a class of twelve behind one address gets in), at least one left to others.

    >>> [network_runs(Hosting(max_runs=n)) for n in (16, 4, 2, 1)]
    [12, 3, 1, 1]
    """
    runs = _host(host).max_runs
    return max(1, runs - max(1, runs // 4))


def check_allowed(train_config, estimated_seconds: float | None,
                  host: Hosting | None = None) -> None:
    """Refuse (``ConfigError``) a run this host does not take: ``compile`` on shared hosting,
    or an estimate over ``estimate_cap``; each refusal says what to change.

    >>> from playground.config import TrainConfig
    >>> check_allowed(TrainConfig(), 7200.0, Hosting())  # locally: anything goes
    >>> check_allowed(TrainConfig(), 7200.0, Hosting.from_env({"SPACE_ID": "me/playground"}))
    Traceback (most recent call last):
    ...
    playground.config.ConfigError: This run would take about 2 h 00 min here, and this shared server takes runs of up to about 1 h 00 min. Lower the training steps (max_steps, under Advanced) or pick a smaller preset.
    """
    from playground.config import ConfigError
    from playground.estimate import duration_message
    from playground.i18n import msg

    host = _host(host)
    if train_config.compile and not host.compile_allowed:
        raise ConfigError(msg("compile (torch.compile) is off on this shared server: it costs "
                              "every visitor half a minute of the machine before the first step. "
                              "Untick compile (under Advanced) and press Start again."))
    cap = host.max_estimate_s
    if cap is not None and estimated_seconds is not None and estimated_seconds > cap:
        raise ConfigError(msg("This run would take about {time} here, and this shared server "
                              "takes runs of up to about {limit}. Lower the training steps "
                              "(max_steps, under Advanced) or pick a smaller preset.",
                              time=duration_message(estimated_seconds),
                              limit=duration_message(cap)))
