"""Lesson links: a share link that also says what a class sees.

A teacher's link carries the settings (``links``) and, after them, the lesson: a title and a
short text shown at the top of the page, the tabs shown (the others are hidden), the training
settings shown (the others are hidden, so they keep the link's values), a toy task to open
(``playground.tasks``), and a class code: the class board its learners may share their runs to
(``insight.board``)::

    ?v=1&n_layer=2&title=Attention&text=Watch+the+heads.&tabs=corpus,train&show=n_layer&task=reverse

A key left out means "all" (``tabs``, ``show``) or "none" (``title``, ``text``, ``task``,
``class``), so an old link, which has none of them, opens the whole page as before; ``show=``
(empty) shows no setting. An older app ignores these keys as settings it does not know.

The title and text come from whoever wrote the link: they are bounded here, stripped of
control characters, and the page shows them as plain text. Names of tabs or settings this
version does not know are counted (``Lesson.ignored``), never echoed, as unknown link keys are.

>>> lesson = Lesson(title="Attention", tabs=("corpus", "train"), settings=("n_layer",))
>>> query = encode_lesson(lesson)
>>> query
'title=Attention&tabs=corpus%2Ctrain&show=n_layer'
>>> decode_lesson(query) == lesson, decode_lesson("v=1&n_layer=2") is None
(True, True)
>>> decode_lesson("tabs=train,colour&show=lr").ignored
1
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from playground.export.links import MODEL_KEYS, TRAIN_KEYS, ShareError, _pairs, share_url
from playground.i18n import msg
from playground.insight.board import BoardError, check_code
from playground.tasks import TASKS

# the page's tabs in order, written once: the page draws them, a lesson names them
TABS = ("corpus", "tokenizer", "train", "generate", "attention", "inside", "compare", "export",
        "board")  # (the class board shows only on a link with a class code)
SETTINGS = MODEL_KEYS + TRAIN_KEYS  # the training settings a lesson can show or hide
KEYS = ("title", "text", "tabs", "show", "task", "tour", "class")  # the lesson's keys in a link, in this order
MAX_TITLE_CHARS = 80
MAX_TEXT_CHARS = 600


def _clean(text: str, keep_newlines: bool) -> str:
    """``text`` without control or format characters (a newline kept in the text), trimmed."""
    kept = "".join(c for c in text if (keep_newlines and c == "\n")
                   or not unicodedata.category(c).startswith("C"))
    return kept.strip()


@dataclass(frozen=True)
class Lesson:
    """What a lesson link shows: its title and text, the tabs and training settings shown (the
    rest hidden), the toy task opened ("" for none), and how many names in the link this
    version did not know (counted by ``decode_lesson``)."""

    title: str = ""
    text: str = ""
    tabs: tuple[str, ...] = TABS
    settings: tuple[str, ...] = SETTINGS
    task: str = ""
    tour: bool = False  # the guided tour opens with the page (``ui.tour``: its ``?tour=1``)
    class_code: str = ""  # the class board its learners may share runs to (``insight.board``)
    ignored: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", _clean(self.title, keep_newlines=False))
        object.__setattr__(self, "text", _clean(self.text.replace("\r\n", "\n"), keep_newlines=True))
        if len(self.title) > MAX_TITLE_CHARS:
            raise ShareError(msg("The lesson's title is longer than {n} characters: shorten it.",
                                 n=MAX_TITLE_CHARS))
        if len(self.text) > MAX_TEXT_CHARS:
            raise ShareError(msg("The lesson's text is longer than {n} characters: shorten it.",
                                 n=MAX_TEXT_CHARS))
        if not self.shown_tabs:  # (a board alone, without a class, would show nothing)
            raise ShareError(msg("A lesson shows at least one tab: tick one."))
        unknown = [name for name in self.tabs if name not in TABS]
        unknown += [name for name in self.settings if name not in SETTINGS]
        if unknown:
            raise ShareError(msg("These are not tabs or settings a lesson can show: {names}.",
                                 names=", ".join(name[:40] for name in unknown[:5])))
        if self.class_code:
            try:
                check_code(self.class_code)
            except BoardError as error:
                raise ShareError(error.args[0]) from None
        if self.task and self.task not in TASKS:
            raise ShareError(msg("The lesson's task must be one of {choices}, got {value}.",
                                 choices=", ".join(TASKS), value=repr(self.task[:40])))
        # in the page's order, once each: the same lesson always makes the same link
        object.__setattr__(self, "tabs", tuple(name for name in TABS if name in self.tabs))
        object.__setattr__(self, "settings",
                           tuple(name for name in SETTINGS if name in self.settings))

    @property
    def shown_tabs(self) -> tuple[str, ...]:
        """The tabs the page shows: those named, but the class board without a class code."""
        return tuple(name for name in self.tabs if name != "board" or self.class_code)

    @property
    def hides_settings(self) -> bool:
        return len(self.settings) < len(SETTINGS)


def encode_lesson(lesson: Lesson) -> str:
    """The lesson's part of a link's query string (without "?"): only what differs from the
    whole page; ``show=`` is written even empty (a lesson that shows no setting)."""
    pairs = [("title", lesson.title), ("text", lesson.text)]
    if lesson.tabs != TABS:
        pairs.append(("tabs", ",".join(lesson.tabs)))
    if lesson.hides_settings:
        pairs.append(("show", ",".join(lesson.settings)))
    pairs += [("task", lesson.task), ("tour", "1" if lesson.tour else ""),
              ("class", lesson.class_code)]
    return urlencode([(key, value) for key, value in pairs if value or key == "show"])


def lesson_url(base_url: str, settings: Mapping[str, Any], lesson: Lesson) -> str:
    """``share_url`` with the lesson after the settings.

    >>> lesson_url("https://example.org/", {"lr": 0.003}, Lesson(task="reverse"))
    'https://example.org/?v=1&lr=0.003&task=reverse'
    >>> decode_lesson(lesson_url("https://example.org/", {}, Lesson(tour=True))).tour
    True
    """
    url, lesson_query = share_url(base_url, settings), encode_lesson(lesson)
    return f"{url}&{lesson_query}" if lesson_query else url


def _names(text: str, known: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """The known names of a comma-separated list, and how many were not known."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    return tuple(name for name in names if name in known), sum(name not in known for name in names)


