"""Tab 4, Generate: the model writes text after a prompt, streamed token by token.

One view shows the text: the prompt in bold, then the model's words as they come; when the
model stops (done, or Stop pressed), the same text gets the memorisation check's highlights,
the parts copied word for word from the training text. Beside it, the ten most likely next
tokens at the last step. The check's index is built once per corpus: in the session for the
visitor's own text, once per process for Tiny Shakespeare (a frozen text all sessions share,
like ``session.default_corpus``).

The sliders hold the values the API and share links carry (``SampleConfig``'s: top_k 0 and
top_p 1 switch a filter off, seed 0 draws a new seed); the page shows plain switches beside
them instead ("Limit to the k likeliest tokens", "Same text each time"), each one a view of
its slider: turning it on sets a sensible value, turning it off sets the "off" value and
hides the slider, and a value that arrives from a link sets the switch.

Stop: a per-visitor ``Writing`` (its own ``gr.State``) carries the request to the stream,
which checks it before each token and ends with the text so far, checked like a whole one.
"""

from __future__ import annotations

import contextlib
import functools
import time
from dataclasses import dataclass

import gradio as gr

from playground import ready
from playground.config import SAMPLE_RANGES, ConfigError, SampleConfig
from playground.corpus import SHAKESPEARE_PROMPTS, example_prompts
from playground.generate import fresh_seed, generate, prompt_ids
from playground.i18n import msg, t
from playground.insight.memorization import K, CopyIndex
from playground.plots import highlight_html, next_token_figure
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import (Session, default_corpus, ensure, friendly_errors,
                                   require_model)
from playground.runtime.fairshare import in_turns

PUSHES_PER_S = 10
MEMO_DEFAULT_CHARS = 20
MEMO_MAX_CHARS = 200
DEFAULTS = SampleConfig()  # the sliders start here
TOP_K_ON, TOP_P_ON = 40, 0.9  # where a filter starts when its switch is turned on

# the handlers' outputs, by the names of build()'s widgets
GENERATED = Outputs("session", "text", "chart")  # generate_text: the API's /generate
WRITTEN = Outputs("session", "view", "chart", "note")  # write: the page's Generate
COPIES = Outputs("session", "view", "note")  # show_copies
OFFERED = Outputs("examples", "prompt")  # offer_prompts

# the one view of the text: a box in the page's colours (light or dark), in a monospace face
# (the theme's sans draws "z" like "ʒ", which hurts reading a character model's output)
CSS = """
#generated-text .copy-view { border: 1px solid var(--border-color-primary);
  border-radius: var(--radius-lg); padding: 12px 14px; min-height: 10em;
  background: var(--input-background-fill); color: var(--body-text-color); font-size: 15px; }
#generated-text .copy-view .prompt { color: var(--body-text-color); }
#generate-prompt textarea { font-family: var(--font-mono), monospace; font-size: 15px; }
#copy-text-button.copied::after { content: " ✓"; }
"""
CLICK_GENERATE = "() => { document.querySelector('#generate-button').click(); }"
# Copy: the text as written (prompt included, highlights left out) to the clipboard, in the
# browser alone; a tick on the button says it worked. The clipboard API needs a secure page
# (https, or localhost): elsewhere a hidden text area and the older copy command do it.
COPY_TEXT = """() => {
  const view = document.querySelector('#generated-text .copy-view');
  const text = view ? view.innerText : '';
  const button = document.querySelector('#copy-text-button');
  const done = () => { if (button) { button.classList.add('copied');
    setTimeout(() => button.classList.remove('copied'), 1500); } };
  if (!text) { return []; }
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => {});
  } else {
    const area = document.createElement('textarea');
    area.value = text; area.style.position = 'fixed'; area.style.opacity = '0';
    document.body.appendChild(area); area.select();
    try { if (document.execCommand('copy')) { done(); } } finally { area.remove(); }
  }
  return [];
}"""


