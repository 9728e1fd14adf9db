"""Lesson links: what a class sees, to and from a link; old links unchanged; hostile lessons
refused or shown as written, never as more."""

from urllib.parse import quote

import pytest

from playground.export.lesson import (
    KEYS, MAX_TEXT_CHARS, MAX_TITLE_CHARS, SETTINGS, TABS, Lesson, decode_lesson, encode_lesson,
    lesson_url, without_lesson,
)
from playground.export.links import KEYS as SETTING_KEYS, ShareError, decode_settings
from playground.tasks import TASKS

from checks import assert_translated


@pytest.mark.parametrize("lesson", [
    Lesson(),
    Lesson(title="Attention heads", text="Train, then open tab 5.\nWhich head looks back?"),
    Lesson(tabs=("train",), settings=()),
    Lesson(tabs=("attention", "corpus"), settings=("lr", "n_layer"), task="reverse"),
    Lesson(title="注意力", text="训练，然后打开第 5 个标签页。", tabs=TABS[:3], task="copy"),
])
def test_a_lesson_reads_back_as_written(lesson):
    url = lesson_url("https://example.org/app/", {"n_layer": 2}, lesson)
    assert decode_lesson(url) == (None if lesson == Lesson() else lesson)  # the whole page: no lesson
    assert decode_settings(without_lesson(dict(_query(url)))).settings["n_layer"] == 2


def _query(url):
    from urllib.parse import parse_qsl, urlsplit
    return parse_qsl(urlsplit(url).query, keep_blank_values=True)


def test_lists_are_kept_in_the_pages_order_once_each():
    lesson = Lesson(tabs=("export", "corpus", "export"), settings=("lr", "n_layer", "lr"))
    assert lesson.tabs == ("corpus", "export") and lesson.settings == ("n_layer", "lr")
    assert encode_lesson(lesson) == "tabs=corpus%2Cexport&show=n_layer%2Clr"


def test_a_lesson_that_shows_no_setting_says_so_and_one_that_shows_all_says_nothing():
    assert encode_lesson(Lesson(settings=())) == "show="
    assert decode_lesson("v=1&show=").settings == ()
    assert decode_lesson("v=1&title=x").settings == SETTINGS
    assert encode_lesson(Lesson()) == "" and lesson_url("https://e.org/", {}, Lesson()) == "https://e.org/?v=1"


def test_an_old_link_holds_no_lesson_and_its_settings_are_unchanged():
    old = "https://example.org/?v=1&n_layer=2&pos=rope&prompt=JULIET%3A"
    assert decode_lesson(old) is None
    params = dict(_query(old))
    assert without_lesson(params) == params
    assert decode_settings(without_lesson(params)) == decode_settings(old)


def test_the_lesson_keys_are_no_settings_and_the_tabs_are_the_pages():
    assert not set(KEYS) & set(SETTING_KEYS)
    from playground.ui.lang import TABS as PAGE_TABS
    from playground.settings import SETTINGS as PAGE_SETTINGS
    assert PAGE_TABS == TABS and set(PAGE_SETTINGS) == set(SETTINGS)
    # read as settings, an older version ignores the lesson's keys, so its links still open there
    assert sorted(decode_settings("v=1&title=x&tabs=train&show=&task=copy").ignored) == sorted(
        ["title", "tabs", "show", "task"])


def test_unknown_names_are_counted_and_left_out():
    lesson = decode_lesson(f"tabs=train,{quote('[Log in](//ev.il)')},colour&show=lr,bogus")
    assert lesson.tabs == ("train",) and lesson.settings == ("lr",) and lesson.ignored == 3


@pytest.mark.parametrize("query, english", [
    ("tabs=nothing,here", "The lesson names no tab this version has, so it would show nothing."),
    ("task=juggle", "The lesson's task must be one of " + ", ".join(TASKS) + ", got 'juggle'."),
    ("title=" + "x" * (MAX_TITLE_CHARS + 1),
     f"The lesson's title is longer than {MAX_TITLE_CHARS} characters: shorten it."),
    ("text=" + "x" * (MAX_TEXT_CHARS + 1),
     f"The lesson's text is longer than {MAX_TEXT_CHARS} characters: shorten it."),
    ("title=a&title=b", None),
])
def test_a_bad_lesson_says_what_is_wrong_in_both_languages(query, english):
    with pytest.raises(ShareError) as error:
        decode_lesson(query)
    if english:
        assert_translated(error.value, english)


def test_a_lesson_made_on_the_page_is_checked_as_one_from_a_link():
    with pytest.raises(ShareError, match="at least one tab"):
        Lesson(tabs=())
    with pytest.raises(ShareError, match="not tabs or settings a lesson can show: colour"):
        Lesson(settings=("lr", "colour"))


def test_hostile_text_stays_plain_and_bounded():
    # control and direction-override characters go; what is left is the teacher's text as typed
    lesson = decode_lesson("title=" + quote("Hi\u202e\x00<b>[x](//ev.il)\n") + "&text="
                           + quote("one\r\ntwo\x1b[31m"))
    assert lesson.title == "Hi<b>[x](//ev.il)" and lesson.text == "one\ntwo[31m"
    with pytest.raises(ShareError):
        decode_lesson("text=" + quote("\u4e2d" * (MAX_TEXT_CHARS + 1)))
