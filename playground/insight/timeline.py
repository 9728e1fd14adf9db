"""What the model learned over time: the sample each evaluation wrote, side by side.

At every evaluation the trainer writes ``TrainConfig.sample_tokens`` tokens from the same
start (no prompt: the model begins after a newline) with the same seed (``TrainConfig.seed``,
in a generator of its own), so two samples differ only by the weights that wrote them. Read
in order, they show what the model learned between two evaluations: random characters, then
spaces and common letters, then words, then the shape of a play. ``sample_rows`` picks them
out of a run's records; ``timeline_html`` sets them in a table a class can read on a
projector (monospace, large, in the page's own colours, so dark mode too).

>>> from playground.train import EvalRecord, StepRecord
>>> history = [EvalRecord(0, 0, 4.2, 4.2, 6.0, 6.0, 0.1, "xq!Z"),
...            StepRecord(1, 64, 4.1, 1e-3, 900.0, 0.2),
...            EvalRecord(100, 6400, 2.5, 2.6, 3.6, 3.7, 9.0, "the king")]
>>> [(row.step, row.val_loss, row.sample) for row in sample_rows(history)]
[(0, 4.2, 'xq!Z'), (100, 2.6, 'the king')]
>>> page = timeline_html(sample_rows(history))
>>> page.count("<tr class="), "the king" in page
(2, True)
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Iterable

from playground.i18n import t
from playground.train import EvalRecord, Record

MONO = ("ui-monospace, SFMono-Regular, Menlo, Consolas, 'Noto Sans Mono CJK SC', "
        "'Liberation Mono', monospace")


@dataclass(frozen=True)
class SampleRow:
    """One evaluation that wrote a sample: when, how good the model was, what it wrote."""

    step: int
    val_loss: float
    sample: str


def sample_rows(history: Iterable[Record]) -> list[SampleRow]:
    """The evaluations of ``history`` that wrote a sample, in the order the run made them
    (a run, continued or stepped, never evaluates one step twice)."""
    return [SampleRow(r.step, r.val_loss, r.sample) for r in history
            if isinstance(r, EvalRecord) and r.sample]


def _loss(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else str(value)


def timeline_html(rows: list[SampleRow], lang: str = "en") -> str:
    """The samples as a table: step, validation loss, the text, one evaluation a row, the
    first at the top. Colours are the page theme's (``var(--...)``), so the table reads in
    light and dark mode; a phone scrolls it sideways rather than squeezing the text.

    >>> "步数" in timeline_html([SampleRow(0, 4.17, "abc")], "zh-CN")
    True
    """
    cell = "padding:8px 10px; border-bottom:1px solid var(--border-color-primary, #d1d5db);"
    number = f"{cell} text-align:right; white-space:nowrap; vertical-align:top;"
    head = (f'<th style="{cell} text-align:left; white-space:nowrap;">{t("Step", lang)}</th>'
            f'<th style="{cell} text-align:left; white-space:nowrap;">'
            f'{t("Validation loss", lang)}</th>'
            f'<th style="{cell} text-align:left; width:100%;">{t("What it wrote", lang)}</th>')
    body = "".join(
        f'<tr class="timeline-row" data-step="{row.step}">'
        f'<td style="{number}">{row.step:,}</td>'
        f'<td style="{number}">{_loss(row.val_loss)}</td>'
        f'<td style="{cell} vertical-align:top;"><div style="white-space:pre-wrap; '
        f'overflow-wrap:anywhere; min-width:10ch;">{html.escape(row.sample)}</div></td></tr>'
        for row in rows)
    return (f'<div class="sample-timeline" style="overflow-x:auto; max-width:100%;">'
            f'<table style="border-collapse:collapse; width:100%; font-family:{MONO}; '
            f'font-size:1.05rem; line-height:1.45; color:var(--body-text-color, inherit);">'
            f'<thead style="background:var(--background-fill-secondary, transparent);">'
            f'<tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')
