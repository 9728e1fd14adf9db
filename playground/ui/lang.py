"""The page's two languages: labels translated in the browser, messages on the server.

Labels, explanations and static text are ``tr("key")`` (a ``gr.I18n`` marker): the browser
shows them in its own language, or in the one chosen under Settings at the bottom of the
page; ``launch`` passes ``I18N`` to Gradio. Text made by handlers (status lines, coach notes,
errors) goes through ``playground.i18n.t`` / ``localize`` with ``session.lang``:
``detect_language`` sets it on page load from the browser's ``Accept-Language`` header, and
``follow_page_language`` keeps it equal to the language the page shows, which Gradio's
translator writes into ``<html lang>`` (``SYNC_JS`` watches it and reports every change
through a hidden textbox), so picking a language under Settings switches the server's
messages too.

>>> tr("start_button").key
'start_button'
>>> label("n_layer").key, info("n_layer").key
('label_n_layer', 'info_n_layer')
"""

from __future__ import annotations

import gradio as gr

from playground.i18n import EN, gradio_i18n_dict, normalize_language, pick_language
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
    """On page load: the session's language from the browser's Accept-Language header, unless
    the page has already reported the language it shows (that one wins: the events of a page
    load arrive in any order)."""
    session = ensure(session)
    if not session.lang_from_page:
        headers = getattr(request, "headers", None) or {}
        session.lang = pick_language(headers.get("accept-language"))
    return session


def follow_page_language(session: Session | None, page_lang: str | None) -> Session:
    """The language the page shows now (``<html lang>``), for the server's messages."""
    session = ensure(session)
    if page_lang:
        session.lang, session.lang_from_page = normalize_language(page_lang), True
    return session


PAGE_LANG_ID = "page-lang"  # the hidden textbox that carries <html lang> to the server
# Runs once when the page has loaded: report <html lang> now and whenever it changes.
SYNC_JS = f"""
() => {{
  const report = () => {{
    const box = document.querySelector('#{PAGE_LANG_ID} textarea, #{PAGE_LANG_ID} input');
    const lang = document.documentElement.lang;
    if (!box || !lang) return false;
    if (box.value !== lang) {{
      box.value = lang;
      box.dispatchEvent(new Event('input', {{bubbles: true}}));
    }}
    return true;
  }};
  new MutationObserver(report).observe(document.documentElement,
                                       {{attributes: true, attributeFilter: ['lang']}});
  const poll = setInterval(() => {{ if (report()) clearInterval(poll); }}, 250);
}}
"""
