"""Tab 5b, Inside the model: the model's diagram, one forward pass step by step, training
step by step (Step ×1 / ×10 / ×100), the samples of each evaluation side by side, where the
model is surprised, and the map of its token embeddings.

The diagram follows the training tab's settings as they change, before anything is trained
(``insight.diagram``). The three other views run the session's model once each, on the
shared compute queue (``insight.lens``, ``insight.surprise``, ``insight.embedding_map``),
and keep what they computed in this tab's own state (``InsideView``), so choosing another
position or moving the temperature only redraws. A view made with an earlier model is
dropped when a new run starts or a bundle is uploaded. Problems are said in a line of the
view (no error pill): no model yet, a run going, a text the tokenizer cannot read.

Stepping (``step_model``) trains the session's model a few more steps as a run of the one run
driver (``runs.start_run(steps=k)``: the path "Continue training" takes, then
``Trainer.run(max_steps=k)``), or starts a model from the training tab's settings when the
session has none of its own (its ready-made model, ``playground.ready``, is not trained on); so steps taken 1 + 10 + 100 at a time give the very weights of a straight
run of 111. After each press it runs the model again on the prompt and writes a sample with
a fixed seed, so between two presses only the weights change.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from playground import describe, ready, runs
from playground.config import SAMPLE_RANGES, ConfigError, SampleConfig
from playground.generate import generate_text
from playground.i18n import error_text, localize, msg, t
from playground.insight.diagram import diagram_html
from playground.insight.head_steps import head_arithmetic, head_steps, step_markdown
from playground.insight.embedding_map import (EmbeddingMap, describe_map, embedding_figure,
                                              embedding_map, token_counts)
from playground.insight.lens import (ForwardPass, attention_row_figure, distribution_figure,
                                     forward_pass, forward_summary, lens_figure, shaped_probs,
                                     vector_figure)
from playground.insight.surprise import Surprise, surprise, surprise_html, surprise_summary
from playground.insight.timeline import sample_rows, timeline_html
from playground.plots import display_token
from playground.runtime.execution import cpu_threads
from playground.train import EvalProgress, StepRecord
from playground.ui import loss_panel, train_tab
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.trained import TrainedModel
from playground.ui.session import Session, ensure
from playground.settings import PageSettings, takes_settings
from playground.runtime import hosting
from playground.runtime.fairshare import in_turns
from playground.tasks import best_head, task_of, task_text

log = logging.getLogger("playground.ui")

MAX_PROMPT_TOKENS = 64  # the forward pass: a prompt whose attention row still reads
SURPRISE_CHARS = 600  # the validation text offered for the surprise view
STEP_SIZES = (1, 10, 100)  # the stepping buttons: steps trained per press
STEP_SAMPLE_TOKENS = 120  # the sample written after each press ...
STEP_SAMPLE_SEED = 1  # ... always with this seed, so two presses' samples differ by the weights
STEP_PUSHES_PER_S = 4  # status updates a second while a press trains

# each handler's outputs, by the names of build()'s widgets
FORWARD = ("forward_summary", "vectors", "attention", "lens", "distribution")  # one position
RAN = Outputs("view", "prompt", "position", *FORWARD)  # run_forward
MOVED = Outputs(*FORWARD)  # move_position
RESHAPED = Outputs("distribution", "sampling_line")  # reshape
SURPRISED = Outputs("view", "text", "surprise_view", "surprise_summary")  # run_surprise
MAPPED = Outputs("view", "embedding", "map_caption")  # run_embedding_map
STEPPED = Outputs("view", "prompt", "position", "step_status", "step_sample", *FORWARD,
                  "timeline", "surprise_view", "surprise_summary", "embedding", "map_caption")
OPENED = Outputs("view", "diagram", "prompt", "text", *FORWARD, "surprise_view",
                 "surprise_summary", "embedding", "map_caption", "step_status", "timeline")


@dataclass
class InsideView:
    """What this visitor's tab has computed, and for which model (a weak reference: the
    session owns the model; a new run or upload makes a new one, and these views stale)."""

    model: Any = None  # weakref.ref to the TrainedModel the views were computed with
    forward: ForwardPass | None = None
    surprise: Surprise | None = None
    embedding: EmbeddingMap | None = None
    counted: bool = False  # the embedding map's tokens were ordered by their frequency
    notes: dict[str, str] = field(default_factory=dict)


def new_view() -> InsideView:
    """``gr.State``'s initial value, one per visitor."""
    return InsideView()


