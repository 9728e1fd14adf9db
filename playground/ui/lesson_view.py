"""A lesson link opened: the lesson's title and text at the top, only the tabs and training
settings it names, its toy task as the corpus, and a button that shows the whole playground.

The link is read by ``export.lesson`` (no Gradio there); here it becomes visibilities. The
hidden settings keep the link's values (``export_tab.restore_from_link`` fills them before
``open_lesson`` runs), and the preset menu and the bundle upload are hidden with them, since
either changes every setting. The title and text are someone's words from a link: shown as plain text
(``plain_markdown``), never as Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from playground.export.lesson import TABS, Lesson, ShareError, decode_lesson
from playground.i18n import error_text, t
from playground.tasks import TASKS, task_corpus, task_note
from playground.ui.corpus_tab import PREVIEW_CHARS, corpus_summary
from playground.ui.export_tab import header_markdown, plain_markdown
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import Session, ensure
from playground.settings import SETTINGS
from playground.ui.train_tab import SECTIONS


# A tab is hidden by a class on the page's gr.Tabs: Gradio 6.31 draws a tab's button whatever
# a gr.Tab(visible=False) update says (gradio-app/gradio#9648 and #10904 are its history)
CSS = "\n".join(f'.lesson-hides-{name} button[data-tab-id="{name}"] {{ display: none !important; }}'
                 for name in TABS) + "\n"

# the parts a lesson shows or hides, by name, in the order of LessonPage.parts
PARTS = ("tabs", *SETTINGS, *SECTIONS, "advanced", "preset", "upload")
# open_lesson's outputs: the lesson's box, the parts, and the Corpus tab's task
OPENED = Outputs("box", "header", "note", "show_all", *PARTS, "task", "task_note", "summary",
                 "preview")


@dataclass
class LessonView:
    """The lesson's box at the top of the page (hidden until a lesson link opens it)."""

    box: gr.Column
    header: gr.Markdown  # the title and text, as plain text
    note: gr.Markdown  # "this page shows only what the lesson needs..."
    show_all: gr.Button


@dataclass
class LessonPage:
    """The parts of the page a lesson shows or hides, in the order of ``parts``."""

    tabs: gr.Tabs  # a lesson hides tabs by its classes (CSS): Gradio 6 ignores gr.Tab updates
    settings: list[gr.components.Component]  # in SETTINGS order
    sections: list[gr.Accordion]  # in SECTIONS order
    advanced: gr.Accordion
    preset: gr.Radio  # a preset, and a bundle uploaded, change every setting: hidden with any
    upload: gr.File

    def parts(self) -> list[gr.components.Component | gr.Blocks]:
        return [self.tabs, *self.settings, *self.sections, self.advanced, self.preset, self.upload]


def build_view() -> LessonView:
    with gr.Column(visible=False, variant="panel", elem_id="lesson") as box:
        header = gr.Markdown(elem_id="lesson-header")
        with gr.Row(equal_height=True):
            note = gr.Markdown(tr("lesson_show_all_info"), elem_id="lesson-note")
            show_all = gr.Button(tr("lesson_show_all"), size="sm", scale=0, min_width=200,
                                 elem_id="lesson-show-all")
    return LessonView(box=box, header=header, note=note, show_all=show_all)


def visibilities(lesson: Lesson) -> list[Any]:
    """Updates for ``LessonPage.parts``: the tabs (those hidden by a class each, ``CSS``; the
    first shown selected), each setting, each section (hidden when all its settings are),
    Advanced, the preset menu and the bundle upload."""
    shown = set(lesson.settings)
    hidden = [f"lesson-hides-{name}" for name in TABS if name not in lesson.shown_tabs]
    first = lesson.shown_tabs[0]
    return [gr.update(elem_classes=hidden, **({"selected": first} if first != TABS[0] else {})),
            *(gr.update(visible=name in shown) for name in SETTINGS),
            *(gr.update(visible=bool(shown & set(names))) for names in SECTIONS.values()),
            gr.update(visible=bool(shown), open=bool(shown) and lesson.hides_settings),
            gr.update(visible=not lesson.hides_settings),
            gr.update(visible=not lesson.hides_settings)]


def open_lesson(session: Session | None, request: gr.Request | None = None) -> tuple:
    """On page load, after the link's settings: the lesson the link holds, if any.

    Returns ``OPENED`` (box, header, note, show-all button, ``visibilities`` of the parts, task
    choice, task note, corpus summary, corpus preview); all unchanged for a link without a
    lesson, the task's four without a task. A lesson that cannot be used leaves the whole page
    and says why, in the box.
    """
    session = ensure(session)
    try:
        lesson = decode_lesson(dict(getattr(request, "query_params", None) or {}))
    except ShareError as error:  # its reason may quote the link: plain text
        said = t("The lesson in this link cannot be used: {reason}", session.lang,
                 reason=error_text(error, session.lang))
        return OPENED.only(box=gr.Column(visible=True), header=f"**{plain_markdown(said)}**",
                           note=gr.Markdown(visible=False), show_all=gr.Button(visible=False))
    if lesson is None:
        return OPENED.only()
    session.class_code = lesson.class_code
    header = header_markdown(lesson)
    if lesson.ignored:  # counted, never echoed
        header += "\n\n*" + t("Names of tabs or settings this version does not know were "
                              "left out of the lesson: {n}.", session.lang, n=lesson.ignored) + "*"
    task = {}
    if lesson.task:
        session.corpus = task_corpus(lesson.task)
        task = dict(task=lesson.task, task_note=task_note(TASKS[lesson.task], session.lang),
                    summary=corpus_summary(session.corpus, session.lang),
                    preview=session.corpus.preview(PREVIEW_CHARS))
    parts = dict(zip(PARTS, visibilities(lesson), strict=True))
    return OPENED.only(box=gr.Column(visible=True), header=header, note=gr.Markdown(visible=True),
                       show_all=gr.Button(visible=True), **parts, **task)


def show_everything(session: Session | None) -> tuple:
    """The whole playground: (note, show-all button, *``visibilities`` of every part); the
    lesson's title and text stay, and so does its class board."""
    lesson = Lesson(class_code=ensure(session).class_code)
    return (gr.Markdown(visible=False), gr.Button(visible=False), *visibilities(lesson))


def wire(view: LessonView, page: LessonPage, session: gr.State, task: gr.Dropdown,
         task_note: gr.Markdown, summary: gr.Markdown, preview: gr.Textbox):
    """The show-all button; returns how the page load opens a lesson (chained after the
    link's settings, as ``export_tab.wire`` returns)."""
    view.show_all.click(show_everything, session, [view.note, view.show_all, *page.parts()],
                        queue=False, api_visibility="private")

    def after(event):
        return event.then(open_lesson, session, OPENED.widgets(
            dict(zip(PARTS, page.parts(), strict=True)), box=view.box, header=view.header,
            note=view.note, show_all=view.show_all, task=task, task_note=task_note, summary=summary,
            preview=preview), api_visibility="private")
    return after
