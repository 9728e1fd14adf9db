"""Tab 5, Attention: which earlier tokens each token looks at, per layer and head.

The model runs once per text (``attention_maps``); the weights are cached in the session,
so choosing another layer or head only redraws the figures. One head's heatmap and the grid
of every head of its layer sit side by side (both fit a 900 px screen), each head titled with
what it mostly looks at (``head_patterns``), under a caption saying what to look for.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from playground.i18n import localize, msg, t
from playground.insight.attention import attention_maps, head_patterns
from playground.plots import attention_figure, attention_grid_figure
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import Session, ensure, friendly_errors, require_model
from playground.runtime.fairshare import in_turns
from playground.tasks import (best_head, model_shift, pattern_note, task_marks, task_of,
                              task_text)

# the text looked at in the Generate tab's monospace face; on a phone the heatmap keeps a
# readable width (one label per token) and scrolls sideways rather than squeezing its labels
CSS = """
#attention-text textarea { font-family: var(--font-mono), monospace; font-size: 15px; }
@media (max-width: 700px) {
  #attention-heatmap { overflow-x: auto; }
  #attention-heatmap .js-plotly-plot { min-width: 620px; }
}
"""
MAX_TOKENS = 64  # a typed text is cut here: 64 rows still take a label every other row
DEFAULT_TOKENS = 32  # the default text (the last generation's start): every row labelled
REDRAWN = Outputs("heatmap", "grid")  # redraw's outputs


def default_text(session: Session) -> str:
    """The last prompt and generation, or else the start of the corpus, cut to
    ``DEFAULT_TOKENS``."""
    if session.trained is None:
        return ""
    task = task_of(session.trained.corpus)
    if task is not None:  # a toy task's model: a held-out problem, its answer's cells marked
        return task_text(task)
    tokenizer = session.trained.tokenizer
    text = session.last_text or session.corpus_or_default().text[:4 * DEFAULT_TOKENS]
    try:
        return tokenizer.decode(tokenizer.encode(text)[:DEFAULT_TOKENS])
    except ValueError:  # a corpus with characters the model's tokenizer never saw
        return ""


def _figures(session: Session, layer: int, head: int):
    maps = session.attention
    layer = min(max(int(layer), 0), maps.n_layer - 1)
    head = min(max(int(head), 0), maps.n_head - 1)
    lang = session.lang
    patterns = head_patterns(maps.weights[layer], maps.tokens)
    notes = [f"{localize(p.name, lang)} {p.share:.0%}" if p.kind else "" for p in patterns]
    title = t("Layer {layer}, head {head}", lang, layer=layer, head=head)
    if notes[head]:
        title = t("{title}: mostly {note}", lang, title=title, note=notes[head])
    task = task_of(session.trained.corpus) if session.trained is not None else None
    marks = (task_marks(task, session.attention_text, model_shift(session.trained.model))
             if task is not None and session.trained.tokenizer.kind == "char" else [])
    single = attention_figure(maps.weights[layer, head], maps.tokens, lang=lang, title=title,
                              marks=marks)
    grid = attention_grid_figure(maps.weights[layer], maps.tokens, lang=lang, notes=notes,
                                 title=t("All {n_head} heads of layer {layer}", lang, layer=layer,
                                         n_head=maps.n_head))
    return single, grid


@friendly_errors
def show_attention(session: Session | None, text: str, layer: float, head: float):
    """Run the model on ``text`` and draw a head; returns (session, text, layer, head, heatmap,
    grid, summary). An empty text uses ``default_text``."""
    session = ensure(session)
    trained = require_model(session, msg("look inside"), ready_made=True)
    task = task_of(trained.corpus)
    found = best_head(task, trained.model, trained.tokenizer) if task else None
    if found and not (text and text.strip()):  # a task opens on the head that shows it
        layer, head = found[:2]
    text = text if text and text.strip() else default_text(session)
    maps = attention_maps(trained.model, trained.tokenizer, text, max_tokens=MAX_TOKENS)
    session.attention, session.attention_text = maps, text
    layer = min(int(layer or 0), maps.n_layer - 1)
    head = min(int(head or 0), maps.n_head - 1)
    single, grid = _figures(session, layer, head)
    summary = t("{tokens} tokens · {layers} layers × {heads} heads. Each row is a token; its "
                "colours show how much it looks at each earlier token (a row sums to 1). Change "
                "the layer or head to compare.",
                session.lang, tokens=len(maps.tokens), layers=maps.n_layer,
                heads=maps.n_head)
    if task is not None:
        summary += "\n\n" + localize(pattern_note(task, trained.model, trained.tokenizer),
                                       session.lang)
    return (session, text,
            gr.Dropdown(choices=list(range(maps.n_layer)), value=layer),
            gr.Dropdown(choices=list(range(maps.n_head)), value=head),
            single, grid, summary)


def redraw(session: Session | None, layer: float, head: float):
    """Another layer or head from the cached weights (no model run): ``REDRAWN`` (heatmap,
    grid)."""
    session = ensure(session)
    if session.attention is None or layer is None or head is None:
        return REDRAWN.only()
    heatmap, grid = _figures(session, layer, head)
    return REDRAWN(heatmap=heatmap, grid=grid)


def fill_default(session: Session | None, text: str) -> str:
    """After a generation: the Attention tab's text becomes the new default."""
    return default_text(ensure(session)) or text


@dataclass
class AttentionTab:
    """The Attention tab's widget other tabs use: its text follows each new generation."""

    text: gr.Textbox


def build(session: gr.State, concurrency_limit: int) -> AttentionTab:
    gr.Markdown(tr("attention_intro"))
    with gr.Row(equal_height=False):
        # the info names the token counts (64, 32): the page's translator takes no values
        text = gr.Textbox(label=tr("attention_text"), lines=2, max_lines=4, scale=3,
                          info=tr("attention_text_info_fixed"), elem_id="attention-text")
        with gr.Column(scale=1, min_width=220):
            with gr.Row():
                layer = gr.Dropdown([0], value=0, label=tr("layer"), info=tr("layer_info"),
                                    min_width=100)
                head = gr.Dropdown([0], value=0, label=tr("head"), info=tr("head_info"),
                                   min_width=100)
            button = gr.Button(tr("attention_button"), variant="primary", elem_id="attention-button")
    summary = gr.Markdown()
    with gr.Row(equal_height=False):
        heatmap = gr.Plot(label=tr("attention_heatmap"), elem_id="attention-heatmap", scale=3)
        with gr.Column(scale=2):
            grid = gr.Plot(label=tr("attention_grid"), elem_id="attention-grid")
            gr.Markdown(tr("attention_patterns"), elem_id="attention-patterns")

    button.click(in_turns(show_attention), [session, text, layer, head],
                 [session, text, layer, head, heatmap, grid, summary],
                 concurrency_limit=concurrency_limit, concurrency_id="compute",
                 show_progress_on=[summary], api_name="show_attention")
    gr.on([layer.input, head.input], redraw, [session, layer, head],
          REDRAWN.widgets(heatmap=heatmap, grid=grid),
          concurrency_limit=None, api_visibility="private")
    return AttentionTab(text=text)
