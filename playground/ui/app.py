"""The whole page: eight tabs (a ninth, the class board, on a lesson link with a class code),
one session per visitor, one shared compute queue.

Labels are translated in the browser (English or Simplified Chinese, from the browser's
language or the one picked under Settings at the bottom of the page): ``launch`` passes
``lang.I18N`` to Gradio.

>>> demo = build_demo()
>>> [tab.label.key for tab in demo.blocks.values() if type(tab).__name__ == "Tab"]
['tab_corpus', 'tab_tokenizer', 'tab_train', 'tab_generate', 'tab_attention', 'tab_inside', 'tab_compare', 'tab_export', 'tab_board']

``launch(demo)`` then serves it at http://127.0.0.1:7860; ``main`` is the ``playground-app``
command of an installed package (``python app.py`` in a checkout and on a Space).
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Sequence

import gradio as gr
from starlette.middleware import Middleware

from playground.runtime import compute, fairshare, hosting
from playground.server import gradio_internals, guard, reattach
from playground.ui import (attention_tab, board_tab, compare_tab, corpus_tab, export_tab,
                           generate_tab, inside_tab, lesson_view, loss_panel, tokenizer_tab, tour,
                           train_tab)
from playground.ui.lang import (I18N, tab, PAGE_LANG_ID, SWITCH_CHOICES, SWITCH_ID, SWITCH_JS, SYNC_JS,
                                detect_language, follow_page_language, tr)
from playground.i18n import t
from playground.ui.session import LIVE_FILES, Session, new_session
from playground.settings import PageSettings, takes_settings

log = logging.getLogger("playground.ui")

TITLE = "Transformer Playground"
MAX_FILE_SIZE = "5mb"  # uploads (texts and bundles) bigger than this are refused by the server
QUEUE_MAX_SIZE = 64  # jobs waiting beyond this are turned away with a 'queue full' message
# The page's own styles that are no tab's: readable on a phone and in dark mode (Gradio
# follows the OS; Spaces passes ?__theme=dark), one monospace face for generated text.
PAGE_CSS = """
#page-intro h1 { overflow-wrap: normal; word-break: keep-all; hyphens: none; }
@media (max-width: 640px) {
  #page-intro h1 { font-size: 1.5rem; }
  #page-header { flex-wrap: wrap; }
  #page-intro { flex-basis: 100% !important; min-width: 100% !important; }
}
/* every tab on view: Gradio hides the tabs that do not fit on one line behind "..." after
   measuring them in a hidden copy; measured as narrow they all stay, and wrap instead */
