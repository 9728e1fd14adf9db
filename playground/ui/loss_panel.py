"""The training tab's extras: reference lines and x axis of the loss plot, the training coach.

``train_tab.train_model`` calls ``begin`` when a run starts, ``figure`` for every plot it
pushes and ``coach`` at each evaluation and when the run ends; the widgets of this
panel (``build``) only change how the session's history is drawn.

>>> s = Session()
>>> set_plot_options(s, "tokens", True)[0].plot.x
'tokens'
"""

from __future__ import annotations

from typing import Sequence

import gradio as gr
import torch

from playground import ready
from playground.insight.coach import coach_notes, progress_note
from playground.config import ModelConfig, TrainConfig
from playground.corpus import Corpus
from playground.i18n import t
from playground.model import count_params
from playground.plots import loss_figure
from playground.insight.baselines import axis_key, reference_lines
from playground.tokenizer import Tokenizer
from playground.train import Record
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import Session, ensure

X_CHOICES = [(tr("choice_x_step"), "step"), (tr("choice_x_tokens"), "tokens"),
             (tr("choice_x_elapsed"), "elapsed")]
OPTIONS_SET = Outputs("session", "plot")  # set_plot_options's outputs


def trained_history(session: Session) -> list[Record]:
    """The records of the session's model (none before a run or an upload; a ready-made
    model's run is not the visitor's, and the Inside tab shows its samples)."""
    return session.trained.history if ready.has_own_model(session) else []


def figure(session: Session, history: Sequence[Record]):
    """The loss figure of ``history`` with the session's x axis and reference lines."""
    refs = session.plot.references if session.plot.show_references else ()
    return loss_figure(history, x=session.plot.x, references=refs, lang=session.lang)


def show_figure(session: Session | None):
    """On page load: the (empty) loss figure with its titles in the visitor's language."""
    session = ensure(session)
    return figure(session, trained_history(session))


def set_plot_options(session: Session | None, x: str, show_references: bool):
    """The x axis or the reference checkbox changed: ``OPTIONS_SET`` (session, redrawn figure).

    While a run goes, the next live update draws with the new options, so the figure is left
    as it is.
    """
    session = ensure(session)
    session.plot.x, session.plot.show_references = axis_key(x or "step"), bool(show_references)
    if session.run.running:
        return OPTIONS_SET.only(session=session)
    return OPTIONS_SET(session=session, plot=figure(session, trained_history(session)))


def begin(session: Session, corpus: Corpus, tokenizer: Tokenizer, train_ids: torch.Tensor,
          vocab_size: int) -> None:
    """At the start of a run: the reference levels for its corpus and tokenizer."""
    ids = train_ids.numpy() if isinstance(train_ids, torch.Tensor) else train_ids
    session.plot.references = reference_lines(vocab_size, ids, corpus.source, tokenizer.kind,
                                              lang=session.lang)
    session.plot.coach = ""


def coach(session: Session, history: Sequence[Record], model_cfg: ModelConfig,
          train_cfg: TrainConfig, train_tokens: int) -> str:
    """The coach's notes as markdown (also kept in ``session.plot.coach``)."""
    unigram = next((r.value for r in session.plot.references if r.key == "unigram"), None)
    notes = coach_notes(history, vocab_size=model_cfg.vocab_size, n_params=count_params(model_cfg),
                        train_tokens=train_tokens, config=train_cfg, model_config=model_cfg,
                        unigram=unigram, lang=session.lang)
    title = "**" + t("Training coach", session.lang) + "**"
    if not notes:  # a healthy run: how far it came, and what to try next
        progress = progress_note(history, config=train_cfg, lang=session.lang)
        notes = [progress] if progress is not None else []
    if not notes:
        body = t("Nothing to flag so far.", session.lang)
    else:
        seen, tried = t("Seen", session.lang), t("Try", session.lang)
        body = "\n".join(f"- **{seen}:** {n.seen}  \n  **{tried}:** {n.advice}" for n in notes)
    session.plot.coach = f"{title}  \n{body}"
    return session.plot.coach


def build_coach() -> gr.Markdown:
    """The coach's notes, beside the loss plot."""
    return gr.Markdown(tr("page_coach_empty"), elem_id="coach-notes", container=True)


def build_options(session: gr.State, plot: gr.Plot) -> None:
    """The plot options, under the plot: reference lines and the x axis."""
    with gr.Row():
        show = gr.Checkbox(True, label=tr("show_references"), info=tr("show_references_info"),
                           elem_id="show-references")
        x = gr.Radio(X_CHOICES, value="step", label=tr("x_axis"), info=tr("plot_x_info"),
                     elem_id="plot-x")
    gr.on([show.change, x.change], set_plot_options, [session, x, show],
          OPTIONS_SET.widgets(session=session, plot=plot),
          concurrency_limit=None, api_visibility="private", show_progress="hidden")
