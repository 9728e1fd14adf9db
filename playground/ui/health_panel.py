"""The training tab's health plots, under the loss plot: gradient norm (clipped steps marked),
learning rate as planned and as followed, tokens per second; and the history as CSV.

``build`` adds them and redraws them whenever the loss plot changes (each live update of a
run, an uploaded bundle) and whenever a setting changes (the planned schedule follows the
settings before Start). They read the session's model's records: during a run those are
the live ones (``train_tab.train_model`` keeps them there). A live redraw waits at least
``LIVE_INTERVAL_S`` after the last one, so drawing never takes much from training.

>>> from playground.ui.session import Session
>>> fig, csv_button = redraw(Session(), None)
>>> [trace.name for trace in fig.data if len(trace.x)]   # before Start: the plan
['clipping threshold (grad_clip 1)', 'planned']
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import gradio as gr

from playground import ready
from playground.config import ConfigError, TrainConfig
from playground.insight.health import health_figure, history_csv
from playground.train import EndRecord
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import Session, ensure
from playground.settings import DEFAULTS, PageSettings, takes_settings

LIVE_INTERVAL_S = 1.0
CSV_NAME = "loss-history.csv"
DRAWN = Outputs("state", "figure", "csv_button")  # on_change's outputs


@dataclass
class HealthState:
    """When this visitor's health plots were last drawn during a run (``time.monotonic``)."""

    drawn_at: float = 0.0


def new_state() -> HealthState:
    """``gr.State``'s initial value, one per visitor (a function: Gradio would try to
    serialise a dataclass type given as the value)."""
    return HealthState()


def _plan(session: Session, settings: PageSettings | None) -> TrainConfig | None:
    """The schedule to draw: the run's own while one goes, else the settings' (None if they
    cannot build a config: the settings summary says why)."""
    if session.run.running and session.trained is not None:
        return session.trained.train_config
    try:  # the vocabulary changes nothing in the schedule: any size builds the configs
        return (settings or DEFAULTS).configs(vocab_size=2)[1]
    except ConfigError:
        return None


def redraw(session: Session | None, settings: PageSettings | None):
    """(health figure, CSV download button) for the session's records and the settings."""
    session = ensure(session)
    history = list(session.trained.history) if ready.has_own_model(session) else []
    figure = health_figure(history, _plan(session, settings), lang=session.lang)
    finished = bool(history) and (isinstance(history[-1], EndRecord) or not session.run.running)
    if not finished:
        return figure, gr.DownloadButton(visible=False)
    path = session.workdir() / CSV_NAME
    path.write_text(history_csv(history), encoding="utf-8")
    return figure, gr.DownloadButton(value=str(path), visible=True)


@takes_settings
def on_change(session: Session | None, state: HealthState | None, settings: PageSettings):
    """The loss plot or a setting changed: ``DRAWN`` (state, figure, CSV button), the figure
    and button unchanged while a run goes and the last drawing is fresh."""
    session, state = ensure(session), state or HealthState()
    now = time.monotonic()
    if session.run.running and now - state.drawn_at < LIVE_INTERVAL_S:
        return DRAWN.only(state=state)
    state.drawn_at = now
    figure, csv_button = redraw(session, settings)
    return DRAWN(state=state, figure=figure, csv_button=csv_button)


def build(session: gr.State, plot: gr.Plot, settings: list) -> None:
    """The health plots and the CSV button, redrawn after ``plot`` and the ``settings``."""
    state = gr.State(new_state)
    with gr.Accordion(tr("health_title"), open=True):
        gr.Markdown(tr("health_intro"))
        figure = gr.Plot(label=tr("health_plot"), elem_id="health-plot", show_label=False)
        csv_button = gr.DownloadButton(tr("history_csv_button"), visible=False,
                                       elem_id="history-csv", size="sm")
    gr.on([plot.change, *[w.change for w in settings]], on_change, [session, state, *settings],
          DRAWN.widgets(state=state, figure=figure, csv_button=csv_button),
          concurrency_limit=None, trigger_mode="always_last",
          show_progress="hidden", api_visibility="private")