def _current(view: InsideView | None, session: Session) -> InsideView:
    """The tab's view if it was computed with the session's model, else a fresh one."""
    if view is not None and view.model is not None and view.model() is session.trained \
            and session.trained is not None:
        return view
    return InsideView()


def _model_or_note(session: Session) -> tuple[TrainedModel | None, str]:
    """The model to look inside (the session's own, else its ready-made one), or the line
    saying why there is none to look at now."""
    if ready.use_ready(session) is None:
        return None, localize(msg("There is no model to {action} yet. Train one on the 'Model & "
                                  "training' tab (or upload a bundle there) first.",
                                  action=msg("look inside")), session.lang)
    if session.run.running:
        return None, t("A run is training this model right now: look inside once it ends (or "
                       "after Stop).", session.lang)
    return session.trained, ""


def _problem(error: Exception, lang: str) -> str:
    """An inline line for a handler's failure: our own messages as they are, others generic."""
    if isinstance(error, ValueError):
        return "**" + t("Cannot do that yet", lang) + ":** " + error_text(error, lang)
    log.exception("unexpected error in the Inside tab")
    return t("Something unexpected went wrong (the details are in the server log). Nothing you "
             "made so far was lost; try again, or change the settings.", lang)


# --- one head's arithmetic --------------------------------------------------------------------

def show_head_step(session: Session | None, prompt: str, position: float, layer: float | None,
                   head: float | None, index: int, move: int):
    """Step ``index + move`` of one head's arithmetic at the forward pass's position:
    (index, layer, head, Markdown). A toy task's model starts on the head that shows its
    pattern (``tasks.best_head``)."""
    session = ensure(session)
    trained, note = _model_or_note(session)
    if trained is None:
        return index, layer, head, note
    cfg = trained.model_config
    if layer is None or head is None:
        task = task_of(trained.corpus)
        found = best_head(task, trained.model, trained.tokenizer) if task else None
        layer, head = found[:2] if found else (0, 0)
    layer, head = min(max(int(layer), 0), cfg.n_layer - 1), min(max(int(head), 0), cfg.n_head - 1)
    text = prompt if prompt and prompt.strip() else default_prompt(session)
    try:
        steps = head_steps(head_arithmetic(trained.model, trained.tokenizer, text, layer, head,
                                           int(position or 0)))
    except Exception as error:  # noqa: BLE001 (a prompt the tokenizer cannot read, say)
        return index, layer, head, _problem(error, session.lang)
    index = min(max(int(index or 0) + int(move), 0), len(steps) - 1)
    return index, layer, head, step_markdown(steps, index, session.lang)


# --- the diagram ------------------------------------------------------------------------------

@takes_settings
def show_diagram(session: Session | None, settings: PageSettings) -> str:
    """The diagram of the model the training tab's settings describe (HTML)."""
    session = ensure(session)
    vocab = session.tokenizer.vocab_size if session.tokenizer is not None else describe.DEFAULT_VOCAB
    try:
        model_cfg, _ = settings.configs(vocab)
    except ConfigError as error:
        return t("**Check the settings:** {error}", session.lang,
                 error=error_text(error, session.lang))
    return diagram_html(model_cfg, session.lang)


