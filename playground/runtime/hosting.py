"""What the host allows: limits that are on by default on shared hosting, off on your own machine.

Shared hosting is a Hugging Face Space (``SPACE_ID`` or ``SYSTEM=spaces`` set, as Spaces do) or
any server whose host sets ``PLAYGROUND_SHARED=1``. There, by default,

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

>>> env = {"SPACE_ID": "me/playground"}
>>> shared_hosting(env), run_time_cap(env), estimate_cap(env), compile_allowed(env)
(True, 900.0, 3600.0, False)
>>> run_time_cap({}), estimate_cap({"PLAYGROUND_MAX_ESTIMATE_S": "600"}), compile_allowed({})
(None, 600.0, True)
>>> run_time_cap({"SPACE_ID": "x", "PLAYGROUND_MAX_RUN_S": "0"}) is None  # the host turned it off
True
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

RUN_CAP_S = 15 * 60.0  # a run's wall time on shared hosting
ESTIMATE_CAP_S = 60 * 60.0  # the longest estimate Start accepts on shared hosting
MAX_RUNS = 16  # runs taking turns at once (a class of twelve and a few more)
# the memory one model may need on shared hosting: every preset's needs under 60 MB
MODEL_CAP_MB = 512.0


def shared_hosting(env: Mapping[str, str] | None = None) -> bool:
    """Whether this server is shared by strangers: a Space, or ``PLAYGROUND_SHARED=1``."""
    env = os.environ if env is None else env
    return (bool(env.get("SPACE_ID")) or env.get("SYSTEM") == "spaces"
            or env.get("PLAYGROUND_SHARED") == "1")


def _limit(env: Mapping[str, str], name: str, shared_default: float) -> float | None:
    """The limit ``name`` (seconds, megabytes), or None for no limit: the host's value when it
    is a number (0 or less: no limit), else ``shared_default`` on shared hosting and none
    locally."""
    default = shared_default if shared_hosting(env) else None
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    if math.isnan(value):
        return default
    return value if value > 0 else None


def model_memory_cap(env: Mapping[str, str] | None = None) -> int | None:
    """Bytes one model may need to load and generate with (weights, position tables, a KV
    cache over its context), or None for no limit: on shared hosting a bundle past it is
    refused before it is built, so one visitor's sessions cannot fill the machine with models
    that each fit what is free (a 17 KB bundle with a 65,536-token RoPE context took 1.4 GB).

    >>> model_memory_cap({"SPACE_ID": "x"}) // 2**20, model_memory_cap({})
    (512, None)
    """
    mb = _limit(os.environ if env is None else env, "PLAYGROUND_MAX_MODEL_MB", MODEL_CAP_MB)
    return None if mb is None else int(mb * 2**20)


def run_time_cap(env: Mapping[str, str] | None = None) -> float | None:
    """Seconds of wall time a run may take before it stops (None: no limit)."""
    return _limit(os.environ if env is None else env, "PLAYGROUND_MAX_RUN_S", RUN_CAP_S)


def estimate_cap(env: Mapping[str, str] | None = None) -> float | None:
    """The longest estimated run time Start accepts, in seconds (None: any)."""
    return _limit(os.environ if env is None else env, "PLAYGROUND_MAX_ESTIMATE_S",
                    ESTIMATE_CAP_S)


def compile_allowed(env: Mapping[str, str] | None = None) -> bool:
    """Whether a run may use ``compile``: locally yes, on shared hosting only if the host says."""
    env = os.environ if env is None else env
    return not shared_hosting(env) or env.get("PLAYGROUND_ALLOW_COMPILE") == "1"


def max_runs(env: Mapping[str, str] | None = None) -> int:
    """How many runs take turns at once (``PLAYGROUND_MAX_RUNS``, at least 1)."""
    env = os.environ if env is None else env
    try:
        return max(1, int(env.get("PLAYGROUND_MAX_RUNS", MAX_RUNS)))
    except ValueError:
        return MAX_RUNS


def check_allowed(train_config, estimated_seconds: float | None,
                  env: Mapping[str, str] | None = None) -> None:
    """Refuse (``ConfigError``) a run this host does not take: ``compile`` on shared hosting,
    or an estimate over ``estimate_cap``; each refusal says what to change.

    >>> from playground.config import TrainConfig
    >>> check_allowed(TrainConfig(), 7200.0, {})  # locally: anything goes
    >>> check_allowed(TrainConfig(), 7200.0, {"SPACE_ID": "me/playground"})
    Traceback (most recent call last):
    ...
    playground.config.ConfigError: This run would take about 2 h 00 min here, and this shared server takes runs of up to about 1 h 00 min. Lower the training steps (max_steps, under Advanced) or pick a smaller preset.
    """
    from playground.config import ConfigError
    from playground.estimate import duration_message
    from playground.i18n import msg

    env = os.environ if env is None else env
    if train_config.compile and not compile_allowed(env):
        raise ConfigError(msg("compile (torch.compile) is off on this shared server: it costs "
                              "every visitor half a minute of the machine before the first step. "
                              "Untick compile (under Advanced) and press Start again."))
    cap = estimate_cap(env)
    if cap is not None and estimated_seconds is not None and estimated_seconds > cap:
        raise ConfigError(msg("This run would take about {time} here, and this shared server "
                              "takes runs of up to about {limit}. Lower the training steps "
                              "(max_steps, under Advanced) or pick a smaller preset.",
                              time=duration_message(estimated_seconds),
                              limit=duration_message(cap)))
