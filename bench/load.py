"""A class at once: visitors press Start together against the app on 127.0.0.1 (``gradio_client``).

Each visitor is its own ``Client`` (its own session), in its own thread; all press Start at the
same moment (a barrier), and each records when its first training step showed in the status
line, when its run said "Done", and the longest line ahead of it it was shown. Optionally each
first pastes its own text (``texts``), so its generated text shows whether it got its own model.
The app's memory (RSS of this process, which serves it) is sampled throughout.

``visitors`` is what both the suite's load test (small runs, ordering checked, no timing
asserted) and the ``load`` section of ``make bench`` (the page's defaults, the figures) call.
"""

from __future__ import annotations

import re
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.core import Context, Row
from bench.process import rss_mib

FIRST_STEP_TARGET_S = 15.0  # issue: every visitor sees a training step within 15 s
_AHEAD = re.compile(r"(\d+) jobs? ahead")


@dataclass
class Visit:
    """What one visitor saw: seconds from the common Start to each moment (None: never)."""

    name: str
    first_step_s: float | None = None
    done_s: float | None = None
    most_ahead: int = 0
    final_status: str = ""
    generated: str = ""
    error: str = ""
    statuses: list[str] = field(default_factory=list)


class MemoryWatch:
    """RSS sampled every ``every`` seconds in a thread until ``stop``: start, peak, end."""

    def __init__(self, every: float = 0.2) -> None:
        self.start = self.peak = rss_mib("VmRSS")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(every,), daemon=True)
        self._thread.start()

    def _watch(self, every: float) -> None:
        while not self._stop.wait(every):
            self.peak = max(self.peak, rss_mib("VmRSS"))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join(timeout=5)
        return rss_mib("VmRSS")