@dataclass
class Writing:
    """One visitor's generation: ``begin_writing`` marks it active, Stop sets
    ``stop_requested``, and the stream reads it before each token. ``last_seed`` is the seed
    the last text was drawn with, which "Same text each time" keeps when it is turned on.
    Plain values: gr.State deep-copies a fresh one for each visitor."""

    active: bool = False
    stop_requested: bool = False
    stopped: bool = False  # the last generation ended on Stop, before its last token
    last_seed: int = 0


def _whole(value):
    """A number box's float as an int when it is whole; anything else as it came, for
    ``SampleConfig`` to refuse with the setting's name (NaN, 1.5, a word)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _sampling(max_new_tokens: float, temperature: float, top_k: float, top_p: float,
              seed: float | None) -> SampleConfig:
    """The sliders' values as a ``SampleConfig`` (which refuses what is out of range). An
    emptied seed box means what 0 does: a new text each time.

    >>> _sampling(50, 0.8, 0, 1.0, None).seed is None
    True
    >>> _sampling(None, 0.8, 0, 1.0, 7)
    Traceback (most recent call last):
    ...
    playground.config.ConfigError: max_new_tokens is empty: type a value.
    """
    for name, value in (("max_new_tokens", max_new_tokens), ("temperature", temperature),
                        ("top_k", top_k), ("top_p", top_p)):
        if value is None or value == "":
            raise ConfigError(msg("{name} is empty: type a value.", name=name))
    seed = 0 if seed is None or seed == "" else _whole(seed)
    return SampleConfig(_whole(max_new_tokens), temperature, _whole(top_k), top_p, seed or None)


@friendly_errors
def generate_text(session: Session | None, prompt: str, max_new_tokens: float, temperature: float,
                  top_k: float, top_p: float, seed: float, writing: Writing | None = None):
    """Stream ``GENERATED`` (session, text, next-token figure) as the model writes (the API's
    /generate); the figure comes with the last update.

    The values are a ``SampleConfig``'s (it refuses what is out of range); ``top_k`` 0 and
    ``top_p`` 1 switch those filters off; ``seed`` 0 draws a new seed each time. With a
    ``writing`` whose Stop was pressed, the stream ends before the next token, keeping the
    text so far (the prompt alone, if Stop came before the first token).
    """
    session = ensure(session)
    trained = require_model(session, msg("generate with"), ready_made=True)
    sampling = _sampling(max_new_tokens, temperature, top_k, top_p, seed)
    prompt = prompt or ""
    text, top, last_push = prompt, [], 0.0
    if writing is not None:
        writing.stopped = False
    # closing the stream at once (not when it is collected) restores the model's mode
    with contextlib.closing(generate(trained.model, trained.tokenizer, prompt, sampling)) as steps:
        for step in steps:
            if writing is not None and writing.stop_requested:
                writing.stopped = True
                break
            text += step.text
            top = step.top
            now = time.monotonic()
            if now - last_push >= 1 / PUSHES_PER_S:
                last_push = now
                yield GENERATED.only(session=session, text=text)
    session.last_prompt, session.last_text = prompt, text
    yield GENERATED(session=session, text=text,
                    chart=next_token_figure(top, title=t("The 10 likeliest next tokens",
                                                         session.lang), lang=session.lang))


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


def _copies(session: Session, min_chars: float) -> tuple[str, str]:
    """(report line, view) of the last generation with its copied spans marked."""
    min_chars = int(min_chars)
    if not K <= min_chars <= MEMO_MAX_CHARS:
        raise ValueError(msg("The shortest span must be from {low} to {high} characters.",
                             low=K, high=MEMO_MAX_CHARS))
    prompt, text = session.last_prompt, session.last_text
    offset = len(prompt) if text.startswith(prompt) else 0
    report = copy_index(session).find_copies(text[offset:], min_chars)
    lang = session.lang
    if report.spans:
        line = t("{share} of the generated text ({copied} of {total} characters) occurs word for "
                 "word in the training text.", lang, share=f"{report.copied_fraction:.0%}",
                 copied=f"{report.copied_chars:,}", total=f"{report.total_chars:,}")
    else:
        line = t("No span of {n} or more characters was copied from the training text.",
                 lang, n=min_chars)
    spans = [(s.start + offset, s.end + offset) for s in report.spans]
    return line, highlight_html(text, spans, title=t("Memorisation check", lang),
                                prompt_chars=offset)


@friendly_errors
def check_copies(session: Session | None, min_chars: float) -> tuple[Session, str]:
    """The last generation with the spans of at least ``min_chars`` characters that occur word
    for word in the training text highlighted (the prompt is not checked): (session, HTML),
    the report line on top."""
    session = ensure(session)
    if not session.last_text:
        return session, ""
    line, view = _copies(session, min_chars)
    return session, f'<p class="memo-report"><b>{line}</b></p>{view}'


def begin_writing(writing: Writing) -> Writing:
    """Generate or Enter was pressed: a Stop from now on stops this generation, even one still
    waiting in the queue."""
    writing.active, writing.stop_requested, writing.stopped = True, False, False
    return writing


@friendly_errors
def write(session: Session | None, writing: Writing, prompt: str, max_new_tokens: float,
          temperature: float, top_k: float, top_p: float, seed: float, min_chars: float):
    """The page's Generate: stream ``WRITTEN`` (session, view, chart, note) into the one view
    of the text; the chart comes with the last update.

    ``generate_text`` with a seed drawn here when ``seed`` is 0, so the note can say which
    seed wrote the text; the last update marks the copied spans on the same text and says how
    it ended (stopped, and with which seed).
    """
    session = ensure(session)
    trained = require_model(session, msg("generate with"), ready_made=True)
    lang, prompt = session.lang, prompt or ""
    # refused before anything is drawn: settings out of range, a prompt the tokenizer cannot read
    _sampling(max_new_tokens, temperature, top_k, top_p, seed)
    prompt_ids(trained.tokenizer, prompt)
    drawn = int(seed) if seed else fresh_seed()
    try:
        yield WRITTEN.only(session=session, note="",
                           view=highlight_html(prompt, [], prompt_chars=len(prompt), writing=True))
        for update in generate_text(session, prompt, max_new_tokens, temperature, top_k, top_p,
                                    drawn, writing):
            _, text, chart = update  # the last update carries the next-token chart
            yield WRITTEN.only(session=session, note="", view=highlight_html(
                text, [], prompt_chars=len(prompt), writing=True))
    finally:
        writing.active = False
    writing.last_seed = drawn
    line, view = _copies(session, min_chars)
    notes = [f"**{line}**"]
    if writing.stopped:
        written = len(session.last_text) - len(prompt)
        notes.append(t("Stopped: {n} characters written.", lang, n=f"{written:,}"))
    if seed:
        notes.append(t("Written with the fixed seed {seed}.", lang, seed=drawn))
    else:
        notes.append(t("Written with seed {seed}, drawn at random: tick “Same text each time” "
                       "to keep it and write this text again.", lang, seed=drawn))
    if trained.ready_made:  # say whose text this is, and how to get one's own
        notes.append(t("Written by the ready-made model (the {preset} preset, trained before you "
                       "came). Train your own on tab 3; it replaces this one.", lang,
                       preset=trained.ready_made))
    yield WRITTEN(session=session, view=view, chart=chart, note="  \n".join(notes))


def stop_writing(writing: Writing, session: Session | None) -> Writing:
    """Stop the generation going (after its current token; the text so far is kept)."""
    lang = ensure(session).lang
    if not writing.active:
        gr.Info(t("Nothing is being written right now.", lang), title=t("Note", lang))
    writing.stop_requested = True
    return writing


def show_copies(session: Session | None, min_chars: float):
    """The memorisation slider moved: the same text with the new spans: ``COPIES`` (session,
    view, note)."""
    session = ensure(session)
    if not session.last_text:
        return COPIES.only(session=session)
    line, view = _copies(session, min_chars)
    return COPIES(session=session, view=view, note=f"**{line}**")


# --- the switches beside the sliders: each one a view of its slider's value ------------------

def top_k_switched(on: bool, top_k: float):
    """"Limit to the k likeliest" turned on or off: the slider's value and visibility."""
    return gr.update(value=(int(top_k) or TOP_K_ON) if on else 0, visible=on)


