"""Tab 7, Export & share: the standalone script, a push to the Hugging Face Hub, and a link to
the page's settings.

* The standalone script (``export.write_standalone_script``) is written into the session's
  own folder and offered for download with the model bundle it loads.
* The Hub push (``export.push_to_hub``) uploads the bundle, a model card and the script;
  the token is used for that call only, never stored. Every failure (no model, a bad
  repository name or token, no network) is a message in the page.
* The link (``share.share_url``) carries the settings of every tab; opening the page with it
  (``restore_from_link``, on page load) fills them in again.
* A lesson link (``export.lesson``) is that link with what a class sees: a teacher ticks the
  tabs and settings shown, picks a toy task and writes a title and a short text
  (``make_lesson_link``); the page opens it with ``lesson_view.open_lesson``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import gradio as gr

from playground.config import SampleConfig
from playground.export.publish import ExportError, push_to_hub, space_page, write_standalone_script
from playground.i18n import error_text, msg, t
from playground.i18n.labels import EN as EN_LABELS, ZH_CN as ZH_CN_LABELS
from playground.export.lesson import KEYS as LESSON_KEYS, TABS, Lesson, lesson_url
from playground.insight.board import new_code
from playground.export.links import KEYS, SAMPLING_KEYS, ShareError, decode_settings, share_url
from playground.ui import train_tab
from playground.ui.corpus_tab import SOURCES
from playground.ui.lang import detect_language, label, tr
from playground.ui.outputs import Outputs
from playground.ui.session import Session, ensure, friendly_errors, require_model
from playground.settings import PageSettings, takes_settings
from playground.runtime import hosting
from playground.runtime.fairshare import in_turns
from playground.tasks import TASKS

# the Corpus tab's choices and the link's corpus values (Corpus.source)
SOURCE_OF_CHOICE = {"Tiny Shakespeare": "bundled", "Upload files": "upload", "Paste text": "paste"}
CHOICE_OF_SOURCE = {"bundled": "Tiny Shakespeare", "hub": "Tiny Shakespeare",
                    "upload": "Upload files", "paste": "Paste text"}
assert set(SOURCE_OF_CHOICE) == set(SOURCES)


@friendly_errors
def make_script(session: Session | None) -> list[str]:
    """The standalone script (and the bundle it loads), written into the session's folder."""
    session = ensure(session)
    trained = require_model(session, msg("export"))
    files = [str(write_standalone_script(session.workdir()))]
    if trained.bundle_path:
        files.append(trained.bundle_path)
    return files


def signs_in() -> bool:
    """Whether visitors sign in to push: on a Space whose login Gradio mounts
    (``Hosting.oauth_available``) with a valid ``SPACE_ID``, where Gradio's OAuth is the real
    one. Elsewhere the page has a token box."""
    return hosting.current().oauth_available and space_page() is not None


@friendly_errors
def push(session: Session | None, repo_id: str, token: str, private: bool,
         oauth_token: gr.OAuthToken | None = None) -> str:
    """Push the bundle, its model card and the script to ``repo_id``; markdown of the result.

    On a Space the token is the signed-in visitor's (Gradio passes it as ``oauth_token``
    after "Sign in with Hugging Face"), never one typed into someone else's Space; the
    token box is there for local runs only."""
    session = ensure(session)
    if signs_in():
        if oauth_token is None:
            raise ExportError(msg("Sign in with Hugging Face first (the button above): the model "
                                  "then goes to your own account."))
        token = oauth_token.token
    trained = require_model(session, msg("push"))
    if not trained.bundle_path:
        raise ExportError(msg("The model has no saved bundle yet: let a training run finish (or "
                              "stop it) first, then push."))
    corpus = trained.corpus.name if trained.corpus is not None else ""
    url = push_to_hub(trained.bundle_path, repo_id, token, private=bool(private), corpus_name=corpus)
    return t("Uploaded to {url}.", session.lang, url=url)


