"""How training is going, beside the loss: gradient norm, learning rate, throughput; the CSV.

Three curves from the step records, one above the other on the same step axis:

* the **gradient norm** of every step (``StepRecord.grad_norm``, measured before clipping),
  with the clipping threshold drawn and each clipped step marked: a spike is a step the
  optimiser would have taken too far;
* the **learning rate**, as planned by the settings (``train.lr_at`` over the whole run,
  drawn before Start too) and as the run followed it;
* **tokens per second**, the throughput of the steps (evaluations not counted).

``history_csv`` writes the records as a table a spreadsheet opens: one row per step or
evaluation.

>>> from playground.config import TrainConfig
>>> steps, lrs = planned_lr(TrainConfig(max_steps=100, lr=1e-3, min_lr=1e-4, warmup_steps=10))
>>> steps[:2], [round(v, 6) for v in lrs[:2]], round(lrs[-1], 6)
([1, 2], [9.1e-05, 0.000182], 0.0001)
"""

from __future__ import annotations

import csv
import io
import math
from typing import Iterable, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from playground.config import TrainConfig
from playground.i18n import t
from playground.plots import MAX_POINTS, TEMPLATE, downsample
from playground.train import EndRecord, EvalRecord, Record, StepRecord, lr_at

CSV_COLUMNS = ("kind", "step", "tokens", "elapsed", "loss", "lr", "grad_norm", "tokens_per_s",
               "train_loss", "val_loss", "train_bpc", "val_bpc")


def planned_lr(config: TrainConfig, max_points: int = MAX_POINTS) -> tuple[list[int], list[float]]:
    """(steps, learning rates): the rate each step 1..max_steps will use, as ``lr_at`` plans it
    (step s starts with s - 1 updates done, as ``StepRecord.lr`` records it); evenly thinned
    to at most ``max_points`` steps, the last one always kept."""
    n = config.max_steps
    every = max(1, math.ceil(n / max_points))
    steps = list(range(1, n + 1, every))
    if steps[-1] != n:
        steps.append(n)
    return steps, [lr_at(s - 1, config) for s in steps]


def clipped(history: Iterable[Record], grad_clip: float) -> list[StepRecord]:
    """The steps whose gradients were clipped: norm above ``grad_clip`` (0: clipping off).

    >>> recs = [StepRecord(1, 64, 4.0, 1e-3, 900.0, 0.1, grad_norm=2.5),
    ...         StepRecord(2, 128, 3.9, 1e-3, 900.0, 0.2, grad_norm=0.4)]
    >>> [r.step for r in clipped(recs, 1.0)], clipped(recs, 0.0)
    ([1], [])
    """
    if grad_clip <= 0:
        return []
    return [r for r in history if isinstance(r, StepRecord) and r.grad_norm is not None
            and r.grad_norm > grad_clip]


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def health_figure(history: Sequence[Record], config: TrainConfig | None = None,
                  lang: str = "en") -> go.Figure:
    """Gradient norm, learning rate and tokens per second against the step, in three rows.

    ``config`` (the settings) draws the planned schedule and the clipping threshold; the
    records draw what the run did. Without records, only the plan shows.
    """
    steps = [r for r in history if isinstance(r, StepRecord)]
    xs = [r.step for r in steps]
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.07,
                        subplot_titles=[t("gradient norm (before clipping)", lang),
                                        t("learning rate", lang), t("tokens per second", lang)])
    norm_x, norm_y = downsample(xs, [_finite(r.grad_norm) for r in steps])
    fig.add_trace(go.Scatter(x=norm_x, y=norm_y, name=t("gradient norm", lang), mode="lines",
                             line=dict(color="#2563eb", width=1.5)), row=1, col=1)
    clip = config.grad_clip if config is not None else 0.0
    if clip > 0:
        span = [1, max(xs[-1] if xs else 1, config.max_steps)]
        fig.add_trace(go.Scatter(x=span, y=[clip, clip], mode="lines", hoverinfo="name",
                                 name=t("clipping threshold (grad_clip {clip})", lang,
                                        clip=f"{clip:g}"),
                                 line=dict(color="#6b7280", dash="dash", width=1)), row=1, col=1)
        events = clipped(steps, clip)
        shown = events[:: max(1, math.ceil(len(events) / MAX_POINTS))]
        fig.add_trace(go.Scatter(
            x=[r.step for r in shown], y=[r.grad_norm for r in shown], mode="markers",
            name=t("clipped: {n} of {total} steps", lang, n=f"{len(events):,}",
                   total=f"{len(steps):,}"),
            marker=dict(color="#dc2626", size=6, symbol="x")), row=1, col=1)
    if config is not None:
        plan_x, plan_y = planned_lr(config)
        fig.add_trace(go.Scatter(x=plan_x, y=plan_y, name=t("planned", lang), mode="lines",
                                 line=dict(color="#9ca3af", width=6)), row=2, col=1)  # wide: visible under the run's
    lr_x, lr_y = downsample(xs, [r.lr for r in steps])
    fig.add_trace(go.Scatter(x=lr_x, y=lr_y, name=t("followed", lang), mode="lines",
                             line=dict(color="#ea580c", width=2)), row=2, col=1)
    speed_x, speed_y = downsample(xs, [_finite(r.tokens_per_s) for r in steps])
    fig.add_trace(go.Scatter(x=speed_x, y=speed_y, name=t("tokens/s", lang), mode="lines",
                             line=dict(color="#16a34a", width=1.5)), row=3, col=1)
    fig.update_xaxes(title_text=t("step", lang), row=3, col=1)
    fig.update_yaxes(tickformat=".1e", row=2, col=1)
    fig.update_layout(template=TEMPLATE, height=560, uirevision="health",
                      margin=dict(l=60, r=20, t=40, b=50), hovermode="x unified",
                      legend=dict(orientation="h", yanchor="top", y=-0.12, x=0))
    return fig


def history_csv(history: Iterable[Record]) -> str:
    """The step and evaluation records as CSV, one row each in order (end records and sample
    texts left out); a field a record does not have stays empty.

    >>> print(history_csv([StepRecord(1, 64, 4.2, 1e-3, 900.0, 0.1, 0.8)]).strip())
    kind,step,tokens,elapsed,loss,lr,grad_norm,tokens_per_s,train_loss,val_loss,train_bpc,val_bpc
    step,1,64,0.1,4.2,0.001,0.8,900.0,,,,
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in history:
        if isinstance(record, EndRecord) or not isinstance(record, (StepRecord, EvalRecord)):
            continue
        values = {"kind": record.kind, **{name: getattr(record, name, None)
                                          for name in CSV_COLUMNS[1:]}}
        writer.writerow(["" if values[name] is None else values[name] for name in CSV_COLUMNS])
    return out.getvalue()
