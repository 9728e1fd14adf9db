"""Soak test: many simulated visitors at once on the launched app, in rounds.

Each of ``USERS`` visitors (a ``gradio_client`` of its own, in its own thread) pastes a text
of its own, with a marker word and a Greek letter no other visitor has, trains a character
tokenizer and a tiny model, generates, downloads its bundle and closes. After ``ROUNDS``
rounds the test checks that:

* no visitor ever saw another's corpus, tokenizer, model or text (their preview, counts,
  vocabulary, generated characters and downloaded bundle are all theirs);
* the queue served everyone (every job finished);
* once the tabs closed, the server holds no session, no model, no session folder, and the
  process's memory (VmRSS) is back near where it started.

The figures (users, rounds, peak and final RSS, longest wait) are printed (``pytest -s``).
Nothing is timed except one generous limit on the whole test, against a hang.
"""

import dataclasses
import gc
import threading
import time
import warnings
import weakref

import pytest
from gradio_client import Client

from playground.checkpoint import load_bundle
from playground.model import GPT
from playground.runtime import hosting
from playground.runtime.device import return_free_memory
from playground.ui.app import build_demo, launch
from playground.ui.session import Session, app_temp_dir

from checks import page_settings

USERS = 8
ROUNDS = 3
LIMIT_S = 600  # for the whole soak: far above the ~1-2 minutes it takes on 2 cores
# the shared TINY run, smaller and with one evaluation at the end: many visitors train at once
SMALLER = dict(block_size=8, n_embd=8, max_steps=5, warmup_steps=1, eval_interval=5)
GREEK = [chr(0x03B1 + k) for k in range(USERS * ROUNDS)]  # α β γ ...: one per visitor


def settings():
    return page_settings(SMALLER)


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def settle_mb() -> float:
    """RSS after a full collection and after glibc hands its free pages back to the system
    (memory that is free but still mapped is not held by anything of ours)."""
    gc.collect()
    return_free_memory()
    return rss_mb()


def live(cls) -> list:
    """Objects of exactly ``cls`` alive now (type(), not isinstance(): some module proxies
    warn when asked for their class)."""
    gc.collect()
    return [o for o in gc.get_objects() if type(o) is cls]


def visitor_text(n: int) -> tuple[str, str, str]:
    marker, letter = f"marker{n:02d}x", GREEK[n]
    text = "".join(f"the {marker} sings {letter} song number {i % 7} of visitor {n}.\n"
                   for i in range(60))
    return marker, letter, text


def visit(url: str, n: int, downloads: str, waits: list[float], errors: list[str]) -> None:
    """One visitor's whole session; problems go to ``errors`` (threads cannot raise to pytest)."""
    marker, letter, text = visitor_text(n)
    others = [visitor_text(m)[0] for m in range(USERS * ROUNDS) if m != n]
    foreign = set(GREEK) - {letter}
    # (httpx's own limit is 5 s a request: on a loaded CI machine a request can take longer
    # while eight visitors' jobs run; how long a class waits is the load benchmark's to measure)
    doing = "opening the page"
    client = Client(url, verbose=False, analytics_enabled=False, download_files=downloads,
                    httpx_kwargs={"timeout": 60})
    try:
        doing = "/use_corpus"
        summary, preview = client.predict("Paste text", None, text, api_name="/use_corpus")
        ok = (f"{len(text):,} characters" in summary and preview == text[:1000] + "…"
              and not any(o in preview + summary for o in others))
        if not ok:
            errors.append(f"visitor {n}: corpus shown is not theirs: {summary!r}")
        doing = "/train_tokenizer"
        summary = client.predict("char", 512, api_name="/train_tokenizer")[0]
        if f"{len(set(text))} tokens in the vocabulary" not in summary:
            errors.append(f"visitor {n}: tokenizer summary {summary!r}")
        doing = "/train_model"
        started = time.monotonic()
        outputs = client.predict(False, *settings(), api_name="/train_model")
        waits.append(time.monotonic() - started)
        status = outputs[1]
        if "Finished all 5 steps" not in status:
            errors.append(f"visitor {n}: training status {status!r}")
        download = next(o["value"] for o in outputs
                        if isinstance(o, dict) and str(o.get("value", "")).endswith(".zip"))
        bundle = load_bundle(download)
        if bundle.tokenizer.chars != sorted(set(text)):
            errors.append(f"visitor {n}: downloaded a bundle with another vocabulary")
        doing = "/generate"
        written = client.predict(letter, 40, 1.0, 0, 1.0, n + 1, api_name="/generate")[0]
        if not (written.startswith(letter) and set(written) <= set(text)
                and not set(written) & foreign and len(written) == 41):
            errors.append(f"visitor {n}: generated {written!r}, not from their own model")
    except Exception as error:  # any failure of the queue or the app
        errors.append(f"visitor {n}, {doing}: {type(error).__name__}: {error}")
    finally:
        client.close()


