"""One run served through the page against the same run from the CLI, side by side.

The page's side is a ``gradio_client`` visitor (``bench.load.visitors``) pressing Start against
the app served on 127.0.0.1 from a process of its own, timed from Start to "Done" (the plan,
the tokenizer, the run, the bundle saved, every update sent); the CLI's is ``python -m
playground train`` in a fresh process, timed by its own run (``elapsed_s``: the steps and
evaluations; the command's ``wall_s`` is printed beside it). Both start from nothing: the
bundled corpus, the character tokenizer, the preset, its seed.

A third side serves the page as it was before ``runtime.compute``: every handler computing in
its own Gradio worker thread (each then owns an OpenMP pool, and libgomp stops spinning once
two do). The sides take turns, ``rounds`` times, so load from other work falls on all three.
The load average is printed beside the figures.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.core import REPO_ROOT, Context, Row, check

RATIO_TARGET = 1.05  # issue 26, item 5: a run through the page costs what the CLI's does
APP_START_S = 300.0  # the app's launch, its warm-up included, on a busy machine

# the app as ``app.py`` serves it; "before" keeps every handler's compute in its own thread
_APP = """
import sys
from playground.runtime import hosting
hosting.use(hosting.Hosting.from_env({"PLAYGROUND_COMPUTE_THREAD": "0" if sys.argv[1] == "before" else "1"}))
from playground.ui.app import build_demo, launch
launch(build_demo(), server_port=int(sys.argv[2]), quiet=True)
"""
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _environment(folder: Path) -> dict[str, str]:
    """A quiet, local app's environment: its files in ``folder``, nothing from the network."""
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PLAYGROUND_DATA_DIR": str(folder),
            "GRADIO_TEMP_DIR": str(folder / "gradio"), "GRADIO_ANALYTICS_ENABLED": "False",
            "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def serve(kind: str, folder: Path) -> tuple[subprocess.Popen, str]:
    """The app (``kind``: "now" or "before") serving on a free port of 127.0.0.1: the process
    and its address, once it answers."""
    port = _free_port()
    app = subprocess.Popen([sys.executable, "-c", _APP, kind, str(port)], cwd=REPO_ROOT,
                           env=_environment(folder), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + APP_START_S
    while time.monotonic() < deadline:
        if app.poll() is not None:
            raise RuntimeError(f"the app ({kind}) ended at launch with code {app.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return app, url
        except OSError:
            time.sleep(0.5)
    app.kill()
    raise RuntimeError(f"the app ({kind}) did not answer within {APP_START_S:.0f} s")


def page_seconds(url: str, settings: list) -> float:
    """Seconds from Start to "Done" of one visitor's run with ``settings``."""
    from bench.load import visitors

    visit = visitors(url, settings, 1, timeout_s=1800)[0]
    if visit.done_s is None:
        raise RuntimeError(f"the page's run did not finish: {visit.error or visit.final_status}")
    return visit.done_s


def cli_seconds(preset: str, changes: dict, folder: Path) -> tuple[float, float]:
    """``python -m playground train --preset`` in a fresh process: the seconds its run trained
    and evaluated (``elapsed_s``), and those of the whole command after its imports (``wall_s``:
    the tokenizer, the probes a first run pays, the bundle saved)."""
    flags = [text for name, value in changes.items() for text in (f"--{name}", str(value))]
    done = subprocess.run([sys.executable, "-m", "playground", "train", "--preset", preset,
                           *flags, "--out", str(folder / "cli.zip")], cwd=REPO_ROOT,
                          env=_environment(folder), capture_output=True, text=True,
                          timeout=1800, check=True)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return summary["elapsed_s"], summary["wall_s"]


def compare(preset: str, rounds: int, changes: dict | None = None) -> dict[str, list[float]]:
    """Seconds of each side's run of ``preset`` (``changes`` applied on both), ``rounds`` times
    in turns: {"cli": [...], "cli command": [...], "page": [...], "page before": [...]}."""
    from playground.ui import train_tab

    changes = changes or {}
    values = dict(zip(train_tab.SETTINGS, train_tab.preset_values(preset)), **changes)
    settings = [values[name] for name in train_tab.SETTINGS]
    seconds: dict[str, list[float]] = {"cli": [], "cli command": [], "page": [], "page before": []}
    with tempfile.TemporaryDirectory(prefix="bench-page-") as tmp:
        folder = Path(tmp)
        apps = {}
        try:
            for side, kind in (("page", "now"), ("page before", "before")):
                (folder / kind).mkdir()
                apps[side] = serve(kind, folder / kind)
            for _ in range(rounds):
                run_s, command_s = cli_seconds(preset, changes, folder)
                seconds["cli"].append(run_s)
                seconds["cli command"].append(command_s)
                for side, (_, url) in apps.items():
                    seconds[side].append(page_seconds(url, settings))
        finally:
            for app, _ in apps.values():
                app.kill()
                app.wait(timeout=60)
    return seconds


WHAT = {"cli": "CLI, its run (elapsed_s)", "cli command": "CLI, the command (wall_s)",
        "page": "page, Start to Done", "page before": "page before runtime.compute"}


def page_vs_cli(ctx: Context) -> list[Row]:
    """``cpu-speedrun`` through the page (now, and as before) against the CLI, in turns
    (``--quick``: the tiny preset, 30 steps, once)."""
    preset, rounds = ("tiny", 1) if ctx.quick else ("cpu-speedrun", 2)
    changes = {"max_steps": 30, "eval_interval": 15} if ctx.quick else {}
    load_before = os.getloadavg()[0]
    seconds = compare(preset, rounds, changes)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    rows = [Row("page", f"{preset}: {WHAT[side]}, best of {rounds}", min(times), "s",
                note=", ".join(f"{t:.1f}" for t in times) + (f"; {load}" if side == "cli" else ""))
            for side, times in seconds.items()]
    cli = min(seconds["cli"])
    ratio = min(seconds["page"]) / cli
    rows.append(Row("page", f"{preset}: page / CLI", ratio, "x", f"<= {RATIO_TARGET}",
                    note="Start to Done (all the page does) over the CLI's run alone, best of each",
                    met=check(ratio, RATIO_TARGET, higher_is_better=False)))
    rows.append(Row("page", f"{preset}: page before runtime.compute / CLI",
                    min(seconds["page before"]) / cli, "x",
                    note="each handler computing in its own Gradio worker thread"))
    return rows
