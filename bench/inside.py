"""How long each view of the Inside tab and the health panel takes, at three model sizes.

Each view is timed through its page handler, on a session whose model was made by the page's
own Step ×1 (so it has a real history, tokenizer and corpus), with every Plotly figure the
handler returns turned into JSON as Gradio does before sending it. The sizes are the page's
default preset and two larger ones; the issue asks for a second or two at the default size and
for the bench to say which views are slower at larger sizes.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import plotly.graph_objects as go

from bench.core import Context, Row, check, median
from playground.config import DEFAULT_PRESET
from playground.ui import health_panel, inside_tab, tokenizer_tab
from playground.ui.session import Session
from playground.settings import PageSettings

SIZES = (DEFAULT_PRESET, "nanogpt-cpu", "nanogpt-gpu")
SAMPLING = (0.8, 0, 1.0)  # temperature, top-k, top-p as the sliders send them
TARGET_S = 2.0  # "a second or two for the page's default model on 2 cores"


VIEWS = ("diagram (from the settings)", "forward pass (run the model once)",
         "another position (cached)", "temperature moved (cached logits)",
         "where the model is surprised", "embedding map", "samples over time",
         "health plots (gradient norm, schedule)")


def _drain(outputs: Any) -> Any:
    """What Gradio does to a handler's answer before sending it: figures to JSON; a
    generator run to its end. An answer with neither a figure nor a page of text (a view
    that only said why it could not draw) is an error: its time would measure nothing."""
    if hasattr(outputs, "__next__"):
        outputs = list(outputs)[-1]
    values = outputs if isinstance(outputs, tuple) else (outputs,)
    drawn = False
    for value in values:
        if isinstance(value, go.Figure):
            value.to_json()
            drawn = True
        drawn = drawn or (isinstance(value, str) and len(value) > 300)
    if not drawn:
        raise RuntimeError(f"a view drew nothing: {str(values)[:200]}")
    return outputs


def _timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        _drain(fn())
        times.append(time.perf_counter() - start)
    return median(times)


def _session(preset: str, quick: bool) -> tuple[Session, PageSettings, float]:
    """A session with the preset's model after one Step ×1 press (its evaluation cut to two
    batches, so the larger presets do not spend minutes on it): (session, settings, seconds of
    that first press)."""
    session = Session()
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    values = {**PageSettings.preset(preset).values, "eval_iters": 2, "sample_tokens": 40}
    if quick:
        values.update(n_layer=1, n_head=2, n_embd=16, block_size=32, batch_size=4)
    settings = PageSettings(values)
    start = time.perf_counter()
    _drain(inside_tab.step_model(session, None, 1, "", *SAMPLING, *settings.as_list()))
    return session, settings, time.perf_counter() - start


def _preset_rows(preset: str, quick: bool, repeats: int) -> list[Row]:
    session, settings, first = _session(preset, quick)
    cfg = session.trained.model_config
    shape = f"{preset}: {cfg.n_layer}L x {cfg.n_embd}, ctx {cfg.block_size}"
    view = inside_tab.new_view()

    def forward():
        nonlocal view
        answer = inside_tab.run_forward(session, view, "", *SAMPLING)
        view = answer[0]
        return answer

    def step(k: int):
        return inside_tab.step_model(session, view, k, "", *SAMPLING, *settings.as_list())

    last = len(session.trained.tokenizer.encode(inside_tab.default_prompt(session))) - 1
    timed = dict(zip(VIEWS, (
        lambda: inside_tab.show_diagram(session, *settings.as_list()),
        forward,
        lambda: inside_tab.move_position(session, view, max(last - 1, 0), *SAMPLING),
        lambda: inside_tab.reshape(session, view, last, 1.5, 0, 1.0),
        lambda: inside_tab.run_surprise(session, view, ""),
        lambda: inside_tab.run_embedding_map(session, view),
        lambda: inside_tab.show_timeline(session.trained, session.lang),
        lambda: health_panel.redraw(session, settings))))
    forward()  # the view the cached redraws read
    rows = []
    for name, fn in timed.items():
        seconds = _timed(fn, repeats)
        target = f"<= {TARGET_S:g} s" if preset == DEFAULT_PRESET else ""
        rows.append(Row("inside", f"{name}, {preset}", seconds, "s", target,
                        met=check(seconds, TARGET_S, higher_is_better=False) if target else None,
                        note=shape if name.startswith("diagram") else ""))
    if preset == DEFAULT_PRESET:
        # stepping trains: the steps, then the redraw after the press (sample and forward pass)
        rows.append(Row("inside", f"Step x1 with no model yet, {preset}", first, "s",
                        note="a new model, its loss before training (2 batches), one step"))
        for k in (1, 10):
            rows.append(Row("inside", f"Step x{k}, {preset}", _timed(partial(step, k), 1), "s",
                            note="training steps, then the sample and the forward pass again"))
    return rows


def views(ctx: Context) -> list[Row]:
    """Seconds per view (median of a few presses) for the default preset and larger models."""
    repeats = 1 if ctx.quick else 3
    return [row for preset in (SIZES[:1] if ctx.quick else SIZES)
            for row in _preset_rows(preset, ctx.quick, repeats)]