def top_k_shown(top_k: float):
    """The top-k slider changed (a link, a drag to 0): (switch, slider visibility)."""
    on = bool(top_k)
    return on, gr.update(visible=on)


def top_p_switched(on: bool, top_p: float):
    return gr.update(value=(top_p if top_p < 1 else TOP_P_ON) if on else 1.0, visible=on)


def top_p_shown(top_p: float):
    on = top_p is not None and top_p < 1
    return on, gr.update(visible=on)


def seed_switched(writing: Writing, on: bool, seed: float):
    """"Same text each time" turned on keeps the last text's seed (or the one typed)."""
    return gr.update(value=(int(seed or 0) or writing.last_seed or 1) if on else 0, visible=on)


def seed_shown(seed: float):
    on = bool(seed)
    return on, gr.update(visible=on)


def _readable(tokenizer, text: str) -> bool:
    try:
        return bool(tokenizer.encode(text))
    except ValueError:  # a character the tokenizer never saw
        return False


def offer_prompts(session: Session | None, prompt: str):
    """On opening the tab: example prompts from the text the model learned (the corpus tab's
    text before any model; after an upload, which carries no text, the Shakespeare ones the
    model can read), and the prompt replaced when the model could not read it or it is a
    Shakespeare example offered for another text: ``OFFERED`` (examples, prompt)."""
    session = ensure(session)
    trained = ready.use_ready(session)
    corpus = trained.corpus if trained is not None else session.corpus_or_default()
    prompts = example_prompts(corpus) if corpus is not None else list(SHAKESPEARE_PROMPTS)
    if trained is not None:
        prompts = [p for p in prompts if _readable(trained.tokenizer, p)]
    stale = prompt in SHAKESPEARE_PROMPTS and prompt not in prompts
    unreadable = trained is not None and not _readable(trained.tokenizer, prompt or "")
    replaced = dict(prompt=prompts[0]) if prompts and (stale or unreadable) else {}
    return OFFERED.only(examples=gr.update(samples=[[p] for p in prompts], visible=bool(prompts)),
                        **replaced)


