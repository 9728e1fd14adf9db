"""Assertions that several test modules share (imported as ``from checks import ...``)."""

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
