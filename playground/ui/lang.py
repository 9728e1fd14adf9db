"""The page's two languages: labels translated in the browser, messages on the server.

Labels, explanations and static text are ``tr("key")`` (a ``gr.I18n`` marker; the ids and
texts are in ``playground/i18n/labels.py``, a setting's on its config field): the browser
shows them in its own language, or in the one chosen under Settings at the bottom of the
page; ``launch`` passes ``I18N`` to Gradio. Text made by handlers (status lines, coach notes,
errors) goes through ``playground.i18n.t`` / ``localize`` with ``session.lang`` (their
Chinese is in ``playground/i18n/zh_cn.py``): ``detect_language`` sets it on page load from
the browser's ``Accept-Language`` header, and ``follow_page_language`` keeps it equal to
the language the page shows, which Gradio's translator writes into ``<html lang>``
(``SYNC_JS`` watches it and reports every change through a hidden textbox), so picking a
language under Settings switches the server's messages too. The page's own switch
(``SWITCH_JS``, top right) and ``?lang=zh-CN`` in the address (``SYNC_JS``, and
``detect_language`` for the first messages) call the same translator Settings does.

>>> tr("start_button").key
'start_button'
>>> label("n_layer").key, info("n_layer").key
('label_n_layer', 'info_n_layer')
"""

from __future__ import annotations

import json

import gradio as gr

from playground.export.lesson import TABS
from playground.i18n import LANGUAGES, normalize_language, pick_language
from playground.i18n.labels import EN, ZH_CN, gradio_i18n_dict
from playground.ui.session import Session, ensure

I18N = gr.I18n(**gradio_i18n_dict())


def tr(key: str) -> gr.i18n.I18nData:
    """A label the browser translates; an unknown key fails here, when the page is built."""
    if key not in EN:
        raise KeyError(f"No label with the id {key!r} in playground.i18n.labels.")
    return I18N(key)


def label(setting: str) -> gr.i18n.I18nData:
    return tr(f"label_{setting}")


def info(setting: str) -> gr.i18n.I18nData:
    return tr(f"info_{setting}")


def detect_language(session: Session | None, request: gr.Request | None = None) -> Session:
    """On page load: the session's language from ``?lang=`` in the address, else from the
    browser's Accept-Language header; unless the page has already reported the language it
    shows (that one wins: the events of a page load arrive in any order)."""
    session = ensure(session)
    if not session.lang_from_page:
        asked = (getattr(request, "query_params", None) or {}).get("lang")  # ?lang=zh-CN
        headers = getattr(request, "headers", None) or {}
        session.lang = normalize_language(asked) if asked else pick_language(
            headers.get("accept-language"))
    return session


def follow_page_language(session: Session | None, page_lang: str | None) -> Session:
    """The language the page shows now (``<html lang>``), for the server's messages."""
    session = ensure(session)
    if page_lang:
        session.lang, session.lang_from_page = normalize_language(page_lang), True
    return session


PAGE_LANG_ID = "page-lang"  # the hidden textbox that carries <html lang> to the server
SWITCH_ID = "lang-switch"  # the page's own English / 简体中文 switch
SWITCH_CHOICES = [(name, code) for code, name in LANGUAGES.items()]

# the page's tabs in order (written once, in export.lesson, which lessons name them by): app.py
# draws them (``tab``), the switch relabels them
TAB_LABELS = {code: [labels[f"tab_{name}"] for name in TABS]
              for code, labels in (("en", EN), ("zh-CN", ZH_CN))}


def tab(name: str) -> gr.Tab:
    """The page's tab ``name`` (one of ``TABS``), labelled in the visitor's language."""
    if name not in TABS:
        raise ValueError(f"no tab {name!r} in lang.TABS")
    return gr.Tab(tr(f"tab_{name}"), id=name)

# Gradio's translator is switched by its own changeLocale (what Settings calls). The page
# finds the module that holds it among the scripts it has loaded; if a Gradio version ever
# moves it, the switch does nothing and Settings still works (the browser test would say so).
# Gradio translates a tab's label only when the tab is drawn, so the labels of the other
# tabs are set here (the drawn ones then agree).
_CHANGE_LOCALE = """
  const TAB_LABELS = %s;
  const relabelTabs = (lang) => {
    const want = TAB_LABELS[lang];
    if (!want) return;
    document.querySelectorAll('button[role="tab"]').forEach((button) => {
      for (const labels of Object.values(TAB_LABELS)) {
        const i = labels.indexOf(button.textContent.trim());
        if (i >= 0) { button.textContent = want[i]; break; }
      }
    });
  };
  const changeLocale = async (lang) => {
    const url = performance.getEntriesByType('resource').map(e => e.name)
      .find(name => /\\/core-[^/]*\\.js(\\?|$)/.test(name));
    if (!url) return false;
    const core = await import(url);
    if (typeof core.changeLocale !== 'function') return false;
    core.changeLocale(lang);
    for (const wait of [0, 100, 500]) setTimeout(() => relabelTabs(lang), wait);
    return true;
  };
""" % json.dumps(TAB_LABELS, ensure_ascii=False)

# Runs on the switch: the page's language becomes the one picked.
SWITCH_JS = f"""
async (lang) => {{{_CHANGE_LOCALE}
  if (lang) await changeLocale(lang);
  return lang;
}}
"""

# Runs once when the page has loaded: a ?lang=zh-CN (or en) in the address picks the
# language; then report <html lang> now and whenever it changes.
SYNC_JS = f"""
async () => {{{_CHANGE_LOCALE}
  const asked = new URLSearchParams(window.location.search).get('lang');
  if (asked && /^(en|zh)/i.test(asked)) await changeLocale(/^zh/i.test(asked) ? 'zh-CN' : 'en');
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
  const follow = () => {{  // a language picked under Settings too
    report();
    for (const wait of [0, 100, 500]) setTimeout(() => relabelTabs(document.documentElement.lang), wait);
  }};
  new MutationObserver(follow).observe(document.documentElement,
                                       {{attributes: true, attributeFilter: ['lang']}});
  const poll = setInterval(() => {{ if (report()) clearInterval(poll); }}, 250);
}}
"""
