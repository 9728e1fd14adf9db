"""A lesson link's handlers: the Export tab's builder makes the link the page opens; opening it
hides what the lesson leaves out, opens its task, and shows its words as plain text."""

import re
from urllib.parse import parse_qsl, urlsplit

import gradio as gr

from playground.export.lesson import TABS, Lesson, decode_lesson
from playground.i18n import t
from playground.insight.board import check_code, new_code
from playground.ui import export_tab, lesson_view
from playground.ui.session import Session
from playground.settings import DEFAULTS, SETTINGS
from playground.ui.train_tab import SECTIONS

SAMPLING = ("ROMEO:", 300, 0.8, 0, 1.0, 0)
N_PARTS = 1 + len(SETTINGS) + len(SECTIONS) + 3


def opened(query: dict, lang: str = "en") -> tuple[Session, tuple]:
    session = Session()
    session.lang = lang
    return session, lesson_view.open_lesson(session, gr.Request(query_params=query))


def build_with_board(title="Heads", text="Look at tab 5.", tabs=("train", "attention"),
                     groups=(["n_layer"], [], ["lr"], []), task="reverse", lang="en", tour=False,
                     board=False, code=""):
    """The builder's (link, summary, class code)."""
    session = Session()
    session.lang = lang
    request = gr.Request(headers={"referer": "http://127.0.0.1:7860/?v=1&title=old"})
    return export_tab.make_lesson_link(session, request, "Tiny Shakespeare", "char", 512,
                                       *DEFAULTS.as_list(), *SAMPLING, title, text, list(tabs),
                                       *groups, task, tour, board, code)


def build(**kwargs):
    """The builder's (link, summary)."""
    return build_with_board(**kwargs)[:2]


def test_the_builder_makes_the_link_that_opens_as_built():
    link, summary = build()
    assert link.startswith("http://127.0.0.1:7860/?v=1&") and "title=old" not in link
    lesson = decode_lesson(link)
    assert lesson == Lesson(title="Heads", text="Look at tab 5.", tabs=("train", "attention"),
                            settings=("n_layer", "lr"), task="reverse")
    assert "3 · Model & training, 5 · Attention" in summary and "2 of 48" in summary
    assert "Task opened: reverse." in summary and "> ### Heads" in summary
    zh = build(lang="zh-CN")[1]
    assert "3 · 模型与训练" in zh and "48 个中的 2 个" in zh


def test_a_builder_with_every_box_ticked_makes_a_plain_share_link():
    everything = [list(names) for names in SECTIONS.values()]
    link, summary = build(title="", text="", tabs=TABS, groups=everything, task=None)
    assert decode_lesson(link) is None and "Settings shown: all of them." in summary
    assert link == export_tab.make_link(
        gr.Request(headers={"referer": "http://127.0.0.1:7860/"}), "Tiny Shakespeare", "char",
        512, *DEFAULTS.as_list(), *SAMPLING)


def test_a_lesson_without_any_tab_is_refused_with_a_message():
    try:
        build(tabs=[])
    except gr.Error as error:
        assert "at least one tab" in str(error.message)
    else:
        raise AssertionError("a lesson with no tab was made")


def test_opening_a_lesson_hides_what_it_leaves_out_and_opens_its_task():
    query = dict(parse_qsl(urlsplit(build()[0]).query, keep_blank_values=True))
    session, out = opened(query)
    box, header, note, show_all, tabs, *rest = out
    settings, sections = rest[:len(SETTINGS)], rest[len(SETTINGS):len(SETTINGS) + len(SECTIONS)]
    advanced, preset, upload, task, task_note, summary, _preview = rest[len(SETTINGS) + len(SECTIONS):]
    assert box.visible is True and header.startswith("### Heads") and show_all.visible is True
    assert tabs["selected"] == "train"
    assert set(tabs["elem_classes"]) == {f"lesson-hides-{n}" for n in TABS if n not in ("train", "attention")}
    assert [name for name, update in zip(SETTINGS, settings) if update["visible"]] == ["n_layer", "lr"]
    assert [update["visible"] for update in sections] == [True, False, True, False]
    assert advanced["visible"] and advanced["open"] and preset["visible"] is False
    assert upload["visible"] is False  # a bundle's configs would change the hidden settings
    assert task == "reverse" and session.corpus.name == "reverse" and "reverse" in summary