def visitors(url: str, settings: list, n: int, *, texts: list[str] | None = None,
             prompt_chars: int = 4, generate_tokens: int = 30,
             timeout_s: float = 600.0) -> list[Visit]:
    """``n`` visitors press Start with ``settings`` (the training tab's values in
    ``train_tab.SETTINGS`` order) at the same moment; with ``texts``, visitor ``i`` first pastes
    ``texts[i]`` and trains a character tokenizer on it, and after its run generates
    ``generate_tokens`` from its text's first ``prompt_chars`` characters. Bounded: each
    visitor gives up after ``timeout_s``."""
    from gradio_client import Client

    visits = [Visit(f"visitor-{i + 1}") for i in range(n)]
    ready = threading.Barrier(n + 1)
    start = [0.0]

    def visit(i: int) -> None:
        seen = visits[i]
        client = None
        try:
            # (httpx's own limit is 5 s a request; a browser waits longer than that, and how
            # long the class waits is what this measures)
            client = Client(url, verbose=False, analytics_enabled=False,
                            httpx_kwargs={"timeout": 60})
            # the page open before Start, as a class's are: a first call makes the session
            # (Gradio builds its copy of the page's config, about 0.1 s of the server each),
            # as a browser's page load does; the Compare tab's list of runs is a call that
            # computes nothing
            client.predict([], api_name="/list_runs")
            if texts:
                client.predict("Paste text", None, texts[i], api_name="/use_corpus")
                client.predict("char", 512, api_name="/train_tokenizer")
            ready.wait(timeout=timeout_s)
            job = client.submit(False, *settings, api_name="/train_model")
            for update in job:
                status = update[1] or ""
                now = time.monotonic() - start[0]
                seen.statuses.append(status)
                ahead = _AHEAD.search(status)
                if ahead:
                    seen.most_ahead = max(seen.most_ahead, int(ahead.group(1)))
                if seen.first_step_s is None and "**Training:**" in status:
                    seen.first_step_s = now
                if now > timeout_s:
                    job.cancel()
                    break
            seen.final_status = seen.statuses[-1] if seen.statuses else ""
            if seen.final_status.startswith("**Done.**"):
                seen.done_s = time.monotonic() - start[0]
            if texts:
                prompt = texts[i][:prompt_chars]
                seen.generated = client.predict(prompt, generate_tokens, 1.0, 0, 1.0, i + 1,
                                                api_name="/generate")[0]
        except Exception as error:  # reported with the visit; the caller decides
            seen.error = f"{type(error).__name__}: {error}"[:300]
            if ready.n_waiting and not ready.broken:
                ready.abort()
        finally:
            if client is not None:
                client.close()

    threads = [threading.Thread(target=visit, args=(i,), daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    try:
        ready.wait(timeout=timeout_s)  # everyone has a session (and a tokenizer): Start
    except threading.BrokenBarrierError:
        pass
    start[0] = time.monotonic()
    for thread in threads:
        thread.join(timeout=timeout_s + 60)
    return visits


def visitors_elsewhere(url: str, settings: list, n: int, *, timeout_s: float) -> list[Visit]:
    """``visitors`` run from a child process, as a class's browsers are on their own machines:
    in the server's process their threads would take the GIL from the server's own (measured:
    first steps 18-38 s with them in the process, 16-28 s with them outside)."""
    import json
    import subprocess
    import sys

    script = ("import dataclasses, json, sys; from bench.load import visitors; "
              "a = json.loads(sys.stdin.read()); "
              "print(json.dumps([dataclasses.asdict(v) for v in "
              "visitors(a['url'], a['settings'], a['n'], timeout_s=a['timeout_s'])]))")
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(dict(
        url=url, settings=settings, n=n, timeout_s=timeout_s)), capture_output=True, text=True,
        timeout=timeout_s + 120, check=True, cwd=Path(__file__).resolve().parents[1])
    return [Visit(**fields) for fields in json.loads(done.stdout.strip().splitlines()[-1])]


def summary(visits: list[Visit]) -> dict[str, float | None]:
    """Median and worst seconds to the first step and to done (None where some never came)."""
    out: dict[str, float | None] = {}
    for key in ("first_step_s", "done_s"):
        values = [getattr(v, key) for v in visits]
        known = [value for value in values if value is not None]
        out[f"median_{key}"] = statistics.median(known) if known else None
        out[f"worst_{key}"] = max(known) if len(known) == len(values) and known else None
    return out


def classroom(ctx: Context) -> list[Row]:
    """Twelve visitors press Start with the page's defaults at once (``--quick``: the tiny
    preset for 60 steps): time to each one's first step and to done, and the app's memory."""
    import os

    os.environ.setdefault("PLAYGROUND_CONCURRENCY", "1")
    from playground.runtime import hosting

    hosting.use(None)  # read again, with that default, whatever read the environment before
    from playground.config import DEFAULT_PRESET
    from playground.runtime import fairshare
    from playground.runtime.device import RECLAIM_MAX_WAIT_S, RECLAIM_QUIET_S, RECLAIMER
    from playground.server import gradio_internals
    from playground.ui import train_tab
    from playground.ui.app import build_demo, end_session, launch

    preset = "tiny" if ctx.quick else DEFAULT_PRESET
    values = dict(zip(train_tab.SETTINGS, train_tab.preset_values(preset)))
    if ctx.quick:
        values.update(max_steps=60, eval_interval=30, eval_iters=5, sample_tokens=0)
    settings = [values[name] for name in train_tab.SETTINGS]
    n = 12
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    try:
        memory = MemoryWatch()
        # twelve default runs take about 26 min on two cores (the throughput of one run
        # stays that of one: 12 x 1,100 steps); each visitor gives up after 45 min
        visits = visitors_elsewhere(url, settings, n, timeout_s=2700)
        # the lesson ends: every tab closes (a client without a page token is freed at once)
        for session_hash in gradio_internals.session_hashes(demo):
            end_session(demo, session_hash)
        # the app gives the freed memory back once the frees stop (device.Reclaimer)
        deadline = time.monotonic() + RECLAIM_QUIET_S + RECLAIM_MAX_WAIT_S + 30
        while RECLAIMER.busy() and time.monotonic() < deadline:
            time.sleep(0.1)
        end_mib = memory.stop()
    finally:
        demo.close()
    figures = summary(visits)
    errors = [v.error for v in visits if v.error]
    done = sum(v.done_s is not None for v in visits)
    where = f"{n} visitors, preset {preset}" + (" (60 steps)" if ctx.quick else "")
    rows = [Row("load", f"runs done, {where}", done, f"of {n}", f"{n} of {n}",
                note="; ".join(errors)[:160], met=done == n)]
    worst = figures["worst_first_step_s"]
    rows.append(Row("load", "median time to first step", figures["median_first_step_s"], "s"))
    rows.append(Row("load", "worst time to first step", worst, "s",
                    f"<= {FIRST_STEP_TARGET_S:.0f} s",
                    met=None if worst is None else worst <= FIRST_STEP_TARGET_S))
    rows.append(Row("load", "median time to done", figures["median_done_s"], "s"))
    rows.append(Row("load", "worst time to done (the last run)", figures["worst_done_s"], "s"))
    rows.append(Row("load", "most jobs shown ahead of a visitor",
                    max(v.most_ahead for v in visits), ""))
    rows.append(Row("load", "app memory: start / peak / end", f"{memory.start:.0f} / "
                    f"{memory.peak:.0f} / {end_mib:.0f}", "MiB",
                    note=f"turns left held: {fairshare.MACHINE.stats()}"))
    return rows
