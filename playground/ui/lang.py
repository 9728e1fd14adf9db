"""The page's two languages: labels translated in the browser, messages on the server.

Labels, explanations and static text are ``tr("key")`` (a ``gr.I18n`` marker): the browser
shows them in its own language, or in the one chosen under Settings at the bottom of the
page; ``launch`` passes ``I18N`` to Gradio. Text made by handlers (coach notes, reference
line labels) goes through ``playground.i18n.t`` with ``session.lang``, which ``detect_language``
sets on page load from the browser's ``Accept-Language`` header.

>>> tr("start_button").key
'start_button'
>>> label("n_layer").key, info("n_layer").key
('label_n_layer', 'info_n_layer')
"""

from __future__ import annotations

import gradio as gr

from playground.i18n import EN, gradio_i18n_dict, pick_language
from playground.ui.session import Session, ensure

I18N = gr.I18n(**gradio_i18n_dict())


def tr(key: str) -> gr.i18n.I18nData:
    """A label the browser translates; an unknown key fails here, when the page is built."""
    if key not in EN:
        raise KeyError(f"No message with the id {key!r} in playground.i18n.")
    return I18N(key)


def label(setting: str) -> gr.i18n.I18nData:
    return tr(f"label_{setting}")


def info(setting: str) -> gr.i18n.I18nData:
    return tr(f"info_{setting}")


def detect_language(session: Session | None, request: gr.Request | None = None) -> Session:
    """On page load: the session's language from the browser's Accept-Language header."""
    session = ensure(session)
    headers = getattr(request, "headers", None) or {}
    session.lang = pick_language(headers.get("accept-language"))
    return session
