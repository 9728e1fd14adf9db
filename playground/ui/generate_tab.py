"""Tab 4, Generate: the model writes text after a prompt, streamed token by token.

Also shows the ten most likely next tokens, with their probabilities, at the last step, and
the memorisation check: the parts of the new text copied word for word from the training
text, highlighted, with their share. The check's index is built once per corpus: in the
session for the visitor's own text, once per process for Tiny Shakespeare (a frozen text
all sessions share, like ``session.default_corpus``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import gradio as gr

from playground.config import SAMPLE_RANGES, SampleConfig
from playground.generate import generate
from playground.i18n import msg, t
from playground.insight.memorization import K, CopyIndex
from playground.plots import highlight_html, next_token_figure
from playground.ui.lang import tr
from playground.ui.session import (Session, default_corpus, ensure, friendly_errors,
                                   require_model)

PUSHES_PER_S = 10
MEMO_DEFAULT_CHARS = 20
DEFAULTS = SampleConfig()  # the sliders start here
MEMO_MAX_CHARS = 200


@friendly_errors
def generate_text(session: Session | None, prompt: str, max_new_tokens: float, temperature: float,
                  top_k: float, top_p: float, seed: float):
    """Stream (session, text, next-token figure) as the model writes.

    The values are a ``SampleConfig``'s (it refuses what is out of range); ``top_k`` 0 and
    ``top_p`` 1 switch those filters off; ``seed`` 0 draws a new text each time.
    """
    session = ensure(session)
    trained = require_model(session, msg("generate with"))
    sampling = SampleConfig(int(max_new_tokens), float(temperature), int(top_k), float(top_p),
                            int(seed) or None)
    steps = generate(trained.model, trained.tokenizer, prompt or "", sampling)
    text, top, last_push = prompt or "", [], 0.0
    for step in steps:
        text += step.text
        top = step.top
        now = time.monotonic()
        if now - last_push >= 1 / PUSHES_PER_S:
            last_push = now
            yield session, text, gr.skip()
    session.last_prompt, session.last_text = prompt or "", text
    yield session, text, next_token_figure(top, title=t("The 10 likeliest next tokens",
                                                        session.lang),
                                           lang=session.lang)


@functools.lru_cache(maxsize=1)
def _default_copy_index() -> CopyIndex:
    return CopyIndex(default_corpus().text)


def copy_index(session: Session) -> CopyIndex:
    """The index of the text the model was trained on, built on first use for each corpus."""
    trained_on = session.trained.corpus if session.trained is not None else None
    corpus = trained_on or session.corpus_or_default()
    if corpus is default_corpus():
        return _default_copy_index()
    if session.copy_index_corpus is not corpus:
        session.copy_index, session.copy_index_corpus = CopyIndex(corpus.text), corpus
    return session.copy_index


@friendly_errors
def check_copies(session: Session | None, min_chars: float) -> tuple[Session, str]:
    """The last generation with the spans of at least ``min_chars`` characters that occur word
    for word in the training text highlighted (the prompt is not checked): (session, HTML)."""
    session = ensure(session)
    if not session.last_text:
        return session, ""
    min_chars = int(min_chars)
    if not K <= min_chars <= MEMO_MAX_CHARS:
        raise ValueError(msg("The shortest span must be from {low} to {high} characters.",
                             low=K, high=MEMO_MAX_CHARS))
    prompt, text = session.last_prompt, session.last_text
    new = text[len(prompt):] if text.startswith(prompt) else text
    offset = len(text) - len(new)
    report = copy_index(session).find_copies(new, min_chars)
    lang = session.lang
    if report.spans:
        line = t("{share} of the generated text ({copied} of {total} characters) occurs word for "
                 "word in the training text.", lang, share=f"{report.copied_fraction:.0%}",
                 copied=f"{report.copied_chars:,}", total=f"{report.total_chars:,}")
    else:
        line = t("No span of {n} or more characters was copied from the training text.",
                 lang, n=min_chars)
    spans = [(s.start + offset, s.end + offset) for s in report.spans]
    body = highlight_html(text, spans, title=t("Memorisation check", lang))
    return session, f'<p class="memo-report"><b>{line}</b></p>{body}'


@dataclass
class GenerateTab:
    """The Generate tab's widgets and event that other tabs use."""

    event: gr.events.Dependency  # a generation; the Attention tab's text follows it
    sampling: list[gr.components.Component]  # prompt and sampling settings, as the share link's
    #   SAMPLING_KEYS (make_link's parameters)


def build(session: gr.State, concurrency_limit: int) -> GenerateTab:
    gr.Markdown(tr("generate_intro"))
    with gr.Row():
        with gr.Column(scale=2):
            prompt = gr.Textbox("ROMEO:", label=tr("prompt"), lines=2,
                                info=tr("prompt_info"))
            with gr.Row():
                max_new_tokens = gr.Slider(*SAMPLE_RANGES["max_new_tokens"], value=DEFAULTS.max_new_tokens, step=1,
                                           label=tr("max_new_tokens"),
                                           info=tr("max_new_tokens_info"))
                temperature = gr.Slider(*SAMPLE_RANGES["temperature"], value=DEFAULTS.temperature,
                                        step=0.05, label=tr("temperature"),
                                        info=tr("temperature_info"))
            with gr.Row():
                top_k = gr.Slider(*SAMPLE_RANGES["top_k"], value=DEFAULTS.top_k, step=1, label=tr("top_k"),
                                  info=tr("top_k_info"))
                top_p = gr.Slider(*SAMPLE_RANGES["top_p"], value=DEFAULTS.top_p, step=0.05, label=tr("top_p"),
                                  info=tr("top_p_info"))
                seed = gr.Number(0, label=tr("sample_seed"), precision=0, minimum=0,
                                 info=tr("sample_seed_info"))
            button = gr.Button(tr("generate_button"), variant="primary")
        with gr.Column(scale=1):
            chart = gr.Plot(label=tr("next_token_chart"),
                            elem_id="next-token-chart")
    output = gr.Textbox(label=tr("generated_text"), lines=14,
                        max_lines=30, interactive=False, autoscroll=True, buttons=["copy"],
                        elem_id="generated-text")
    with gr.Accordion(tr("memo_title"), open=True):
        min_chars = gr.Slider(K, MEMO_MAX_CHARS, value=MEMO_DEFAULT_CHARS, step=1,
                              label=tr("memo_min_chars"), info=tr("memo_min_chars_info"),
                              elem_id="memo-min-chars")
        copies = gr.HTML(elem_id="memo-view")
    event = button.click(generate_text, [session, prompt, max_new_tokens, temperature, top_k, top_p, seed],
                 [session, output, chart], concurrency_limit=concurrency_limit,
                 concurrency_id="compute", show_progress_on=[output], api_name="generate")
    event.success(check_copies, [session, min_chars], [session, copies], concurrency_limit=2,
                  api_visibility="private")
    min_chars.release(check_copies, [session, min_chars], [session, copies], concurrency_limit=2,
                      api_name="check_copies")
    return GenerateTab(event=event,
                       sampling=[prompt, max_new_tokens, temperature, top_k, top_p, seed])