def page_settings(source: str, kind: str, vocab_size: float, settings: PageSettings,
                  sampling: Mapping[str, Any]) -> dict[str, Any]:
    """The page's widget values as the settings a link carries (``share.KEYS``).

    ``sampling`` holds the Generate tab's values by their names in ``share.SAMPLING_KEYS``.
    """
    if source not in SOURCE_OF_CHOICE:
        raise ShareError(msg("Unknown corpus choice {choice}.", choice=repr(source)))
    shared = {"corpus": SOURCE_OF_CHOICE[source], "tokenizer": kind, "vocab_size": vocab_size,
              **settings.values, **sampling}
    return {k: v for k, v in shared.items() if k in KEYS}


# what Markdown (and GitHub's autolinks) would read as a link, an image, HTML or emphasis
_MARKDOWN_SIGNS = set("\\`*[]()!<>~|:.&#")


def plain_markdown(text: str) -> str:
    """``text`` as Markdown that shows exactly it: no link, image, HTML or autolink survives.

    >>> print(plain_markdown("got '![x](https://ev.il/p.png)' <b>"))
    got '\\!\\[x\\]\\(https\\://ev\\.il/p\\.png\\)' \\<b\\>
    """
    return "".join("\\" + c if c in _MARKDOWN_SIGNS else c for c in text)


# restore_from_link's outputs: the message, then every setting a link carries, by its key
RESTORED = Outputs("message", "source", "kind", "vocab_size", *train_tab.SETTINGS, *SAMPLING_KEYS)
# the page's own address parameters, not settings: the language (lang.SYNC_JS) and Gradio's theme
PAGE_PARAMETERS = ("lang", "__theme", "tour")  # (tour: ui.tour reads it in the browser)


def page_url(request: gr.Request | None) -> str:
    """The address of the page the visitor has open (the Referer of its call), or this server's;
    on a Space, the Space's page (``space_page``)."""
    space = space_page()  # the app is a frame inside the Space's page: link to the page
    if space:
        return space
    headers = getattr(request, "headers", None) or {}
    referer = headers.get("referer")
    if referer:
        return referer
    url = str(getattr(request, "url", "") or "http://127.0.0.1:7860/")
    return url.split("/gradio_api", 1)[0] + "/"


SAMPLING = SampleConfig()  # the defaults of make_link's sampling parameters, as the sliders'


@friendly_errors
@takes_settings
def make_link(request: gr.Request | None, source: str, kind: str, vocab_size: float,
              settings: PageSettings, prompt: str = "",
              max_new_tokens: float = SAMPLING.max_new_tokens,
              temperature: float = SAMPLING.temperature, top_k: float = SAMPLING.top_k,
              top_p: float = SAMPLING.top_p, sample_seed: float = 0) -> str:
    """A link to this page with every setting: the corpus and tokenizer choices, the training
    tab's settings (by name, ``takes_settings``) and the Generate tab's sampling settings."""
    sampling = dict(prompt=prompt, max_new_tokens=max_new_tokens, temperature=temperature,
                    top_k=top_k, top_p=top_p, sample_seed=sample_seed)
    shared = page_settings(source, kind, vocab_size, settings, sampling)
    return share_url(page_url(request), shared)


def header_markdown(lesson: Lesson) -> str:
    """A lesson's title and text as Markdown that shows exactly them (``plain_markdown``).

    >>> print(header_markdown(Lesson(title="Heads", text="[Log in](//ev.il)")))
    ### Heads
    <BLANKLINE>
    \\[Log in\\]\\(//ev\\.il\\)
    """
    lines = [f"### {plain_markdown(lesson.title)}"] if lesson.title else []
    # each line of the text on its own line (two trailing spaces: a line break)
    if lesson.text:
        lines.append("  \n".join(plain_markdown(line) for line in lesson.text.split("\n")))
    return "\n\n".join(lines)