@dataclass
class GenerateTab:
    """The Generate tab's widgets and event that other tabs use."""

    event: gr.events.Dependency  # a generation; the Attention tab's text follows it
    sampling: list[gr.components.Component]  # prompt and sampling settings, as the share link's
    #   SAMPLING_KEYS (make_link's parameters)


def build(session: gr.State, concurrency_limit: int, page: gr.Tab) -> GenerateTab:
    gr.Markdown(tr("generate_intro"))
    writing = gr.State(lambda: Writing())  # a function: Gradio would serialise the class
    with gr.Row(elem_id="generate-tab"):
        with gr.Column(scale=3):
            # lines=1: Enter writes (Gradio submits a one-line box on Enter; Shift+Enter
            # still starts a new line, and the box grows to max_lines)
            prompt = gr.Textbox(SHAKESPEARE_PROMPTS[0], label=tr("prompt"), lines=1, max_lines=6,
                                info=tr("prompt_info"), elem_id="generate-prompt")
            # Tiny Shakespeare's until the tab opens on another text (offer_prompts)
            examples = gr.Examples([[p] for p in SHAKESPEARE_PROMPTS], [prompt],
                                   label=tr("example_prompts"), api_visibility="private")
            with gr.Row():
                button = gr.Button(tr("generate_button"), variant="primary",
                                   elem_id="generate-button")
                stop = gr.Button(tr("stop_button"), variant="stop")
                copy = gr.Button(tr("copy_text"), variant="secondary", elem_id="copy-text-button")
            view = gr.HTML(elem_id="generated-text", max_height=560, autoscroll=True)
            note = gr.Markdown(elem_id="generate-note")
        with gr.Column(scale=2):
            max_new_tokens = gr.Slider(*SAMPLE_RANGES["max_new_tokens"],
                                       value=DEFAULTS.max_new_tokens, step=1,
                                       label=tr("max_new_tokens"), info=tr("max_new_tokens_info"),
                                       elem_id="max-new-tokens")
            temperature = gr.Slider(*SAMPLE_RANGES["temperature"], value=DEFAULTS.temperature,
                                    step=0.05, label=tr("temperature"), info=tr("temperature_info"))
            limit_k = gr.Checkbox(DEFAULTS.top_k > 0, label=tr("limit_top_k"),
                                  info=tr("limit_top_k_info"))
            top_k = gr.Slider(*SAMPLE_RANGES["top_k"], value=DEFAULTS.top_k, step=1,
                              label=tr("top_k"), info=tr("top_k_info"),
                              visible=DEFAULTS.top_k > 0, elem_id="top-k")
            limit_p = gr.Checkbox(DEFAULTS.top_p < 1, label=tr("limit_top_p"),
                                  info=tr("limit_top_p_info"))
            top_p = gr.Slider(*SAMPLE_RANGES["top_p"], value=DEFAULTS.top_p, step=0.05,
                              label=tr("top_p"), info=tr("top_p_info"), visible=DEFAULTS.top_p < 1)
            fixed_seed = gr.Checkbox(False, label=tr("fixed_seed"), info=tr("fixed_seed_info"))
            seed = gr.Number(0, label=tr("sample_seed"), precision=0, info=tr("sample_seed_info"),
                             visible=False, elem_id="generate-seed")
            chart = gr.Plot(label=tr("next_token_chart"), elem_id="next-token-chart")
            with gr.Accordion(tr("memo_title"), open=False):
                min_chars = gr.Slider(K, MEMO_MAX_CHARS, value=MEMO_DEFAULT_CHARS, step=1,
                                      label=tr("memo_min_chars"), info=tr("memo_min_chars_info"),
                                      elem_id="memo-min-chars")

    sampling = [prompt, max_new_tokens, temperature, top_k, top_p, seed]
    quick = dict(queue=False, api_visibility="private", show_progress="hidden")
    started = gr.on([button.click, prompt.submit], begin_writing, writing, writing, **quick)
    # an example fills the prompt, then writes as Generate does (the same chain, so the
    # Attention tab follows it too)
    examples.load_input_event.then(None, js=CLICK_GENERATE, api_visibility="private")
    event = started.then(in_turns(write), [session, writing, *sampling, min_chars],
                         WRITTEN.widgets(session=session, view=view, chart=chart, note=note),
                         concurrency_limit=concurrency_limit,
                         concurrency_id="compute", show_progress_on=[note],
                         api_visibility="private")
    stop.click(stop_writing, [writing, session], writing, concurrency_limit=None,
               api_name="stop_generating")
    copy.click(None, js=COPY_TEXT, api_visibility="private")
    min_chars.release(show_copies, [session, min_chars],
                      COPIES.widgets(session=session, view=view, note=note),
                      concurrency_limit=2, api_visibility="private")
    # The API keeps its endpoints and their shapes (/generate: the prompt and five numbers
    # in, the text and the chart out; /check_copies: the report and the marked text), on a
    # trigger the page never shows or clicks: the page's Generate draws the text as HTML.
    api_only, api_text = gr.Button(visible=False), gr.Textbox(visible=False)
    api_only.click(in_turns(generate_text), [session, *sampling],
                   GENERATED.widgets(session=session, text=api_text, chart=chart),
                   concurrency_limit=concurrency_limit, concurrency_id="compute",
                   api_name="generate")
    api_only.click(check_copies, [session, min_chars], [session, api_text], concurrency_limit=2,
                   api_name="check_copies")

    page.select(offer_prompts, [session, prompt],
                OFFERED.widgets(examples=examples.dataset, prompt=prompt), **quick)
    limit_k.input(top_k_switched, [limit_k, top_k], top_k, **quick)
    top_k.change(top_k_shown, top_k, [limit_k, top_k], **quick)
    limit_p.input(top_p_switched, [limit_p, top_p], top_p, **quick)
    top_p.change(top_p_shown, top_p, [limit_p, top_p], **quick)
    fixed_seed.input(seed_switched, [writing, fixed_seed, seed], seed, **quick)
    seed.change(seed_shown, seed, [fixed_seed, seed], **quick)
    return GenerateTab(event=event, sampling=sampling)