def holders(obj, depth: int = 6, ignore: tuple = ()) -> list[str]:
    """Chains of what refers to ``obj`` (types, a function's name, a dict's key, a frame's
    function), up to ``depth`` steps, for a failure message: what keeps a model alive. The
    lists this walk makes, and ``ignore`` (the caller's own lists), are not followed."""
    import sys
    import types

    chains: list[str] = []
    seen = {id(obj), id(chains), *(id(i) for i in ignore)}

    def name(o) -> str:
        if isinstance(o, types.FrameType):
            return f"frame {o.f_code.co_name} ({o.f_code.co_filename.rsplit('/', 1)[-1]}:{o.f_lineno})"
        if isinstance(o, types.ModuleType):
            return f"module {o.__name__}"
        if isinstance(o, (types.FunctionType, types.MethodType)):
            return f"{type(o).__name__} {o.__qualname__} ({getattr(o, '__module__', '')})"
        if isinstance(o, types.CellType):
            return "cell"
        return type(o).__qualname__

    def walk(o, path):
        refs = [r for r in gc.get_referrers(o) if id(r) not in seen
                and not (isinstance(r, types.FrameType) and r.f_code.co_name in ("walk", "holders"))]
        seen.add(id(refs))
        here = sys._getframe()
        refs = [r for r in refs if r is not here and r is not path]
        seen.add(id(refs))
        if not refs or len(path) > depth:
            chains.append(" <- ".join(path))
            return
        for r in refs[:4]:
            seen.add(id(r))
            step = name(r)
            if isinstance(r, dict):
                keys = [k for k, v in r.items() if v is o]
                step += f"[{str(keys[0])[:40]!r}]" if keys else ""
            nxt = path + [step]
            seen.add(id(nxt))
            walk(r, nxt)

    first = [f"GPT(vocab {obj.config.vocab_size}, {obj.config.n_layer} layers, {obj.config.n_embd} wide)"]
    seen.add(id(first))
    walk(obj, first)
    return chains


def threads_now() -> str:
    import sys
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    return "\n".join(f"--- {names.get(ident, ident)}\n" + "".join(traceback.format_stack(frame)[-6:])
                     for ident, frame in sys._current_frames().items())


def held_sessions(demo) -> list[Session]:
    return [v for data in list(demo.server_app.state_holder.session_data.values())
            for v in list(data.state_data.values()) if isinstance(v, Session)]


def wait_until(condition, what):
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