def lesson_summary(lesson: Lesson, lang: str) -> str:
    """Markdown: what a lesson link shows, then the lesson's box as the page will show it."""
    names = EN_LABELS if lang == "en" else ZH_CN_LABELS
    lines = [t("This lesson shows: {tabs}.", lang,
               tabs=", ".join(names[f"tab_{name}"] for name in lesson.shown_tabs))]
    lines.append(t("Settings shown: {n} of {total}; the others are hidden and keep this page's "
                   "values (the preset menu and the bundle upload too, since either changes every "
                   "setting).",
                   lang, n=len(lesson.settings), total=len(train_tab.SETTINGS))
                 if lesson.hides_settings else t("Settings shown: all of them.", lang))
    if lesson.task:
        lines.append(t("Task opened: {task}.", lang, task=lesson.task))
    if lesson.tour:
        lines.append(t("The guided tour opens with the page.", lang))
    if lesson.class_code:
        lines.append(t("Class board: on. Learners who tick 'Share my runs with the class' on its "
                       "Class board tab appear there, best first; open the link "
                       "yourself to watch it (project it for the class). Every link you make "
                       "here keeps this board.", lang))
    header = header_markdown(lesson)
    shown = "\n\n" + t("The page opens like this:", lang) + "\n\n" + "\n".join(
        "> " + line for line in header.split("\n")) if header else ""
    return "  \n".join(lines) + shown


@friendly_errors
@takes_settings
def make_lesson_link(session: Session | None, request: gr.Request | None, source: str, kind: str,
                     vocab_size: float, settings: PageSettings, prompt: str = "",
                     max_new_tokens: float = SAMPLING.max_new_tokens,
                     temperature: float = SAMPLING.temperature, top_k: float = SAMPLING.top_k,
                     top_p: float = SAMPLING.top_p, sample_seed: float = 0, title: str = "",
                     text: str = "", tabs: list[str] | None = None,
                     shape: list[str] | None = None, variants: list[str] | None = None,
                     optimisation: list[str] | None = None, evaluation: list[str] | None = None,
                     task: str | None = None, tour: bool = False, board: bool = False,
                     class_code: str = "") -> tuple[str, str, str]:
    """A lesson link (``export.lesson``): the page's settings, as ``make_link``, and the lesson
    the Export tab's builder describes: its title and text, the tabs ticked, the settings ticked
    in the four groups of the Train tab (``train_tab.SECTIONS``; None: all of a group), a toy
    task, whether the guided tour opens with it, and whether it has a class board (under
    ``class_code``, made here the first time: the teacher's later links keep the same board).
    Returns (link, Markdown summary of what it shows, the class code)."""
    session = ensure(session)
    groups = (shape, variants, optimisation, evaluation)
    shown = [name for group, names in zip(groups, train_tab.SECTIONS.values())
             for name in (names if group is None else group)]
    if board:
        class_code = class_code or new_code()
    lesson = Lesson(title=title or "", text=text or "",
                    tabs=TABS if tabs is None else tuple(tabs), settings=tuple(shown),
                    task=task or "", tour=bool(tour), class_code=class_code if board else "")
    sampling = dict(prompt=prompt, max_new_tokens=max_new_tokens, temperature=temperature,
                    top_k=top_k, top_p=top_p, sample_seed=sample_seed)
    shared = page_settings(source, kind, vocab_size, settings, sampling)
    return (lesson_url(page_url(request), shared, lesson), lesson_summary(lesson, session.lang),
            class_code)