@takes_settings
def show_diagrams(session: Session | None, settings: PageSettings) -> tuple[str, str]:
    """The diagram twice: for this tab and for the training tab's."""
    drawn = show_diagram(session, *settings.as_list())
    return drawn, drawn


# --- one forward pass -------------------------------------------------------------------------

def default_prompt(session: Session) -> str:
    """The last prompt generated from, else the first line of the corpus the model read."""
    if session.trained is None:
        return ""
    task = task_of(session.trained.corpus)
    if task is not None:  # a toy task's model: a held-out problem with its answer
        return task_text(task)
    corpus = session.trained.corpus or session.corpus_or_default()
    text = session.last_prompt or corpus.text[:200].split("\n\n")[0]
    tokenizer = session.trained.tokenizer
    try:
        text = tokenizer.decode(tokenizer.encode(text)[:MAX_PROMPT_TOKENS // 2])
    except ValueError:  # a text with characters the model's tokenizer never saw
        return ""
    end = text.rfind(" ")  # end on a whole word when there is one to end on
    return text[:end] if end > len(text) // 2 else text


def _sampling(temperature, top_k, top_p) -> tuple[float, int, float]:
    """The sliders' values, inside the sampler's ranges (an API caller may send anything)."""
    def within(value, name, default):
        low, high = SAMPLE_RANGES[name]
        try:
            value = float(value)
        except (TypeError, ValueError):
            return default
        return min(max(value, low), high) if math.isfinite(value) else default
    return (within(temperature, "temperature", 1.0), int(within(top_k, "top_k", 0)),
            within(top_p, "top_p", 1.0))


def _forward_views(fp: ForwardPass, position: int, tokenizer, lang: str, sampling) -> dict:
    """What the pass shows at ``position``, by ``FORWARD``'s names: the summary line and the
    figures (embedding strips, attention row, lens, next-token distribution)."""
    p = min(max(int(position), 0), len(fp.tokens) - 1)
    return dict(forward_summary=forward_summary(fp, p, tokenizer, lang),
                vectors=vector_figure(fp, p, lang), attention=attention_row_figure(fp, p, lang),
                lens=lens_figure(fp, p, tokenizer, lang),
                distribution=distribution_figure(fp.logits[p], tokenizer, *sampling, lang=lang))


def run_forward(session: Session | None, view: InsideView | None, text: str, temperature: float,
                top_k: float, top_p: float):
    """Run the model once on ``text``: ``RAN`` (view, text, position slider, summary, embedding
    strips, attention, lens, distribution). The position starts at the last token."""
    session = ensure(session)
    trained, note = _model_or_note(session)
    if trained is None:
        return RAN.only(view=view, forward_summary=note)
    view = _current(view, session)
    text = text if text and text.strip() else default_prompt(session)
    try:
        fp = forward_pass(trained.model, trained.tokenizer, text, max_tokens=MAX_PROMPT_TOKENS)
    except Exception as error:  # noqa: BLE001 (said in the view's line, never a pill)
        return RAN.only(view=view, forward_summary=_problem(error, session.lang))
    view.model, view.forward = weakref.ref(trained), fp
    last = len(fp.tokens) - 1
    return RAN(view=view, prompt=text, position=_last_position(last),
               **_forward_views(fp, last, trained.tokenizer, session.lang,
                                _sampling(temperature, top_k, top_p)))


def _last_position(last: int) -> gr.Slider:
    """The position slider of a pass whose last token is at ``last``, set there."""
    return gr.Slider(minimum=0, maximum=max(last, 1), value=last, step=1, interactive=last > 0)


def move_position(session: Session | None, view: InsideView | None, position: float,
                  temperature: float, top_k: float, top_p: float):
    """Another position, from the cached pass: ``MOVED`` (summary, strips, attention, lens,
    distribution)."""
    session = ensure(session)
    view = _current(view, session)
    if view.forward is None or position is None:
        return MOVED.only()
    return MOVED(**_forward_views(view.forward, position, session.trained.tokenizer, session.lang,
                                  _sampling(temperature, top_k, top_p)))


def reshape(session: Session | None, view: InsideView | None, position: float,
            temperature: float, top_k: float, top_p: float):
    """Temperature, top-k or top-p moved: the distribution again from the cached logits, and
    a line saying what changed (no model run): ``RESHAPED``."""
    session = ensure(session)
    view = _current(view, session)
    if view.forward is None or position is None:
        return RESHAPED.only()
    fp, lang = view.forward, session.lang
    p = min(max(int(position), 0), len(fp.tokens) - 1)
    sampling = _sampling(temperature, top_k, top_p)
    probs = shaped_probs(fp.logits[p], *sampling)
    top = int(probs.argmax())
    line = t("Temperature {temperature}: the likeliest token, “{token}”, now has {p} (the model "
             "itself gives it {raw}). Below 1 sharpens the distribution, above 1 flattens it; 0 "
             "always takes the likeliest.", lang, temperature=f"{sampling[0]:g}",
             token=display_token(session.trained.tokenizer.token_str(top), 16),
             p=f"{probs[top]:.0%}", raw=f"{shaped_probs(fp.logits[p])[top]:.0%}")
    return RESHAPED(distribution=distribution_figure(fp.logits[p], session.trained.tokenizer,
                                                     *sampling, lang=lang), sampling_line=line)


# --- surprise ---------------------------------------------------------------------------------

def validation_text(session: Session) -> str:
    """The start of the validation part of the model's corpus (the text it never trained on),
    cut at a line end; "" when the model's tokenizer cannot read it."""
    if session.trained is None:
        return ""
    trained = session.trained
    corpus = trained.corpus or session.corpus_or_default()
    text = corpus.split(trained.train_config.val_fraction)[1][:SURPRISE_CHARS]
    end = text.rfind("\n")
    text = text[:end + 1] if end > 0 else text
    try:
        trained.tokenizer.encode(text)
    except ValueError:
        return ""
    return text


def run_surprise(session: Session | None, view: InsideView | None, text: str):
    """Colour ``text`` (default: the validation text) by the model's surprise: ``SURPRISED``
    (view, text, coloured HTML, summary)."""
    session = ensure(session)
    trained, note = _model_or_note(session)
    if trained is None:
        return SURPRISED.only(view=view, surprise_summary=note)
    view = _current(view, session)
    text = text if text and text.strip() else validation_text(session)
    try:
        s = surprise(trained.model, trained.tokenizer, text)
    except Exception as error:  # noqa: BLE001 (said in the view's line, never a pill)
        return SURPRISED.only(view=view, surprise_summary=_problem(error, session.lang))
    view.model, view.surprise = weakref.ref(trained), s
    return SURPRISED(view=view, text=text, surprise_view=surprise_html(s, session.lang),
                     surprise_summary=surprise_summary(s, trained.history, session.lang))


# --- the embedding map ------------------------------------------------------------------------

def run_embedding_map(session: Session | None, view: InsideView | None):
    """The token embeddings on a map: ``MAPPED`` (view, figure, caption). The tokens are ordered
    by how often they occur in the model's corpus when it is known (not after an upload)."""
    session = ensure(session)
    trained, note = _model_or_note(session)
    if trained is None:
        return MAPPED.only(view=view, map_caption=note)
    view = _current(view, session)
    try:
        counts = token_counts(trained.tokenizer, trained.corpus.text) if trained.corpus else None
        emap = embedding_map(trained.model, trained.tokenizer, counts=counts)
    except Exception as error:  # noqa: BLE001 (said in the view's line, never a pill)
        return MAPPED.only(view=view, map_caption=_problem(error, session.lang))
    view.model, view.embedding, view.counted = weakref.ref(trained), emap, counts is not None
    vocab = trained.model_config.vocab_size
    return MAPPED(view=view, embedding=embedding_figure(emap, session.lang),
                  map_caption=describe_map(emap, vocab, view.counted, session.lang))


# --- what the model learned over time -------------------------------------------------------

def show_timeline(trained: TrainedModel | None, lang: str) -> str:
    """The samples of every evaluation side by side (HTML), or the line saying why none."""
    if trained is None:
        return "<p>" + localize(msg("There is no model to {action} yet. Train one on the 'Model "
                                    "& training' tab (or upload a bundle there) first.",
                                    action=msg("look inside")), lang) + "</p>"
    rows = sample_rows(trained.history)
    if rows:
        return timeline_html(rows, lang)
    if not trained.train_config.sample_tokens:
        return "<p>" + t("This model's run writes no samples: set the sample length "
                         "(sample_tokens, under Advanced on the training tab) above 0, and each "
                         "evaluation adds a row here.", lang) + "</p>"
    return "<p>" + t("No evaluation has written a sample yet: each evaluation (every {interval} "
                     "steps) adds a row here.", lang,
                     interval=f"{trained.train_config.eval_interval:,}") + "</p>"


# --- step by step -----------------------------------------------------------------------------

def _after_press(session: Session, view: InsideView, prompt: str, sampling) -> dict:
    """The views a press refreshes, by ``STEPPED``'s names: the view, prompt, position,
    sample and ``FORWARD``'s, from one forward pass and one seeded sample."""
    trained = session.trained
    text = prompt if prompt and prompt.strip() else default_prompt(session)
    fp = forward_pass(trained.model, trained.tokenizer, text, max_tokens=MAX_PROMPT_TOKENS)
    temperature, top_k, top_p = sampling
    # one token at a time is too little work to share: on 2 busy cores two threads wrote the
    # 120 tokens of the quick preset in 13.6 s, one thread in 0.2 s (measured)
    with cpu_threads(1):
        written = generate_text(trained.model, trained.tokenizer, text, SampleConfig(
            max_new_tokens=STEP_SAMPLE_TOKENS, temperature=temperature, top_k=top_k,
            top_p=top_p, seed=STEP_SAMPLE_SEED))
    view.model, view.forward = weakref.ref(trained), fp
    last = len(fp.tokens) - 1
    return dict(view=view, prompt=text, position=_last_position(last), step_sample=text + written,
                **_forward_views(fp, last, trained.tokenizer, session.lang, sampling))


@takes_settings
def step_model(session: Session | None, view: InsideView | None, steps: int, prompt: str,
               temperature: float, top_k: float, top_p: float, settings: PageSettings):
    """Train ``steps`` more steps (a run of ``runs.start_run(steps=...)``: the session's model
    goes on as "Continue training" takes it; without one, a new model from the training tab's
    settings), then look again. Streams ``STEPPED`` (view, prompt, position, status, sample,
    summary, vectors, attention, lens, distribution, timeline, and the surprise and map views,
    cleared: they show the weights before the press); while it trains only the status changes. Stop
    (here or on the training tab) ends a press early."""
    session = ensure(session)
    lang = session.lang
    # the surprise and map views, of the weights before the press
    cleared = dict(surprise_view="", surprise_summary="", embedding=None, map_caption="")

    def status_only(line: str) -> tuple:
        return STEPPED.only(view=view, step_status=line)

    if session.run.running or session.run.pending:
        yield status_only(t("A training run is going: wait for it to end (or press Stop on the "
                            "training tab), then step.", lang))
        return
    steps = min(max(int(steps or 1), 1), max(STEP_SIZES))  # an API caller may send anything
    run = runs.start_run(session, settings, continue_=ready.has_own_model(session), steps=steps)
    view, done, last_push = _current(view, session), None, 0.0
    try:
        with contextlib.closing(run.events()) as events:
            for event in events:
                if isinstance(event, runs.Started):
                    session.attention = None
                    if event.new_model:  # the loss plot's reference lines are for its text
                        loss_panel.begin(session, event.trained.corpus, event.trained.tokenizer,
                                         event.train_ids, event.trained.model_config.vocab_size)
                elif isinstance(event, runs.Finished):
                    done = event
                elif isinstance(event, (EvalProgress, StepRecord)) \
                        and time.monotonic() - last_push >= 1 / STEP_PUSHES_PER_S:
                    last_push = time.monotonic()
                    yield status_only(describe.eval_line(event, None, lang)
                                      if isinstance(event, EvalProgress) else
                                      describe.stepping_line(event, run, steps, lang))
    except Exception as error:  # noqa: BLE001 (said in the status line, never a pill)
        yield status_only(_problem(error, lang))
        return
    if done is None:  # the page closed, or it was stopped before its first turn
        return
    status = describe.stepped_line(done, lang)
    if done.bundle_error is not None:  # a full disk: the model is still here, the file is not
        status += "  \n" + _problem(done.bundle_error, lang)
    trained = done.trained
    try:
        pressed = _after_press(session, view, prompt, _sampling(temperature, top_k, top_p))
    except Exception as error:  # noqa: BLE001 (a prompt the tokenizer cannot read, say)
        yield STEPPED.only(view=view, step_status=status + "  \n" + _problem(error, lang),
                           timeline=show_timeline(trained, lang), **cleared)
        return
    yield STEPPED(**pressed, step_status=status, timeline=show_timeline(trained, lang), **cleared)


# --- opening the tab --------------------------------------------------------------------------

@takes_settings
def on_open(session: Session | None, view: InsideView | None, prompt: str, text: str,
            position: float, temperature: float, top_k: float, top_p: float,
            settings: PageSettings):
    """The tab was opened: ``OPENED``, the diagram of the settings, the default texts where
    empty, and the views already computed drawn again in the page's language (cleared when the
    model has changed since, left as they are when there are none), the model's step and the
    samples of its evaluations."""
    session = ensure(session)
    ready.use_ready(session)  # the views open on the ready-made model when there is no other
    fresh = _current(view, session)
    stale = view is not None and view.model is not None and fresh is not view
    prompt = prompt if prompt and prompt.strip() and not stale else default_prompt(session)
    text = text if text and text.strip() and not stale else validation_text(session)
    lang = session.lang
    shown = {}
    if fresh.forward is not None:
        shown.update(_forward_views(fresh.forward, position or 0, session.trained.tokenizer, lang,
                                    _sampling(temperature, top_k, top_p)))
    elif stale:
        shown.update(forward_summary="", vectors=None, attention=None, lens=None,
                     distribution=None)
    if fresh.surprise is not None:
        shown.update(surprise_view=surprise_html(fresh.surprise, lang),
                     surprise_summary=surprise_summary(fresh.surprise, session.trained.history, lang))
    elif stale:
        shown.update(surprise_view="", surprise_summary="")
    if fresh.embedding is not None:
        shown.update(embedding=embedding_figure(fresh.embedding, lang),
                     map_caption=describe_map(fresh.embedding,
                                              session.trained.model_config.vocab_size,
                                              fresh.counted, lang))
    elif stale:
        shown.update(embedding=None, map_caption="")
    return OPENED.only(view=fresh, diagram=show_diagram(session, *settings.as_list()),
                       prompt=prompt, text=text, **shown, step_status=describe.model_step_line(session.trained, session.lang),
                       timeline=show_timeline(session.trained, lang))


@dataclass
class InsideTab:
    diagram: gr.HTML


def build(session: gr.State, concurrency_limit: int, settings: list,
          tab: gr.Tab, train_diagram: gr.HTML) -> InsideTab:
    """The tab's widgets; ``settings`` are the training tab's (the diagram follows them, here
    and in the training tab's ``train_diagram``) and ``tab`` this tab (opening it draws
    again)."""
    view = gr.State(new_view)
    gr.Markdown(tr("inside_intro"))

    with gr.Accordion(tr("inside_diagram_title"), open=True):
        gr.Markdown(tr("inside_diagram_intro"))
        diagram = gr.HTML(elem_id="model-diagram")

    with gr.Accordion(tr("inside_forward_title"), open=True):
        gr.Markdown(tr("inside_forward_intro"))
        with gr.Row(equal_height=False):
            prompt = gr.Textbox(label=tr("inside_prompt"), lines=1, max_lines=4, scale=3, min_width=260,
                                info=tr("inside_prompt_info"), elem_id="inside-prompt")
            run = gr.Button(tr("inside_forward_button"), variant="primary", scale=1,
                            min_width=160, elem_id="inside-forward-run")
        gr.Markdown(tr("inside_step_intro"))
        with gr.Row(equal_height=False, elem_id="inside-step-row"):
            step_buttons = [gr.Button(tr(f"inside_step_{k}"), min_width=90,
                                      elem_id=f"inside-step-{k}") for k in STEP_SIZES]
            step_stop = gr.Button(tr("stop_button"), variant="stop", min_width=80,
                                  elem_id="inside-step-stop")
        step_status = gr.Markdown(elem_id="inside-step-status")
        step_sample = gr.Textbox(label=tr("inside_step_sample"), info=tr("inside_step_sample_info"),
                                 lines=3, max_lines=8, interactive=False, autoscroll=False,
                                 elem_id="inside-step-sample", elem_classes=["mono"])
        position = gr.Slider(0, 1, value=0, step=1, label=tr("inside_position"),
                             info=tr("inside_position_info"), interactive=False,
                             elem_id="inside-position")
        forward_summary = gr.Markdown(elem_id="inside-forward-summary")
        vectors = gr.Plot(label=tr("inside_vectors"), elem_id="inside-vectors")
        attention = gr.Plot(label=tr("inside_attention"), elem_id="inside-attention")
        lens = gr.Plot(label=tr("inside_lens"), elem_id="inside-lens")
        gr.Markdown(tr("inside_sampling_intro"))
        with gr.Row(equal_height=False):
            low, high = SAMPLE_RANGES["temperature"]
            temperature = gr.Slider(low, high, value=1.0, step=0.05, min_width=200,
                                    label=tr("temperature"), elem_id="inside-temperature")
            top_k = gr.Slider(*SAMPLE_RANGES["top_k"], value=0, step=1, min_width=200,
                              label=tr("top_k"), info=tr("inside_top_k_info"))
            top_p = gr.Slider(*SAMPLE_RANGES["top_p"], value=1.0, step=0.05, min_width=200,
                              label=tr("top_p"), info=tr("inside_top_p_info"))
        sampling_line = gr.Markdown(elem_id="inside-sampling-line")
        distribution = gr.Plot(label=tr("inside_distribution"), elem_id="inside-distribution")

    with gr.Accordion(tr("inside_head_title"), open=True):
        gr.Markdown(tr("inside_head_intro"))
        with gr.Row(equal_height=False):
            head_layer = gr.Number(None, precision=0, minimum=0, label=tr("layer"), min_width=90)
            head_head = gr.Number(None, precision=0, minimum=0, label=tr("head"), min_width=90)
            head_prev = gr.Button(tr("inside_head_prev"), min_width=90, elem_id="inside-head-prev")
            head_next = gr.Button(tr("inside_head_next"), variant="primary", min_width=90,
                                  elem_id="inside-head-next")
        head_index = gr.State(-1)  # the step shown: Next from -1 is the first
        head_view = gr.Markdown(elem_id="inside-head-step")

    with gr.Accordion(tr("inside_timeline_title"), open=True):
        gr.Markdown(tr("inside_timeline_intro"))
        timeline = gr.HTML(elem_id="inside-timeline")

    with gr.Accordion(tr("inside_surprise_title"), open=True):
        gr.Markdown(tr("inside_surprise_intro"))
        with gr.Row(equal_height=False):
            text = gr.Textbox(label=tr("inside_surprise_text"), lines=4, max_lines=10, scale=3,
                              min_width=260, elem_id="inside-surprise-text")
            surprise_button = gr.Button(tr("inside_surprise_button"), variant="primary", scale=1,
                                        min_width=160, elem_id="inside-surprise-run")
        surprise_summary = gr.Markdown(elem_id="inside-surprise-summary")
        surprise_view = gr.HTML(elem_id="inside-surprise")

    with gr.Accordion(tr("inside_embedding_title"), open=True):
        gr.Markdown(tr("inside_embedding_intro"))
        map_button = gr.Button(tr("inside_embedding_button"), variant="primary",
                               elem_id="inside-embedding-run")
        map_caption = gr.Markdown(elem_id="inside-embedding-caption")
        embedding = gr.Plot(label=tr("inside_embedding"), elem_id="inside-embedding")

    sampling = [temperature, top_k, top_p]
    shown = dict(view=view, diagram=diagram, prompt=prompt, text=text, position=position,
                 forward_summary=forward_summary, vectors=vectors, attention=attention,
                 lens=lens, distribution=distribution, sampling_line=sampling_line,
                 step_status=step_status, step_sample=step_sample, timeline=timeline,
                 surprise_view=surprise_view, surprise_summary=surprise_summary,
                 embedding=embedding, map_caption=map_caption)  # the handlers' outputs by name
    compute = dict(concurrency_limit=concurrency_limit, concurrency_id="compute")
    redraw = dict(concurrency_limit=None, show_progress="hidden", api_visibility="private")
    gr.on([w.change for w in settings], show_diagrams, [session, *settings],
          [diagram, train_diagram], trigger_mode="always_last", **redraw)
    tab.select(in_turns(on_open), [session, view, prompt, text, position, *sampling, *settings],
               OPENED.widgets(shown), **redraw)
    gr.on([run.click, prompt.submit], in_turns(run_forward), [session, view, prompt, *sampling],
          RAN.widgets(shown), show_progress_on=[forward_summary], api_name="inside_forward",
          **compute)
    position.input(move_position, [session, view, position, *sampling],
                   MOVED.widgets(shown), trigger_mode="always_last", **redraw)
    gr.on([w.input for w in sampling], reshape, [session, view, position, *sampling],
          RESHAPED.widgets(shown), trigger_mode="always_last", **redraw)
    surprise_button.click(in_turns(run_surprise), [session, view, text], SURPRISED.widgets(shown),
                          show_progress_on=[surprise_summary], api_name="inside_surprise",
                          **compute)
    # a press is a run (runs.start_run(steps=k)): in the runs' group, which takes turns with
    # every other run and job, not the one-at-a-time group of short jobs, where Step x100 on a
    # large model kept every other visitor's Generate waiting for the whole press (issue 27.4:
    # 122.6 s, 0.3 s alone; in this group 0.7 s)
    for k, button in zip(STEP_SIZES, step_buttons):
        button.click(in_turns(step_model), [session, view, gr.State(k), prompt, *sampling, *settings],
                     STEPPED.widgets(shown), show_progress_on=[step_status],
                     api_name=f"inside_step_{k}",
                     concurrency_limit=hosting.max_runs(), concurrency_id="training")
    step_stop.click(train_tab.stop_training, session, None, concurrency_limit=None,
                    api_visibility="private", show_progress="hidden")
    for button, move in ((head_prev, -1), (head_next, 1)):
        button.click(show_head_step, [session, prompt, position, head_layer, head_head, head_index,
                                      gr.State(move)],
                     [head_index, head_layer, head_head, head_view], **redraw)
    map_button.click(in_turns(run_embedding_map), [session, view], MAPPED.widgets(shown),
                     show_progress_on=[map_caption], api_name="inside_embedding_map", **compute)
    return InsideTab(diagram=diagram)