def decode_lesson(query: str | Mapping[str, Any]) -> Lesson | None:
    """The lesson in a link (the whole link, its query string, or Gradio's ``query_params``),
    or None for a link without one. Raises ``ShareError`` saying what is wrong."""
    pairs = _pairs(query)
    values = dict(pairs)
    if len(values) < len(pairs):
        twice = next(key for key in values if [k for k, _ in pairs].count(key) > 1)
        raise ShareError(msg("The link gives the setting {setting} twice; keep one.",
                             setting=twice[:40]))
    if not any(key in values for key in KEYS):
        return None
    tabs, unknown_tabs = _names(values["tabs"], TABS) if "tabs" in values else (TABS, 0)
    if not tabs:
        raise ShareError(msg("The lesson names no tab this version has, so it would show nothing."))
    shown, unknown_settings = (_names(values["show"], SETTINGS) if "show" in values
                               else (SETTINGS, 0))
    return Lesson(title=values.get("title", ""), text=values.get("text", ""), tabs=tabs,
                  settings=shown, task=values.get("task", ""), tour=values.get("tour") == "1",
                  class_code=values.get("class", ""),
                  ignored=unknown_tabs + unknown_settings)


def without_lesson(query: Mapping[str, Any]) -> dict[str, Any]:
    """A link's query parameters without the lesson's keys: the settings ``decode_settings``
    reads (which would count the lesson's keys as settings it does not know)."""
    return {key: value for key, value in query.items() if key not in KEYS}
