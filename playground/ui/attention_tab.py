"""Tab 5, Attention: which earlier tokens each token looks at, per layer and head.

The model runs once per text (``attention_maps``); the weights are cached in the session,
so choosing another layer or head only redraws the figures.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from playground.insight.attention import attention_maps
from playground.i18n import msg, t
from playground.plots import attention_figure, attention_grid_figure
from playground.ui.lang import tr
from playground.ui.session import Session, ensure, friendly_errors, require_model

MAX_TOKENS = 64  # a readable map: 64 labels per axis still fit


def default_text(session: Session) -> str:
    """The last prompt and generation, or else the start of the corpus, cut to ``MAX_TOKENS``."""
    if session.trained is None:
        return ""
    tokenizer = session.trained.tokenizer
    text = session.last_text or session.corpus_or_default().text[:4 * MAX_TOKENS]
    try:
        return tokenizer.decode(tokenizer.encode(text)[:MAX_TOKENS])
    except ValueError:  # a corpus with characters the model's tokenizer never saw
        return ""


def _figures(session: Session, layer: int, head: int):
    maps = session.attention
    layer = min(max(int(layer), 0), maps.n_layer - 1)
    head = min(max(int(head), 0), maps.n_head - 1)
    lang = session.lang
    single = attention_figure(maps.weights[layer, head], maps.tokens, lang=lang,
                              title=t("Layer {layer}, head {head}", lang, layer=layer, head=head))
    grid = attention_grid_figure(maps.weights[layer], maps.tokens, lang=lang,
                                 title=t("All {n_head} heads of layer {layer}", lang, layer=layer,
                                         n_head=maps.n_head))
    return single, grid


@friendly_errors
def show_attention(session: Session | None, text: str, layer: float, head: float):
    """Run the model on ``text`` and draw a head; returns (session, text, layer, head, heatmap,
    grid, summary). An empty text uses ``default_text``."""
    session = ensure(session)
    trained = require_model(session, msg("look inside"))
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
    return (session, text,
            gr.Dropdown(choices=list(range(maps.n_layer)), value=layer),
            gr.Dropdown(choices=list(range(maps.n_head)), value=head),
            single, grid, summary)


def redraw(session: Session | None, layer: float, head: float):
    """Another layer or head from the cached weights (no model run): (heatmap, grid)."""
    session = ensure(session)
    if session.attention is None or layer is None or head is None:
        return gr.skip(), gr.skip()
    return _figures(session, layer, head)


def fill_default(session: Session | None, text: str) -> str:
    """After a generation: the Attention tab's text becomes the new default."""
    return default_text(ensure(session)) or text


@dataclass
class AttentionTab:
    """The Attention tab's widget other tabs use: its text follows each new generation."""

    text: gr.Textbox


def build(session: gr.State, concurrency_limit: int) -> AttentionTab:
    gr.Markdown(tr("attention_intro"))
    # the info names MAX_TOKENS (64): the page's translator takes no values
    text = gr.Textbox(label=tr("attention_text"), lines=3, info=tr("attention_text_info_fixed"))
    with gr.Row():
        layer = gr.Dropdown([0], value=0, label=tr("layer"), info=tr("layer_info"))
        head = gr.Dropdown([0], value=0, label=tr("head"), info=tr("head_info"))
        button = gr.Button(tr("attention_button"), variant="primary")
    summary = gr.Markdown()
    heatmap = gr.Plot(label=tr("attention_heatmap"),
                      elem_id="attention-heatmap")
    grid = gr.Plot(label=tr("attention_grid"), elem_id="attention-grid")

    button.click(show_attention, [session, text, layer, head],
                 [session, text, layer, head, heatmap, grid, summary],
                 concurrency_limit=concurrency_limit, concurrency_id="compute",
                 show_progress_on=[summary], api_name="show_attention")
    gr.on([layer.input, head.input], redraw, [session, layer, head], [heatmap, grid],
          concurrency_limit=None, api_visibility="private")
    return AttentionTab(text=text)
