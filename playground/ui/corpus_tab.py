"""Tab 1, Corpus: Tiny Shakespeare, uploaded .txt/.md files, or pasted text.

The handler builds a ``Corpus`` through the core loaders and puts it in the session only
when it is good, so a bad file leaves the previous corpus in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from playground import ready
from playground.corpus import Corpus, CorpusError, TEXT_EXTENSIONS, from_text, load_files
from playground.i18n import localize, msg, t
from playground.tasks import TASKS, task_corpus, task_note
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import (Session, default_corpus, ensure, friendly_errors,
                                   uploaded_files)
from playground.settings import PageSettings

SOURCES = ("Tiny Shakespeare", "Upload files", "Paste text")
MAX_UPLOAD_BYTES = 5 * 1024 * 1024  # per file and in all; launch(max_file_size=...) matches it
PREVIEW_CHARS = 1000
# choose_source's outputs, by the names of build()'s widgets
CHOSEN = Outputs("session", "summary", "preview", "files", "pasted", "paste_button")


def corpus_summary(corpus: Corpus, lang: str = "en") -> str:
    """Markdown: the corpus name and its statistics, and what to do next, in ``lang``."""
    s = corpus.stats()
    stats = t("**Corpus: {name}** · {characters} characters · {lines} lines · {words} words · "
              "{distinct} distinct characters.", lang, name=localize(corpus.name, lang),
              characters=f"{s.characters:,}", lines=f"{s.lines:,}", words=f"{s.words:,}",
              distinct=f"{s.distinct_chars:,}")
    return stats + "  \n" + t("Next: train a tokenizer on it (tab 2).", lang)


@friendly_errors
def use_corpus(session: Session | None, source: str, files: list[str] | str | None,
               pasted: str) -> tuple[Session, str, str]:
    """Make ``source`` the session's corpus; returns (session, summary, preview).

    ``files`` are the paths Gradio saved the uploads to; ``pasted`` the text box.
    """
    session = ensure(session)
    if source == "Tiny Shakespeare":
        corpus = default_corpus()
    elif source == "Upload files":
        paths = [files] if isinstance(files, str) else list(files or [])
        if not paths:
            raise CorpusError(msg("No file yet: drop one or more .txt or .md files in the box "
                                  "above."))
        corpus = load_files(paths, max_bytes=MAX_UPLOAD_BYTES)
    elif source == "Paste text":
        corpus = from_text(pasted or "", max_bytes=MAX_UPLOAD_BYTES)
    else:
        raise CorpusError(msg("Unknown source {source}: choose one of {choices}.",
                              source=repr(source),
                              choices=", ".join(SOURCES)))
    session.corpus = corpus
    return session, corpus_summary(corpus, session.lang), corpus.preview(PREVIEW_CHARS)


@friendly_errors
def use_corpus_from_page(session: Session | None, source: str, files: list[str] | str | None,
                         pasted: str, request: gr.Request) -> tuple[Session, str, str]:
    """``use_corpus`` as the page calls it: the files it names are read only if this page
    uploaded them (``ui.session.uploaded_files``); any other path is refused, the corpus kept."""
    session = ensure(session)
    if source == "Upload files" and files:
        files = uploaded_files(session, [files] if isinstance(files, str) else list(files), request)
    return use_corpus(session, source, files, pasted)


def show_corpus(session: Session | None) -> tuple[str, str]:
    """The session's current corpus (on page load): (summary, preview)."""
    session = ensure(session)
    corpus = session.corpus_or_default()
    return corpus_summary(corpus, session.lang), corpus.preview(PREVIEW_CHARS)


def choose_source(session: Session | None, source: str):
    """Show the file box for uploads and the text box for pasting; Tiny Shakespeare is used at
    once. Returns ``CHOSEN`` (session, summary, preview, files, pasted, paste button); the
    summary and preview unchanged until a text is used."""
    shows = dict(files=gr.update(visible=source == "Upload files"),
                 pasted=gr.update(visible=source == "Paste text"),
                 paste_button=gr.update(visible=source == "Paste text"))
    if source == "Tiny Shakespeare":
        session, summary, preview = use_corpus(session, source, None, "")
        return CHOSEN(session=session, summary=summary, preview=preview, **shows)
    return CHOSEN.only(session=ensure(session), **shows)


@friendly_errors
def use_task(session: Session | None, name: str):
    """Make the toy task ``name`` the corpus and its preset the training settings: (session,
    summary, preview, note, *every setting's value)."""
    session = ensure(session)
    task = TASKS[name]
    session.corpus = task_corpus(name)
    note = task_note(task, session.lang)
    if ready.follow_corpus(session):  # the task's ready-made model, until one's own is trained
        session.attention = None
        note += "\n\n" + t("Until you train your own, Generate, Attention and Inside use a "
                           "ready-made model of this task that comes with the playground "
                           "({preset}, trained with these settings).", session.lang,
                           preset=task.preset.name)
    settings = PageSettings.from_configs(task.preset.model, task.preset.train).as_list()
    return (session, corpus_summary(session.corpus, session.lang),
            session.corpus.preview(PREVIEW_CHARS), note, *settings)


@dataclass
class CorpusTab:
    """The Corpus tab's widgets that other tabs use."""

    source: gr.Radio  # the share link reads and restores it
    summary: gr.Markdown  # written on page load and on a language switch, in that language
    preview: gr.Textbox
    task: gr.Dropdown  # a toy task: app.py wires it to the training settings too
    task_note: gr.Markdown


def build(session: gr.State) -> CorpusTab:
    """The Corpus tab's widgets and events; returns the widgets other tabs wire to."""
    gr.Markdown(tr("corpus_intro"))
    source_labels = [tr(f"choice_source_{key}") for key in ("shakespeare", "upload", "paste")]
    source = gr.Radio(list(zip(source_labels, SOURCES)), value=SOURCES[0],
                      label=tr("corpus_source"),
                      info=tr("corpus_source_info"))
    # the label names TEXT_EXTENSIONS and MAX_UPLOAD_BYTES: the page's translator takes no values
    files = gr.File(label=tr("corpus_files_label"),
                    file_count="multiple", file_types=list(TEXT_EXTENSIONS), type="filepath",
                    visible=False, elem_id="corpus-files")
    pasted = gr.Textbox(label=tr("corpus_paste_label"), lines=8, visible=False,
                        info=tr("corpus_paste_info"), placeholder=tr("corpus_paste_placeholder"))
    paste_btn = gr.Button(tr("corpus_paste_button"), visible=False)
    task = gr.Dropdown(list(TASKS), value=None, label=tr("corpus_task"),
                       info=tr("corpus_task_info"), elem_id="corpus-task")
    task_note = gr.Markdown()
    summary = gr.Markdown()
    preview = gr.Textbox(label=tr("corpus_preview_label"), lines=12, max_lines=12,
                         interactive=False, buttons=["copy"])

    source.input(choose_source, [session, source],
                 CHOSEN.widgets(session=session, summary=summary, preview=preview, files=files,
                                pasted=pasted, paste_button=paste_btn),
                 concurrency_limit=None, api_visibility="private")
    files.upload(use_corpus_from_page, [session, source, files, pasted], [session, summary, preview],
                 concurrency_limit=None, api_name="use_uploaded_corpus", api_visibility="private")
    paste_btn.click(use_corpus_from_page, [session, source, files, pasted],
                    [session, summary, preview], concurrency_limit=None, api_name="use_corpus")
    return CorpusTab(source=source, summary=summary, preview=preview, task=task,
                     task_note=task_note)