def restore_from_link(session: Session | None, request: gr.Request | None = None):
    """On page load: fill every setting from the link's query string, if it has one.

    Returns ``RESTORED`` (message, corpus choice, tokenizer kind, vocab size, every training
    setting, every sampling setting); all unchanged for a page opened without a link. A link
    that cannot be used leaves the page's defaults and says why.
    """
    session = detect_language(session, request)  # (an API call comes without a page load)
    query: Mapping[str, str] = {k: v for k, v in dict(getattr(request, "query_params", None) or {}).items()
                                if k not in PAGE_PARAMETERS and k not in LESSON_KEYS}  # lesson_view's
    if not any(key == "v" or key in KEYS for key in query):
        return RESTORED.only()
    try:
        shared = decode_settings(query)
    except ShareError as error:  # its reason quotes the link's own text: shown as plain text
        message = t("The settings in this link cannot be used: {reason}",
                    session.lang, reason=error_text(error, session.lang))
        return RESTORED.only(message=gr.Markdown(f"**{plain_markdown(message)}**", visible=True))
    s = shared.settings
    lines = [t("Settings restored from the link.", session.lang)]
    if shared.needs_own_text:
        lines.append(t("Your own text is not part of the link: whoever opens it must upload or "
                       "paste the same text.", session.lang))
    if shared.ignored:  # counted, never echoed: a key could be "[Log in](//elsewhere)"
        lines.append(t("The link also held {n} settings this version does not know; they were "
                       "ignored.", session.lang, n=len(shared.ignored)))
    source = {} if shared.needs_own_text else dict(source=CHOICE_OF_SOURCE[s["corpus"]])
    return RESTORED.only(message=gr.Markdown("**" + " ".join(lines) + "**", visible=True),
                         **source, kind=s["tokenizer"], vocab_size=s["vocab_size"],
                         **{k: s[k] for k in (*train_tab.SETTINGS, *SAMPLING_KEYS)})


@dataclass
class ExportTab:
    """The share link's widgets, which ``wire`` connects to every tab."""

    link_button: gr.Button
    link: gr.Textbox
    lesson_button: gr.Button  # the lesson link's builder: these and the page's settings
    lesson_inputs: list  # title, text, tabs, the four groups of settings, task, tour, board, code
    lesson_task: gr.Dropdown  # (the Corpus tab's task fills it)
    lesson_link: gr.Textbox
    lesson_preview: gr.Markdown
    class_code: gr.State  # the builder's class code, made once: a new link keeps its board


def build(session: gr.State, concurrency_limit: int) -> ExportTab:
    """The tab's widgets; writing the script and pushing to the Hub are compute jobs
    (``concurrency_limit`` at once, shared with training and generation)."""
    gr.Markdown(tr("export_intro"))
    gr.Markdown(tr("export_script_info"))
    script_button = gr.Button(tr("export_script_make"), elem_id="export-script")
    files = gr.File(label=tr("export_script_file"), file_count="multiple", interactive=False,
                    height=140, elem_id="export-files")
    with gr.Accordion(tr("hub_title"), open=True):
        # on a Space visitors sign in (OAuth); a token box only on one's own machine
        on_space = signs_in()
        if on_space:
            gr.Markdown(tr("hub_login_info"))
            # Gradio compares its label in the browser, so it keeps its own English one
            gr.LoginButton(elem_id="hub-login")
        with gr.Row():
            repo = gr.Textbox(label=tr("hub_repo"), info=tr("hub_repo_info"),
                              placeholder="your-name/tiny-shakespeare", elem_id="hub-repo")
            token = gr.Textbox(label=tr("hub_token"), info=tr("hub_token_info"), type="password",
                               elem_id="hub-token", visible=not on_space)
            private = gr.Checkbox(False, label=tr("hub_private"), info=tr("hub_private_info"))
        push_button = gr.Button(tr("hub_push_button"))
        pushed = gr.Markdown(elem_id="hub-result")
    with gr.Accordion(tr("share_title"), open=True):
        gr.Markdown(tr("share_intro"))
        link_button = gr.Button(tr("share_button"), elem_id="share-button")
        link = gr.Textbox(label=tr("share_link"), info=tr("share_link_info"), interactive=False,
                          buttons=["copy"], elem_id="share-link")

    lesson = build_lesson()
    script_button.click(in_turns(make_script), session, files, concurrency_limit=concurrency_limit,
                        concurrency_id="compute", api_name="export_script")
    push_button.click(in_turns(push), [session, repo, token, private], pushed,
                      concurrency_limit=concurrency_limit, concurrency_id="compute",
                      api_name="push_to_hub", api_visibility="private")
    return ExportTab(link_button=link_button, link=link, **lesson)