def test_show_everything_shows_every_part():
    note, button, tabs, *rest = lesson_view.show_everything(Session())
    assert note.visible is False and button.visible is False
    assert tabs["elem_classes"] == ["lesson-hides-board"] and "selected" not in tabs
    assert all(update["visible"] for update in rest)
    with_class = Session()
    with_class.class_code = new_code()  # a class page keeps its board
    assert lesson_view.show_everything(with_class)[2]["elem_classes"] == []


def test_a_lesson_with_a_class_board_keeps_its_code_and_shows_the_board_tab():
    link, summary, code = build_with_board(board=True, tabs=("train", "board"))
    assert check_code(code) and decode_lesson(link).class_code == code
    assert "Class board: on." in summary and "8 · Class board" in summary
    again = build_with_board(board=True, code=code, title="Week 2", tabs=("train", "board"))
    assert again[2] == code and decode_lesson(again[0]).class_code == code  # the same board
    assert build_with_board(board=False, code=code)[2] == code  # kept for a later tick
    assert "class=" not in build_with_board(board=False, code=code)[0]
    assert "8 · Class board" not in build_with_board(board=False, code=code)[1]
    session, out = opened(dict(parse_qsl(urlsplit(link).query, keep_blank_values=True)))
    assert session.class_code == code
    assert set(out[4]["elem_classes"]) == {f"lesson-hides-{n}" for n in TABS
                                           if n not in ("train", "board")}
    _, plain = opened(dict(parse_qsl(urlsplit(build()[0]).query, keep_blank_values=True)))
    assert "lesson-hides-board" in plain[4]["elem_classes"]  # no class: no board


def test_a_link_without_a_lesson_changes_nothing():
    _, out = opened({"v": "1", "n_layer": "2"})
    assert len(out) == 4 + N_PARTS + 4 and all(isinstance(part, type(gr.skip())) for part in out)


def test_a_hostile_lesson_is_plain_text_and_a_bad_one_says_why_in_the_pages_language():
    _, out = opened({"title": "[Log in](//ev.il)", "text": "![x](https://ev.il/p.png)\n<img src=x>",
                     "tabs": "train,[evil](//ev.il)"})
    header = out[1]
    assert "\\[Log in\\]\\(//ev\\.il\\)" in header and "\\!\\[x\\]" in header and "\\<img" in header
    assert not re.search(r"(?<!\\)[\[\]<]", header)  # every bracket escaped: nothing is a link
    assert t("Names of tabs or settings this version does not know were left out of the "
             "lesson: {n}.", "en", n=1) in header and "evil" not in header
    _, bad = opened({"title": "x" * 81}, lang="zh-CN")
    assert bad[0].visible and "课程标题超过了 80 个字符" in bad[1] and bad[3].visible is False


def test_the_lesson_keys_are_not_counted_as_unknown_settings():
    query = dict(parse_qsl(urlsplit(build()[0]).query, keep_blank_values=True))
    message = export_tab.restore_from_link(Session(), gr.Request(query_params=query))[0].value
    assert message == "**" + t("Settings restored from the link.", "en") + "**"


def test_a_lesson_can_open_the_guided_tour_and_the_page_reads_it_as_a_page_parameter():
    link, summary = build(tour=True)
    assert link.endswith("&task=reverse&tour=1") and decode_lesson(link).tour
    assert "The guided tour opens with the page." in summary
    assert "页面打开时会显示引导教程" in build(tour=True, lang="zh-CN")[1]
    assert not decode_lesson(build()[0]).tour and "tour=" not in build()[0]
    # the tour's own ?tour=1 on a plain share link is no unknown setting either
    plain = {"v": "1", "n_layer": "2", "tour": "1"}
    message = export_tab.restore_from_link(Session(), gr.Request(query_params=plain))[0].value
    assert message == "**" + t("Settings restored from the link.", "en") + "**"
