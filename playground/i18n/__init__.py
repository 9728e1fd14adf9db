"""English and Simplified Chinese for what the server says: messages keyed by their English.

A message is written in English where it is said, with ``{name}`` placeholders (plain names
only, and values formatted already: the Chinese must take the same values)::

    raise ConfigError(msg("{name} must be a whole number, got {value}.", name=..., value=...))

``msg`` gives a ``Message``: the English text, that remembers its template and values so the
page can say it again in the visitor's language with ``localize`` (``error_text`` for an
exception raised with one; ``t(text, lang, ...)`` is ``localize(msg(text, ...), lang)``).
The Chinese is looked up by the English template, gettext-style, in ``zh_cn.ZH_CN``: the
core's messages and the page's own status lines, one table. The tests find every ``msg``/``t``
literal in the source and check it has a Chinese entry with the same placeholders.

The core speaks English (the CLI, logs and tests read it). The page's labels are another
thing: they are translated in the browser, by id (``labels.py``). This package imports no
Gradio.

>>> m = msg("{name} must be a whole number, got {value}.", name="n_layer", value="'two'")
>>> m
"n_layer must be a whole number, got 'two'."
>>> localize(m, "zh-CN")
"n_layer 必须是整数，收到的是 'two'。"
>>> pick_language("zh-CN,zh;q=0.9,en;q=0.8"), pick_language("fr-FR,fr"), pick_language(None)
('zh-CN', 'en', 'en')
"""

from __future__ import annotations

import string
from typing import Any

from playground.i18n.zh_cn import ZH_CN

LANGUAGES = {"en": "English", "zh-CN": "简体中文"}
DEFAULT_LANGUAGE = "en"

# {language: {English template: translation}}; English is its own translation
TRANSLATIONS: dict[str, dict[str, str]] = {"zh-CN": dict(ZH_CN)}


def normalize_language(lang: str | None) -> str:
    """A supported language code for ``lang``: any Chinese tag gives "zh-CN", others "en".

    >>> normalize_language("zh"), normalize_language("ZH-cn"), normalize_language("de")
    ('zh-CN', 'zh-CN', 'en')
    """
    if not lang:
        return DEFAULT_LANGUAGE
    tag = lang.strip().replace("_", "-").lower()
    if tag == "zh" or tag.startswith("zh-"):
        return "zh-CN"
    return "en" if tag == "en" or tag.startswith("en-") else DEFAULT_LANGUAGE


def sentences(parts: list[str], lang: str) -> str:
    """Sentences said one after another in ``lang``: Chinese puts no space after 。.

    >>> sentences(["Done.", "Loss 1.5."], "en"), sentences(["完成。", "损失 1.5。"], "zh-CN")
    ('Done. Loss 1.5.', '完成。损失 1.5。')
    """
    return ("" if normalize_language(lang) == "zh-CN" else " ").join(parts)


def pick_language(accept_language: str | None) -> str:
    """The page language for a browser's ``Accept-Language`` header (highest q first)."""
    if not accept_language:
        return DEFAULT_LANGUAGE
    ranked = []
    for n, part in enumerate(accept_language.split(",")):
        tag, _, q = part.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            weight = 0.0
        ranked.append((-weight, n, tag.strip()))
    for _, _, tag in sorted(ranked):
        lower = tag.lower()
        if lower == "zh" or lower.startswith("zh-") or lower == "en" or lower.startswith("en-"):
            return normalize_language(tag)
    return DEFAULT_LANGUAGE


def placeholders(message: str) -> set[str]:
    """The names of the ``{name}`` placeholders in a message.

    >>> sorted(placeholders("{a} and {b}, {a} again"))
    ['a', 'b']
    """
    return {name for _, name, _, _ in string.Formatter().parse(message) if name is not None}


def _fill(template: str, values: dict[str, Any]) -> str:
    """The template with its placeholders filled; a missing value raises ``KeyError``."""
    return template.format(**values) if values or placeholders(template) else template


class Message(str):
    """English text that remembers its template and values (see ``msg``).

    It is a ``str`` everywhere (printing, logging, JSON, comparing), and pickles as itself.
    """

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, values: dict[str, Any]) -> "Message":
        self = super().__new__(cls, _fill(template, values))
        self.template, self.values = template, values
        return self

    def __reduce__(self):
        return Message, (self.template, self.values)


def msg(template: str, **values: Any) -> Message:
    """The English ``template`` with its values, ready to be said again in another language.

    Values may be Messages themselves (a reason inside a sentence); numbers should come
    formatted already.

    >>> m = msg("Finished all {max_steps} steps.", max_steps="300")
    >>> m == "Finished all 300 steps.", m.template
    (True, 'Finished all {max_steps} steps.')
    >>> localize(m, "zh-CN"), localize("plain", "zh-CN")
    ('已完成全部 300 步。', 'plain')
    """
    return Message(template, values)


def localize(text: Any, lang: str | None) -> str:
    """``text`` in ``lang`` when it is a ``Message`` (its values too); other text as it is.

    A message with no translation stays English (the tests make sure there is none).
    """
    if not isinstance(text, Message):
        return str(text)
    lang = normalize_language(lang)
    if lang == DEFAULT_LANGUAGE:
        return str.__str__(text)
    template = TRANSLATIONS.get(lang, {}).get(text.template, text.template)
    return _fill(template, {k: localize(v, lang) for k, v in text.values.items()})


def t(template: str, lang: str | None = DEFAULT_LANGUAGE, **values: Any) -> str:
    """The English ``template`` said in ``lang``, its placeholders filled in.

    >>> t("Finished all {max_steps} steps.", "en", max_steps="6")
    'Finished all 6 steps.'
    >>> t("Train on more text.", "zh-CN")
    '用更多的文本训练。'
    """
    return localize(msg(template, **values), lang)


def error_text(error: BaseException, lang: str | None) -> str:
    """An exception's message in ``lang`` when it was raised with a ``Message``.

    >>> error_text(ValueError(msg("Train on more text.")), "zh-CN")
    '用更多的文本训练。'
    >>> error_text(ValueError("plain words"), "zh-CN")
    'plain words'
    """
    if len(error.args) == 1 and isinstance(error.args[0], Message):
        return localize(error.args[0], lang)
    return str(error)