def build_lesson() -> dict[str, Any]:
    """The lesson link's builder: what the class sees, ticked; its widgets by ``ExportTab`` field."""
    with gr.Accordion(tr("lesson_title"), open=True, elem_id="lesson-builder"):
        gr.Markdown(tr("lesson_intro"))
        with gr.Row():
            title = gr.Textbox(label=tr("lesson_name"), info=tr("lesson_name_info"),
                               max_length=80, elem_id="lesson-title")
            task = gr.Dropdown(list(TASKS), value=None, label=tr("lesson_task"),
                               info=tr("lesson_task_info"), elem_id="lesson-task")
        text = gr.Textbox(label=tr("lesson_text"), info=tr("lesson_text_info"), lines=3,
                          max_length=600, elem_id="lesson-text")
        with gr.Row():
            tour = gr.Checkbox(False, label=tr("lesson_tour"), info=tr("lesson_tour_info"),
                               elem_id="lesson-tour")
            board = gr.Checkbox(False, label=tr("lesson_board"), info=tr("lesson_board_info"),
                                elem_id="lesson-board")
        tabs = gr.CheckboxGroup([(tr(f"tab_{name}"), name) for name in TABS], value=list(TABS),
                                label=tr("lesson_tabs"), info=tr("lesson_tabs_info"),
                                elem_id="lesson-tabs")
        gr.Markdown(tr("lesson_settings_intro"))
        groups = [gr.CheckboxGroup([(label(name), name) for name in names], value=list(names),
                                   label=tr(train_tab.SECTION_KEYS[section]),
                                   show_select_all=True, elem_id=f"lesson-{key}")
                  for (section, names), key in zip(train_tab.SECTIONS.items(),
                                                   ("shape", "variants", "optimisation",
                                                    "evaluation"))]
        button = gr.Button(tr("lesson_button"), variant="primary", elem_id="lesson-button")
        link = gr.Textbox(label=tr("lesson_link"), info=tr("lesson_link_info"),
                          interactive=False, buttons=["copy"], elem_id="lesson-link")
        preview = gr.Markdown(elem_id="lesson-preview")
    code = gr.State("")
    return dict(lesson_button=button,
                lesson_inputs=[title, text, tabs, *groups, task, tour, board, code],
                lesson_task=task, lesson_link=link, lesson_preview=preview, class_code=code)


def wire(export: ExportTab, session: gr.State, demo: gr.Blocks, message: gr.Markdown,
         source: gr.Radio, kind: gr.Radio, vocab_size: gr.Slider, settings: list,
         sampling: list) -> Callable[[Any], Any]:
    """The link button reads every tab's widgets. Returns how the page load restores them from
    a link: a function that chains ``restore_from_link`` after a load event (app.py's chain:
    come back, language, link, draw)."""
    export.link_button.click(make_link, [source, kind, vocab_size, *settings, *sampling],
                             export.link, concurrency_limit=None, api_name="share_link")
    export.lesson_button.click(make_lesson_link, [session, source, kind, vocab_size, *settings,
                                                  *sampling, *export.lesson_inputs],
                               [export.lesson_link, export.lesson_preview, export.class_code],
                               concurrency_limit=None, api_name="lesson_link")

    def after(event):
        return event.then(restore_from_link, session, RESTORED.widgets(
            dict(zip(train_tab.SETTINGS, settings, strict=True)),
            **dict(zip(SAMPLING_KEYS, sampling, strict=True)),
            message=message, source=source, kind=kind, vocab_size=vocab_size),
            api_visibility="private")
    return after
