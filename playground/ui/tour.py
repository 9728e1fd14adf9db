"""The guided tour: a first visit's walk through the page, each step pointing at the real
control and moving on when the page shows the visitor did what it asks.

The steps are data (``STEPS``): the tab a step happens on, the control it points at, whether
that control must be pressed during the step, and what the page shows once it is done
(``shows``, ``draws``, ``below_line``, ``lists``: all of a step's must hold). The browser
plays them (``TOUR_JS``, run by a ``gr.HTML``'s ``js_on_load``): it opens the step's tab,
rings the control, and watches the page. The tour opens by itself on a browser's first
visit (``localStorage``) or with ``?tour=1`` in the address (``?tour=0``: never by itself);
the Tour button in the page's header reopens it. ``PLAYGROUND_TOUR=off`` keeps it from
opening by itself (the test suite's pages, which other tests drive). Its words are labels
(``tour_*`` in ``playground/i18n/labels.py``), in English and Chinese; the card follows the
language the page shows.

Gradio's ``gr.Walkthrough`` is a stepper of its own panels: it cannot point at a control
that lives on another tab, nor move on when something happens in the page without a round
trip to the server, so the tour is an overlay drawn by the page.

>>> [step.name for step in STEPS][:3]
['welcome', 'tokenizer', 'start']
>>> STEPS[1].done
({'kind': 'text', 'selector': '#tokenizer-summary', 'pattern': '\\\\d'},)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import gradio as gr

from playground.i18n import LANGUAGES, placeholders, t
from playground.i18n.labels import EN, ZH_CN
from playground.runtime import hosting
from playground.ui.lang import TABS, tr

SEEN_KEY = "playground-tour-seen"  # localStorage: the tour has opened once in this browser


def shows(selector: str, pattern: str) -> dict:
    """Done when the text of ``selector`` matches the regular expression ``pattern``."""
    return {"kind": "text", "selector": selector, "pattern": pattern}


def draws(selector: str, traces: int) -> dict:
    """Done when the plot in ``selector`` draws at least ``traces`` traces with points."""
    return {"kind": "plot", "selector": selector, "traces": traces}


def below_line(selector: str, line: str) -> dict:
    """Done when the last point of the loss plot's train or validation curve (its first two
    traces, ``plots.loss_figure``) lies below the dashed line whose name matches ``line``."""
    return {"kind": "below", "selector": selector, "line": line}


def lists(selector: str, at_least: int) -> dict:
    """Done when the page holds at least ``at_least`` elements matching ``selector``."""
    return {"kind": "count", "selector": selector, "at_least": at_least}


def either(*english: str) -> str:
    """A pattern matching any of the server's ``english`` messages in any page language
    (placeholders stripped: the text before the first one)."""
    words = {t(text, lang, **dict.fromkeys(placeholders(text), "{")).split("{")[0].strip(" *")
             for text in english for lang in LANGUAGES}
    return "|".join(re.escape(word) for word in sorted(words) if word)


# a run under way ("step 12 / 60", "第 12 / 60 步") or ended
RUN_STARTED = r"\d+ / [\d,]+|" + either("Done.", "Stopped.")
RUN_DONE = either("Done.")
# a generation ended: its note names the seed it was drawn with (the note is empty while it writes)
WRITTEN = either("Written with the fixed seed {seed}.",
                 "Written with seed {seed}, drawn at random: tick “Same text each time” to keep "
                 "it and write this text again.")
# the dashed line the model must beat: it has learned more than how often each letter appears
UNIGRAM_LINE = either("knowing only letter frequencies ({value})",
                      "knowing only token frequencies ({value})")


@dataclass(frozen=True)
class Step:
    """One step: its words are the labels ``tour_<name>``. ``tab``: the tab opened when the
    step begins (one of ``lang.TABS``); ``target``: the control it rings; ``press``: the
    target must be pressed during the step; ``done``: what the page shows once the visitor
    did it (empty: the visitor reads, then presses Next)."""

    name: str
    tab: str | None = None
    target: str | None = None
    press: bool = False
    done: tuple[dict, ...] = ()

    def __post_init__(self):
        if self.tab is not None and self.tab not in TABS:
            raise ValueError(f"tour step {self.name!r}: no tab {self.tab!r} in lang.TABS")
        if f"tour_{self.name}" not in EN or f"tour_{self.name}" not in ZH_CN:
            raise ValueError(f"tour step {self.name!r} has no label tour_{self.name}")


STEPS = (
    Step("welcome"),
    Step("tokenizer", "tokenizer", "#tokenizer-train", press=True,
         done=(shows("#tokenizer-summary", r"\d"),)),  # the summary counts the vocabulary
    Step("start", "train", "#start-button", press=True, done=(shows("#train-status", RUN_STARTED),)),
    Step("loss", "train", "#loss-plot",
         done=(below_line("#loss-plot", UNIGRAM_LINE), shows("#train-status", RUN_DONE))),
    Step("generate", "generate", "#generate-button", press=True,  # once it has finished: the
         done=(shows("#generate-note", WRITTEN),)),  # page takes one job at a time (the next)
    Step("attention", "attention", "#attention-button", press=True,
         done=(draws("#attention-heatmap", 1),)),
    Step("one_change", "compare", "#one-change-button", press=True,
         done=(lists("#compare-runs input[type=checkbox]", 2),)),
    Step("compare", "compare", "#compare-runs", done=(draws("#compare-plot", 2),)),
    Step("end", target="#tour-button"),
)

# the card's own words, besides each step's
CARD_LABELS = ("tour_progress", "tour_next", "tour_finish", "tour_skip_step", "tour_close",
               "tour_show_me", "tour_waiting")


def tour_data(auto: bool = True) -> dict:
    """What the browser plays: the steps, every word of the card in both languages, and
    whether the tour opens by itself on a first visit (``auto``)."""
    keys = [f"tour_{step.name}" for step in STEPS] + list(CARD_LABELS)
    return {"steps": [dict(name=s.name, tab=s.tab, target=s.target, press=s.press,
                           done=list(s.done)) for s in STEPS],
            "text": {"en": {k: EN[k] for k in keys}, "zh-CN": {k: ZH_CN[k] for k in keys}},
            "seen_key": SEEN_KEY, "auto": auto}


# Runs once when the overlay is drawn (gr.HTML's js_on_load: ``element`` is the overlay).
# Every 300 ms: the ring follows the step's control, the card follows the page's language,
# and once the control was pressed (if it must be) and the page shows the step done, the
# next step begins.
TOUR_JS = """
const DATA = __DATA__;
const ring = element.querySelector('.tour-ring'), card = element.querySelector('.tour-card');
let index = -1, pressed = false, drawn = '';
const lang = () => /^zh/i.test(document.documentElement.lang) ? 'zh-CN' : 'en';
const say = (key) => DATA.text[lang()][key];
const shown = (el) => !!el && el.getClientRects().length > 0;
const target = () => { const s = DATA.steps[index]; return s.target && document.querySelector(s.target); };
const plot = (sel) => document.querySelector(sel + ' .js-plotly-plot');
// a trace's values: plotly.js keeps them as sent (perhaps a typed array's base64 spec)
// in data, and decoded in _fullData
const points = (p, i) => {
  const tr = (p._fullData && p._fullData[i]) || p.data[i];
  return Array.from(tr.z || tr.y || []).filter((v) => v !== null);
};
const CHECKS = {
  text: (c) => { const el = document.querySelector(c.selector);
                 return !!el && new RegExp(c.pattern).test(el.innerText); },
  plot: (c) => { const p = plot(c.selector);
                 return !!p && (p.data || []).filter((tr, i) => points(p, i).length).length >= c.traces; },
  below: (c) => {
    const p = plot(c.selector), re = new RegExp(c.line);
    const line = p ? (p.data || []).findIndex((tr) => re.test(tr.name || '')) : -1;
    if (line < 0) return false;
    const level = points(p, line)[0];
    return [0, 1].some((i) => { const ys = points(p, i); return ys.length && ys[ys.length - 1] < level; });
  },
  count: (c) => document.querySelectorAll(c.selector).length >= c.at_least,
};
const done = (s) => s.done.length > 0 && pressed && s.done.every((c) => CHECKS[c.kind](c));
const openTab = (tab) => {
  const button = document.querySelector(`.tab-container:not(.visually-hidden) button[data-tab-id="${tab}"]`);
  if (button && button.getAttribute('aria-selected') !== 'true') button.click();
};
const showMe = () => {
  const s = DATA.steps[index];
  if (s.tab) openTab(s.tab);
  setTimeout(() => { const el = target(); if (shown(el)) el.scrollIntoView({block: 'center', behavior: 'smooth'}); }, 150);
};
const button = (key, action, primary) => {
  const b = document.createElement('button');
  b.type = 'button'; b.className = 'tour-action' + (primary ? ' primary' : '');
  b.dataset.action = action; b.textContent = say(key);
  return b;
};
const render = () => {
  const s = DATA.steps[index], last = index === DATA.steps.length - 1;
  card.replaceChildren();
  const progress = document.createElement('div');
  progress.className = 'tour-progress';
  progress.textContent = say('tour_progress').replace('{n}', index + 1).replace('{total}', DATA.steps.length);
  const text = document.createElement('p');
  text.className = 'tour-text'; text.textContent = say('tour_' + s.name);
  const row = document.createElement('div');
  row.className = 'tour-buttons';
  if (s.done.length) {
    const wait = document.createElement('div');
    wait.className = 'tour-waiting'; wait.textContent = say('tour_waiting');
    card.append(progress, text, wait);
    if (s.target) row.append(button('tour_show_me', 'show', false));
    row.append(button('tour_skip_step', 'next', false));
  } else {
    card.append(progress, text);
    row.append(button(last ? 'tour_finish' : 'tour_next', last ? 'close' : 'next', true));
  }
  if (!last) row.append(button('tour_close', 'close', false));
  card.append(row);
  drawn = lang();
};
const place = () => {
  const el = target(), me = card.querySelector('[data-action=show]');
  const r = shown(el) && el.getBoundingClientRect(), pad = 6;
  if (me) me.hidden = !!r && r.bottom > 0 && r.top < window.innerHeight;  // in sight: no need
  if (!r) { ring.hidden = true; card.classList.remove('at-top'); return; }
  Object.assign(ring.style, {left: `${r.left - pad}px`, top: `${r.top - pad}px`,
                             width: `${r.width + 2 * pad}px`, height: `${r.height + 2 * pad}px`});
  ring.hidden = false;
  // the card at the bottom of the window, or at its top where it would cover the control
  card.classList.toggle('at-top', window.innerHeight - r.bottom < card.offsetHeight + 24);
};
const show = (i) => {
  if (i >= DATA.steps.length) return close();
  index = i; pressed = !DATA.steps[i].press;
  card.hidden = false; card.dataset.step = DATA.steps[i].name;
  render(); showMe(); place();
};
const close = () => {
  index = -1; card.hidden = true; ring.hidden = true;
  localStorage.setItem(DATA.seen_key, '1');
};
const open = () => { localStorage.setItem(DATA.seen_key, '1'); show(0); };
card.addEventListener('click', (event) => {
  const action = event.target.closest('button') && event.target.closest('button').dataset.action;
  if (action === 'next') show(index + 1);
  else if (action === 'close') close();
  else if (action === 'show') showMe();
});
const onPress = (event) => {  // capture: before the control's own handler
  const s = DATA.steps[index];
  if (s && s.target && event.target.closest && event.target.closest(s.target)) pressed = true;
};
document.addEventListener('click', onPress, true);
const timer = setInterval(() => {
  if (index < 0) return;
  if (drawn !== lang()) render();
  place();
  if (done(DATA.steps[index])) show(index + 1);
}, 300);
const stop = () => { clearInterval(timer); document.removeEventListener('click', onPress, true); return index; };
// drawn again (Gradio may mount the overlay anew): the old one stops, this one goes on
const before = window.playgroundTour ? window.playgroundTour.stop() : null;
window.playgroundTour = {open, close, stop, step: () => (index < 0 ? null : DATA.steps[index].name)};
const asked = new URLSearchParams(window.location.search).get('tour');
const first = DATA.auto && asked !== '0' && !localStorage.getItem(DATA.seen_key);
if (before !== null && before >= 0) show(before);
else if (before === null && (asked === '1' || first)) setTimeout(open, 1500);
"""

# Readable in light and dark mode (Gradio's own colours) and on a phone (the card spans the
# window's width); fixed to the window, above the page.
CSS = """
#tour .tour-ring {
  position: fixed; z-index: 1000; pointer-events: none; border-radius: 10px;
  /* amber: apart from the page's indigo buttons in light and dark mode alike */
  border: 3px solid #f59e0b; box-shadow: 0 0 0 5px rgba(245, 158, 11, 0.35);
  transition: all 0.2s ease;
}
#tour .tour-card {
  position: fixed; z-index: 1001; right: 16px; bottom: 16px; width: min(380px, calc(100vw - 32px));
  padding: 14px 16px; border-radius: 12px; border: 1px solid var(--border-color-primary);
  background: var(--background-fill-primary); color: var(--body-text-color);
  box-shadow: 0 10px 30px rgba(0, 0, 0, 0.25); font-size: var(--text-md); line-height: 1.45;
}
#tour .tour-card.at-top { bottom: auto; top: 16px; }
#tour [hidden] { display: none !important; }
#tour .tour-progress { font-size: var(--text-sm); color: var(--body-text-color-subdued); }
#tour .tour-text { margin: 6px 0 8px; }
#tour .tour-waiting { font-size: var(--text-sm); color: var(--body-text-color-subdued); margin-bottom: 8px; }
#tour .tour-buttons { display: flex; flex-wrap: wrap; gap: 8px; }
#tour .tour-action {
  padding: 6px 12px; border-radius: 8px; cursor: pointer; font-size: var(--text-sm);
  border: 1px solid var(--border-color-primary); background: var(--button-secondary-background-fill);
  color: var(--button-secondary-text-color);
}
#tour .tour-action.primary {
  background: var(--button-primary-background-fill); color: var(--button-primary-text-color);
  border-color: var(--button-primary-border-color);
}
@media (max-width: 640px) {
  #tour .tour-card { left: 8px; right: 8px; bottom: 8px; width: auto; font-size: var(--text-sm); }
  #tour .tour-card.at-top { top: 8px; }
}
"""


def button() -> gr.Button:
    """The header's Tour button: it (re)opens the tour from its first step."""
    tour_button = gr.Button(tr("tour_button"), elem_id="tour-button", size="sm", scale=0,
                            min_width=80, variant="secondary")
    tour_button.click(None, js="() => { window.playgroundTour && window.playgroundTour.open(); }")
    return tour_button


def overlay() -> gr.HTML:
    """The tour's card and ring, drawn over the page; the browser plays ``STEPS``."""
    markup = ('<div class="tour-ring" hidden></div>'
              '<div class="tour-card" hidden role="dialog" aria-live="polite"></div>')
    auto = hosting.current().tour_on_first_visit
    data = json.dumps(tour_data(auto), ensure_ascii=False).replace("</", "<\\/")
    return gr.HTML(markup, elem_id="tour", js_on_load=TOUR_JS.replace("__DATA__", data),
                   container=False, padding=False)