.tab-container.visually-hidden button {
  width: 1px !important; min-width: 0 !important; padding: 0 !important; font-size: 1px !important;
}
.tab-wrapper { height: auto !important; }
.tab-wrapper > div[role=tablist].tab-container { flex-wrap: wrap !important; height: auto !important; }
/* generated text, samples and token views: a monospace face, each letter as it is */
.mono textarea, #generated-text textarea, .token-view, .copy-view {
  font-family: var(--font-mono) !important;
}
/* token spans and marks have light backgrounds: dark text on them in both modes */
.token-view span, .copy-view mark, .token-view mark { color: #111827; }
/* plots are transparent (plots.TEMPLATE); in dark mode their words and grid turn light,
   but not the words inside heatmap cells: Plotly gives them a colour that contrasts with
   their cell (light text on a pale cell could not be read) */
.dark .js-plotly-plot .main-svg text:not(.heatmaplayer text) {
  fill: var(--body-text-color) !important;
}
.dark .js-plotly-plot .gridlayer path, .dark .js-plotly-plot .zerolinelayer path {
  stroke: rgba(255, 255, 255, 0.12) !important;
}
.dark .js-plotly-plot .legend .bg { fill: transparent !important; }
/* our errors are toasts or a line of text: never Gradio's red "Error" badge over a widget */
.wrap:has(> span.error), .wrap:has(> .clear-status) { display: none !important; }
"""


def toast_title_css() -> str:
    """CSS that heads each toast with our title, in the page's language.

    Gradio 6 heads a toast with its kind in English ("Error", "Warning", "Info") and drops
    the title a handler gives it, so each kind gets one title of ours, the one our handlers
    use most (``session.friendly_errors``: "Cannot do that yet").

    >>> 'html[lang^="zh"] .toast-title.info::before { content: "提示"; }' in toast_title_css()
    True
    """
    rules = [".toast-title { font-size: 0 !important; }",
             ".toast-title::before { font-size: var(--text-md); }"]
    for kind, title in (("error", "Cannot do that yet"), ("warning", "Warning"), ("info", "Note")):
        rules.append(f'.toast-title.{kind}::before {{ content: "{t(title, "en")}"; }}')
        rules.append(f'html[lang^="zh"] .toast-title.{kind}::before '
                     f'{{ content: "{t(title, "zh-CN")}"; }}')
    return "\n".join(rules) + "\n"


PAGE_CSS += toast_title_css()
# the page's own styles, each tab's next to its widgets
CSS = PAGE_CSS + generate_tab.CSS + attention_tab.CSS + lesson_view.CSS + tour.CSS
# launch() settings no caller can loosen (tests/test_security.py checks each one)
LOCKED_DOWN = dict(max_file_size=MAX_FILE_SIZE, allowed_paths=[], share=False, run_history=False,
                   strict_cors=True, mcp_server=False, enable_monitoring=False,
                   # no exception text in any answer: our handlers' messages are gr.Errors, shown
                   # anyway; Gradio's own (an API caller's list for a number) become "Error"
                   show_error=False)


# System fonts, not the theme's web font (whose "z" reads as "ʒ" in character-level samples)
THEME = gr.themes.Soft(
    font=["ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "Helvetica Neue", "Arial",
          "Noto Sans", "Noto Sans CJK SC", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "DejaVu Sans Mono",
               "Noto Sans Mono CJK SC", "monospace"])


def end_session(demo: gr.Blocks, session_hash: str | None) -> None:
    """A tab closed: its run stops after the current step, and its session waits for the
    browser to come back (``reattach.close_tab``; freed at once when it holds nothing, or has
    no page token). Gradio alone would keep a closed tab's state for an hour, whatever its TTL."""
    reattach.close_tab(demo, session_hash)


@takes_settings
def on_page_load(session: Session | None, request: gr.Request, settings: PageSettings) -> tuple:
    """The page has loaded: the visitor's language, then what the server writes into the page
    at once, in it: (session, corpus summary, preview, settings summary, device line, loss plot).

    One handler, so the language is known before anything is written (the page's load events
    run in any order).
    """
    session = detect_language(session, request)
    summary, preview = corpus_tab.show_corpus(session)
    # the settings line without its estimate: show_presets adds it next (it may run a probe)
    return (session, summary, preview,
            train_tab.describe_settings(session, *settings.as_list(), timed=False),
            train_tab.show_device(session), loss_panel.show_figure(session))


@takes_settings
def on_language(session: Session | None, page_lang: str | None, settings: PageSettings) -> tuple:
    """The page now shows ``page_lang``: the server's messages follow it, the switch shows it,
    and what the server wrote into the page on load is written again in it (the outputs of
    ``on_page_load`` but the session: the session changes in place, and sending it back could
    undo the page load's ``reattach.come_back``, which may finish while this runs)."""
    session = follow_page_language(session, page_lang)
    summary, preview = corpus_tab.show_corpus(session)
    return (session.lang, summary, preview,
            train_tab.describe_settings(session, *settings.as_list(), timed=False),
            train_tab.show_device(session), loss_panel.show_figure(session))


def build_demo(session_ttl_s: float | None = None) -> gr.Blocks:
    """The Blocks app; every visitor gets a fresh ``Session``, freed ``session_ttl_s`` seconds
    after its last change (default ``Hosting.session_ttl_s``, ``PLAYGROUND_SESSION_TTL_S``) or
    when its tab closes (a page's session with work in it after a grace period, for a reload to
    find it: ``reattach``). ``PLAYGROUND_CONCURRENCY`` (``Hosting.concurrency``) jobs compute
    at once; any number of runs, up to ``Hosting.max_runs``, take turns. With
    ``PLAYGROUND_COMPUTE_THREAD=1`` the process computes on one thread from here on
    (``compute.enable``)."""
    host = hosting.current()
    # every handler's compute on one thread, whichever worker thread asks: then one OpenMP
    # pool (two made each step ~1.6x slower on quiet cores, ``compute``), but one that spins
    # (cores shared with another process made it 5x slower: docs/PERFORMANCE.md); enabled
    # before the page is built, which probes the CPU's bf16 speed
    if host.compute_thread:
        compute.enable()
    limit = host.concurrency
    fairshare.configure(limit)  # jobs computing at once; every run and job takes turns
    ttl = host.session_ttl_s if session_ttl_s is None else session_ttl_s
    with gr.Blocks(title=TITLE, delete_cache=(3600, 3600)) as demo:
        with gr.Row(elem_id="page-header"):
            gr.Markdown(tr("page_intro"), elem_id="page-intro")
            # the page's language; Settings (footer) and ?lang= in the address switch it too
            switch = gr.Radio(SWITCH_CHOICES, value=None, show_label=False, container=False,
                              elem_id=SWITCH_ID, scale=0, min_width=220)
            tour.button()  # reopens the guided tour, which opens by itself on a first visit
        link_message = gr.Markdown(visible=False, elem_id="link-message")  # a shared link's note
        lesson = lesson_view.build_view()  # a lesson link's title and text
        # gr.State calls Session() for each visitor; the callback frees the model and files
        session = gr.State(new_session, time_to_live=ttl, delete_callback=reattach.release_held)
        token = reattach.token_state()  # the browser's secret: a reload finds its session again
        gradio_internals.keep_in_cache(session, LIVE_FILES)  # the hourly sweep spares them
        with gr.Tabs(elem_classes=["lesson-hides-board"]) as tabs:  # (lesson_view shows it)
            with tab("corpus"):
                corpus = corpus_tab.build(session)
            with tab("tokenizer"):
                tokenizer = tokenizer_tab.build(session, limit)
            with tab("train"):
                train = train_tab.build(session, limit)
            with tab("generate") as generate_page:
                generate = generate_tab.build(session, limit, generate_page)
            with tab("attention"):
                attention = attention_tab.build(session, limit)
            with tab("inside") as inside_page:
                inside_tab.build(session, limit, train.settings, inside_page, train.diagram)
            with tab("compare") as compare_page:
                compare = compare_tab.build(session)
            with tab("export"):
                export = export_tab.build(session, limit)
            with tab("board") as board_page:
                board = board_tab.build()
        gr.Markdown(tr("page_footer" if limit == 1 else "page_footer_parallel"),
                    elem_id="page-footer")
        gr.Markdown(tr("language_note"), elem_id="language-note")
        tour.overlay()

        compare_tab.wire(compare, train, session, tabs, limit, compare_page)
        board_tab.wire(board, session, board_page)
        restore_link = export_tab.wire(export, session, demo, link_message, corpus.source,
                                       tokenizer.kind, tokenizer.vocab_size, train.settings,
                                       generate.sampling)
        open_lesson = lesson_view.wire(
            lesson, lesson_view.LessonPage(tabs, train.settings, train.sections, train.advanced,
                                           train.preset, train.upload),
            session, corpus.task, corpus.task_note, corpus.summary, corpus.preview)
        # the lesson builder's task follows the Corpus tab's (the link carries its settings)
        corpus.task.change(None, corpus.task, export.lesson_task, js="(name) => name")
        # on load, one chain in a fixed order: a returning browser's session (reattach), the
        # visitor's language and the text the server writes in it, a shared link's settings
        # and its lesson (what it shows) and class board, then what the settings draw: the
        # preset menu with this machine's estimates (a probe, once per process) and the model's
        # diagram. From then on whatever language the page shows (Settings included) is
        # reported by SYNC_JS (.change: a hidden textbox sends no .input events)
        loaded = open_lesson(restore_link(reattach.wire(demo, session, token, tabs, train).then(
            on_page_load, [session, *train.settings],
            [session, corpus.summary, corpus.preview, train.summary, train.device, train.plot],
            api_visibility="private")))
        loaded = loaded.then(board_tab.open_board, session,
                             board_tab.OPENED.widgets(timer=board.timer,
                                                      nickname=board.share.nickname,
                                                      share=board.share.share),
                             api_visibility="private", show_progress="hidden")
        loaded.then(train_tab.show_presets, [session, *train.settings],
                    [train.preset, train.card, train.summary],
                    api_visibility="private", show_progress="hidden").then(
            inside_tab.show_diagram, [session, *train.settings], train.diagram,
            api_visibility="private", show_progress="hidden")
        page_lang = gr.Textbox(visible="hidden", elem_id=PAGE_LANG_ID, container=False)
        page_lang.change(on_language, [session, page_lang, *train.settings],
                         [switch, corpus.summary, corpus.preview, train.summary,
                          train.device, train.plot], api_visibility="private", queue=False).then(
            train_tab.show_presets, [session, *train.settings],
            [train.preset, train.card, train.summary],
            api_visibility="private", show_progress="hidden")
        switch.input(None, switch, switch, js=SWITCH_JS)  # in the browser only; page_lang follows

        # a toy task is a corpus with its own preset: the settings follow it
        corpus.task.input(corpus_tab.use_task, [session, corpus.task],
                          [session, corpus.summary, corpus.preview, corpus.task_note,
                           *train.settings], api_visibility="private").then(
            train_tab.show_presets, [session, *train.settings],
            [train.preset, train.card, train.summary],
            api_visibility="private", show_progress="hidden")
        # a new tokenizer changes the vocabulary, so the parameter count too
        tokenizer.event.then(train_tab.describe_settings, [session, *train.settings],
                             train.summary, api_visibility="private")
        generate.event.then(attention_tab.fill_default, [session, attention.text],
                            attention.text, api_visibility="private")

        def on_tab_closed(request: gr.Request) -> None:
            end_session(demo, request.session_hash)

        demo.unload(on_tab_closed)  # fires when the page's heartbeat connection drops
    return demo


def launch(demo: gr.Blocks, **kwargs) -> tuple:
    """Queue and serve: 127.0.0.1:7860 locally, 0.0.0.0 on a Space (``Hosting.listen_address``,
    ``Hosting.server_port``; ``GRADIO_SERVER_NAME`` and ``GRADIO_SERVER_PORT`` say otherwise).

    Locked down whatever the caller passes: Gradio serves only its own temporary folder
    (no ``allowed_paths``, and ``GRADIO_ALLOWED_PATHS`` is ignored), uploads are capped at
    ``MAX_FILE_SIZE``, no run history is recorded, and nothing is shared through a tunnel.
    Refuses (``gradio_internals.UnsupportedGradio``) to start on a Gradio the server was not
    made for, saying which versions work.
    """
    gradio_internals.check_gradio(demo)  # before anything touches Gradio's private parts
    host = hosting.current()
    options = dict(
        server_name=host.listen_address, server_port=host.server_port,
        theme=THEME, footer_links=["gradio", "settings"], css=CSS,
        i18n=I18N,  # labels in the browser's language; Settings (footer) switches it
        js=SYNC_JS,  # ...and the page reports the language it shows (lang.follow_page_language)
    )
    options.update(kwargs)
    options.update(LOCKED_DOWN)
    if os.environ.pop("GRADIO_ALLOWED_PATHS", None):  # Gradio reads it when allowed_paths is empty
        log.warning("GRADIO_ALLOWED_PATHS is ignored: the app serves only its own temporary folder.")
    # bodies and values bounded before Gradio parses them (guard.RequestGuard)
    options["app_kwargs"] = {**(options.get("app_kwargs") or {}),
                             "middleware": [Middleware(guard.RequestGuard, blocks=demo)]}
    demo.queue(max_size=QUEUE_MAX_SIZE, api_open=False)  # /run/<name> reaches no queued handler
    guard.limit_jobs(demo)  # one compute job per session, JOBS_PER_CLIENT per client address
    capacity = reattach.capacity()  # sessions held at most, sized to the free memory
    # what the first visitor's Start would pay once per process (2 s here), paid now
    log.info("Warmed up in %.1f s (the default run prepared once).", train_tab.warm_up())
    blocking = not options.pop("prevent_thread_lock", False)
    served = demo.launch(**options, state_session_capacity=capacity, prevent_thread_lock=True)
    reattach.start(demo, capacity, serving=blocking)  # the sweep; SIGTERM saves the models
    if blocking:
        demo.block_thread()
    return served


def main(argv: Sequence[str] | None = None) -> int:
    """``playground-app [--host H] [--port P]``: serve the page until Ctrl-C, as ``app.py`` does."""
    parser = argparse.ArgumentParser(
        prog="playground-app", description=f"Serve the {TITLE} at http://127.0.0.1:7860.")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1; 0.0.0.0 on a "
                        "Space; or GRADIO_SERVER_NAME)")
    parser.add_argument("--port", type=int, help="port (default 7860, or GRADIO_SERVER_PORT)")
    args = parser.parse_args(argv)
    # as app.py: no fork warnings from tokenizers, no usage reports from Gradio
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    address = {"server_name": args.host, "server_port": args.port}
    launch(build_demo(), **{key: value for key, value in address.items() if value is not None})
    return 0
