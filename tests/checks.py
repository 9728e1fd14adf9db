"""Assertions and helpers that several test modules share (``from checks import ...``)."""

import re

from playground.i18n import error_text

CJK = re.compile(r"[\u4e00-\u9fff]")  # a Chinese character


def assert_translated(error: Exception, english: str, names=()) -> str:
    """The error reads exactly as before in English (the CLI and logs print it), and in
    Chinese it is Chinese and keeps every number of the English and each of ``names``.
    Returns the Chinese text."""
    assert str(error) == english
    chinese = error_text(error, "zh-CN")
    assert CJK.search(chinese) and chinese != english, chinese
    for kept in re.findall(r"\d+(?:[.,]\d+)*", english) + list(names):
        assert kept in chinese, (kept, chinese)
    return chinese


def page_settings(tiny: dict, **changes) -> list:
    """The training tab's widget values, in ``train_tab.SETTINGS`` order: the tiny preset with
    ``tiny`` and then ``changes`` applied (what a visitor would have typed)."""
    from playground.ui import train_tab  # the page: only the tests that drive it pay for it

    values = dict(zip(train_tab.SETTINGS, train_tab.preset_values("tiny")))
    values.update(tiny, **changes)
    return [values[name] for name in train_tab.SETTINGS]