@pytest.mark.slow
def test_soak_many_visitors_in_rounds(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADIO_HEARTBEAT_INTERVAL", "1")  # a closed tab is noticed in ~1 s
    # PLAYGROUND_CONCURRENCY=1: one compute job at a time, as on 2 CPUs
    hosting.use(dataclasses.replace(hosting.current(), concurrency=1))
    demo = build_demo(session_ttl_s=300)  # closed tabs free at once; the TTL is the backstop
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    downloads = str(tmp_path / "downloads")
    figures: dict[str, float] = {}
    errors: list[str] = []
    waits: list[float] = []
    peak = [0.0]
    sampling = threading.Event()
    before = weakref.WeakSet()

    def sample_rss():
        while not sampling.wait(0.05):
            peak[0] = max(peak[0], rss_mb())

    def soak():
        # models that earlier tests in this process still hold (none of this app's; some may be
        # freed meanwhile): weakly, so this list keeps none of them alive
        before.update(live(GPT))
        # a warm-up visitor first: imports, kernels and caches are then part of the baseline
        visit(url, USERS * ROUNDS - 1, downloads, [], errors)
        wait_until(lambda: held_sessions(demo) == [], "the warm-up session to be freed")
        figures["start"] = settle_mb()
        threading.Thread(target=sample_rss, daemon=True).start()
        for r in range(ROUNDS):
            threads = [threading.Thread(target=visit, args=(url, r * USERS + u, downloads, waits, errors))
                       for u in range(USERS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wait_until(lambda: held_sessions(demo) == [], f"round {r + 1}'s sessions to be freed")
            figures[f"round {r + 1}"] = settle_mb()
        sampling.set()
        figures["final"] = figures[f"round {ROUNDS}"]

    try:
        worker = threading.Thread(target=soak, daemon=True)
        worker.start()
        worker.join(LIMIT_S)
        assert not worker.is_alive(), f"the soak did not finish in {LIMIT_S} s"
        assert errors == []
        assert len(waits) == USERS * ROUNDS  # the queue served every visitor
        # no visitor's model outlives its session (one may still be on its way out: a worker
        # thread that wrote the last answer lets go of its generator a moment later; bounded at
        # 60 s). A visitor's model has the soak's shape and a visitor's vocabulary; another model
        # made meanwhile is some earlier test's leftover work in this process (CI twice saw one of
        # the quick preset's shape, vocabulary 65; a run of the server tests first, one of
        # vocabulary 9 held by an earlier test's session kept for a reload in reattach's
        # registry): named in a warning, with what holds it, not failed here
        vocabularies = {len(set(visitor_text(n)[2])) for n in range(USERS * ROUNDS)}

        def visitors(models):
            return [m for m in models if m.config.block_size == SMALLER["block_size"]
                    and m.config.n_embd == SMALLER["n_embd"]
                    and m.config.vocab_size in vocabularies]

        try:
            wait_until(lambda: visitors(m for m in live(GPT) if m not in before) == [],
                       "every visitor's model to be freed")
        except pytest.fail.Exception:
            kept = visitors(m for m in live(GPT) if m not in before)
            pytest.fail("models outlived their sessions:\n" + "\n".join(
                chain for m in kept for chain in holders(m, ignore=(kept,)))
                + "\nthreads:\n" + threads_now())
        foreign = [m for m in live(GPT) if m not in before]
        if foreign:
            warnings.warn("models made during the soak by something else in this process are "
                          "alive after it:\n" + "\n".join(chain for m in foreign[:2]
                                                          for chain in holders(m, ignore=(foreign,))[:12])
                          + "\nthreads:\n" + threads_now()[:4000], stacklevel=1)
        assert list(app_temp_dir().glob("*")) == []  # every session folder deleted
        grew = figures["final"] - figures["start"]
        rounds = ", ".join(f"after round {r + 1} {figures[f'round {r + 1}']:.0f} MB" for r in range(ROUNDS))
        print(f"\nsoak: {USERS} users x {ROUNDS} rounds; RSS start {figures['start']:.0f} MB, "
              f"peak {peak[0]:.0f} MB, {rounds}, final {figures['final']:.0f} MB ({grew:+.0f} MB); "
              f"longest training call (queue wait included) {max(waits):.1f} s")
        # Once warm, a round leaves nothing behind: less than 1 MB per visitor. (Measured
        # over 5 rounds: 538, 546, 549, 545, 546 MB: the first two settle the worker
        # threads' arenas, then RSS stays flat.) ...
        assert figures["final"] - figures["round 2"] < 1.0 * USERS
        # ... and the process is back near its start: what stays is the thread pools and
        # allocator arenas of 8 concurrent visitors (measured +29 to +39 MB, the same after
        # 2 or 5 rounds), while the rounds' peak was some 70 MB up
        assert grew < 64
    finally:
        demo.close()
