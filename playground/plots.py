"""Pure functions from training records, attention weights and token strings to figures.

Nothing here imports Gradio: the app, the CLI and notebooks draw the same figures, and the
tests read the traces back. Every figure is plain ``plotly.graph_objects`` that plotly.js 3
(the version Gradio bundles) understands: ``Scatter``, ``Heatmap`` and ``Bar`` only.

>>> from playground.train import EvalRecord, StepRecord
>>> history = [StepRecord(1, 64, 4.2, 1e-3, 900.0, 0.1), StepRecord(2, 128, 3.9, 1e-3, 900.0, 0.2),
...            EvalRecord(2, 128, 3.8, 4.0, 5.5, 5.8, 0.3)]
>>> fig = loss_figure(history)
>>> [trace.name for trace in fig.data]
['train', 'validation']
>>> list(fig.data[0].y), list(fig.data[1].y)
([4.2, 3.9], [4.0])
"""

from __future__ import annotations

import html
import math
from typing import Any, Iterable, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from playground.i18n import localize, msg, t
from playground.train import EvalRecord, Record, StepRecord

# A small template of our own: plotly's named templates are large, and plotly deep-copies
# the template into every figure, which was most of the cost of a live loss-plot update.
# Transparent backgrounds and a grey grid that reads on light and dark pages alike: the figure
# follows the page (the page's CSS turns its words light in dark mode).
TEMPLATE = go.layout.Template(layout=dict(
    paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)", font=dict(color="#1f2937"),
    xaxis=dict(gridcolor="rgba(128,128,128,0.25)", zeroline=False,
               linecolor="rgba(128,128,128,0.5)"),
    yaxis=dict(gridcolor="rgba(128,128,128,0.25)", zeroline=False,
               linecolor="rgba(128,128,128,0.5)"),
))
MAX_POINTS = 1500  # a figure is sent whole on every update: ~1500 points is ~40 KB of JSON
MAX_TICK_LABELS = 64  # beyond this the axis labels overlap; every k-th is shown instead
# the attention heatmap, readable on a projector: 14 px labels 16 px apart, and at most
# 720 px tall, so the grid of all heads fits beside it on a 900 px screen
ATTENTION_FONT, ATTENTION_ROW_PX, ATTENTION_MAX_PX = 14, 16, 720
WHITESPACE_COLOUR = "#c2410c"  # ␣ ↵ ⇥ on the attention axes: orange, apart from the letters
WHITESPACE_SYMBOLS = {" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"}
TOKEN_COLOURS = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fecaca", "#ddd6fe", "#fed7aa")
COPY_MARK, COPY_MARK_TEXT = "#fecaca", "#111827"  # a copied span: dark text on light red

X_AXES = {"step": msg("step"), "tokens": msg("tokens seen"),
          "elapsed": msg("seconds")}  # the x axes, and their titles


# --- records ------------------------------------------------------------------------------

def _finite_or_none(value: Any) -> float | None:
    """Losses that are NaN or infinite become gaps in the curve instead of breaking the axis."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def downsample(xs: Sequence[float], ys: Sequence[float | None], max_points: int = MAX_POINTS):
    """At most ``max_points`` points: contiguous buckets, each drawn at its last x with its mean y.

    The mean smooths the noisy per-step loss the way a reader's eye does; the last x keeps the
    curve ending exactly at the latest step.

    >>> downsample([1, 2, 3, 4, 5], [1.0, 3.0, 5.0, 7.0, 9.0], max_points=2)
    ([3, 5], [3.0, 8.0])
    """
    n = len(xs)
    if n <= max_points:
        return list(xs), list(ys)
    # bucket boundaries as np.array_split draws them; one vectorised pass, since this runs
    # several times a second during training over thousands of records
    sizes = np.full(max_points, n // max_points)
    sizes[: n % max_points] += 1
    ends = np.cumsum(sizes)
    starts = ends - sizes
    values = np.array([np.nan if y is None else y for y in ys], dtype=np.float64)
    present = ~np.isnan(values)
    sums = np.add.reduceat(np.where(present, values, 0.0), starts)
    counts = np.add.reduceat(present.astype(np.int64), starts)
    out_x = [xs[i - 1] for i in ends.tolist()]
    out_y = [float(s_) / c if c else None for s_, c in zip(sums.tolist(), counts.tolist())]
    return out_x, out_y


def loss_figure(history: Iterable[Record], x: str = "step", max_points: int = MAX_POINTS,
                references: Sequence[Any] = (), lang: str = "en") -> go.Figure:
    """Train loss at every step and validation loss at every evaluation, against ``x``.

    ``history`` holds the training records (``train.Record``): step records give the train
    curve, evaluation records the validation curve; end records are ignored. Without
    step records (a bundle that kept only evaluations) the train curve uses the evaluations'
    ``train_loss``. ``x`` is ``"step"``, ``"tokens"`` or ``"elapsed"``. ``references`` are
    horizontal levels drawn as dashed lines after the two curves: ``(label, value)`` pairs
    or objects with ``.label`` and ``.value`` (``reference.ReferenceLine``). The figure's
    own words (axis titles, trace names) are in ``lang`` ("en" or "zh-CN"). A toy task's
    evaluations also carry their held-out accuracy, drawn on a second axis at the right
    (``add_accuracy``).

    >>> steps = [StepRecord(s, 64 * s, 5.0 - s / 100, 1e-3, 900.0, s / 10) for s in range(1, 5001)]
    >>> fig = loss_figure(steps)
    >>> len(fig.data[0].x), fig.data[0].x[-1]
    (1500, 5000)
    >>> fig = loss_figure([steps[0], steps[8]], references=[("ln 65", 4.17)])
    >>> fig.data[2].name, list(fig.data[2].x), list(fig.data[2].y)
    ('ln 65', [1, 9], [4.17, 4.17])
    >>> [trace.name for trace in loss_figure([], lang="zh-CN").data]
    ['训练', '验证']
    """
    if x not in X_AXES:
        raise ValueError(f"x must be one of {', '.join(X_AXES)}, got {x!r}.")
    steps = [r for r in history if isinstance(r, StepRecord)]
    evals = [r for r in history if isinstance(r, EvalRecord)]
    if steps:
        train_x, train_y = [getattr(r, x) for r in steps], [_finite_or_none(r.loss) for r in steps]
    else:
        train_x = [getattr(r, x) for r in evals]
        train_y = [_finite_or_none(r.train_loss) for r in evals]
    train_x, train_y = downsample(train_x, train_y, max_points)
    val_x, val_y = downsample([getattr(r, x) for r in evals],
                              [_finite_or_none(r.val_loss) for r in evals], max_points)

    fig = go.Figure()
    fig.add_trace(go.Scatter(x=train_x, y=train_y, name=t("train", lang), mode="lines",
                             line=dict(color="#2563eb", width=1.5)))
    fig.add_trace(go.Scatter(x=val_x, y=val_y, name=t("validation", lang), mode="lines+markers",
                             line=dict(color="#ea580c", width=2), marker=dict(size=7)))
    fig.update_layout(
        template=TEMPLATE,
        uirevision="loss",  # constant: plotly.js keeps the reader's zoom while points arrive
        xaxis_title=localize(X_AXES[x], lang), yaxis_title=t("loss (cross-entropy, nats)", lang),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1),
        margin=dict(l=60, r=20, t=40, b=50), height=360,
        hovermode="x unified",
    )
    add_accuracy(fig, [(t("held-out accuracy", lang), [getattr(r, x) for r in evals],
                        [r.accuracy for r in evals])], lang)
    add_reference_lines(fig, references, [*train_x, *val_x])
    if not train_x and not val_x:
        fig.add_annotation(text=t("The loss curve appears here once training starts.", lang),
                           showarrow=False, font=dict(size=14, color="#6b7280"),
                           xref="paper", yref="paper", x=0.5, y=0.5)
        fig.update_xaxes(range=[0, 1], showticklabels=False)
        fig.update_yaxes(range=[0, 1], showticklabels=False)
    return fig


ACCURACY_COLOUR = "#16a34a"


def add_accuracy(fig: go.Figure, curves: Sequence[tuple[str, Sequence[float], Sequence[Any]]],
                 lang: str = "en") -> go.Figure:
    """Accuracy curves ``(name, xs, accuracies)`` on a second y axis (0 to 100%) at the right,
    dotted; points without an accuracy (None: not a toy task) are left out, and a curve with
    none at all is not drawn.

    >>> from playground.train import EvalRecord
    >>> fig = loss_figure([EvalRecord(0, 0, 3.0, 3.0, 4.0, 4.0, 0.1, None, 0.0),
    ...                    EvalRecord(9, 9, 1.0, 1.0, 1.4, 1.4, 0.9, None, 0.75)])
    >>> fig.data[2].name, list(fig.data[2].y), fig.data[2].yaxis, fig.layout.yaxis2.range
    ('held-out accuracy', [0.0, 0.75], 'y2', (0, 1.02))
    """
    drawn = False
    for name, xs, ys in curves:
        points = [(a, b) for a, b in zip(xs, ys) if b is not None]
        if not points:
            continue
        fig.add_trace(go.Scatter(
            x=[a for a, _ in points], y=[b for _, b in points], name=name, yaxis="y2",
            mode="lines+markers", marker=dict(size=6),
            line=dict(dash="dot", width=2, **({"color": ACCURACY_COLOUR} if len(curves) == 1 else {}))))
        drawn = True
    if drawn:
        fig.update_layout(yaxis2=dict(title=dict(text=t("accuracy", lang)), overlaying="y",
                                      side="right", range=[0, 1.02], tickformat=".0%",
                                      showgrid=False))
        fig.update_layout(margin=dict(r=60))
    return fig


REFERENCE_COLOURS = ("#6b7280", "#16a34a", "#9333ea", "#db2777")


def _label_value(reference: Any) -> tuple[str, float]:
    if isinstance(reference, (tuple, list)):
        return str(reference[0]), float(reference[1])
    return str(reference.label), float(reference.value)


def add_reference_lines(fig: go.Figure, references: Sequence[Any], xs: Sequence[float]) -> go.Figure:
    """Dashed horizontal lines, one trace each, across the x range of ``xs`` ([0, 1] if empty).

    Traces rather than layout shapes: each gets a legend entry the reader can click away.
    """
    finite = [v for v in xs if v is not None]
    span = [min(finite), max(finite)] if finite else [0, 1]
    for i, reference in enumerate(references):
        label, value = _label_value(reference)
        fig.add_trace(go.Scatter(
            x=span, y=[value, value], name=label, mode="lines", hoverinfo="name",
            line=dict(color=REFERENCE_COLOURS[i % len(REFERENCE_COLOURS)], width=1.5, dash="dash")))
    return fig


def compare_figure(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]],
                   unit: str = "loss", x: str = "step", references: Sequence[Any] = (),
                   lang: str = "en", accuracy: Sequence[tuple[str, Sequence[float], Sequence[Any]]] = ()
                   ) -> go.Figure:
    """Validation curves of several runs overlaid: one trace per ``(name, xs, ys)``.

    ``unit`` is "loss" (nats per token) or "bpc" (bits per character), for the y axis title;
    the titles and the note shown without curves are in ``lang``. ``accuracy`` holds toy
    tasks' held-out accuracy curves, the same way, dotted on a second axis (``add_accuracy``).

    >>> fig = compare_figure([("run 1", [0, 10], [4.2, 3.1]), ("run 2", [0, 10], [4.2, 2.9])])
    >>> [t.name for t in fig.data], list(fig.data[1].y), fig.layout.yaxis.title.text
    (['run 1', 'run 2'], [4.2, 2.9], 'validation loss (nats per token)')
    """
    if x not in X_AXES:
        raise ValueError(f"x must be one of {', '.join(X_AXES)}, got {x!r}.")
    fig = go.Figure()
    all_x: list[float] = []
    for name, xs, ys in curves:
        fig.add_trace(go.Scatter(x=list(xs), y=[_finite_or_none(y) for y in ys], name=name,
                                 mode="lines+markers", marker=dict(size=6)))
        all_x += list(xs)
    add_accuracy(fig, [(t("{run}: accuracy", lang, run=name), xs, ys) for name, xs, ys in accuracy],
                 lang)
    add_reference_lines(fig, references, all_x)
    y_title = t("validation bits per character"
                if unit == "bpc" else
                "validation loss (nats per token)", lang)
    fig.update_layout(
        template=TEMPLATE, xaxis_title=localize(X_AXES[x], lang), yaxis_title=y_title, height=400,
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1),
        margin=dict(l=60, r=20, t=40, b=50), hovermode="x unified")
    if not curves:
        fig.add_annotation(text=t("Select two or more runs to compare their validation curves.",
                                  lang),
                           showarrow=False, font=dict(size=14, color="#6b7280"),
                           xref="paper", yref="paper", x=0.5, y=0.5)
        fig.update_xaxes(showticklabels=False)
        fig.update_yaxes(showticklabels=False)
    return fig


# --- tokens -------------------------------------------------------------------------------

def display_token(token: str, max_chars: int = 12) -> str:
    """A token as a visible label: whitespace becomes symbols, long tokens are cut.

    >>> display_token(" the\\n")
    '␣the⏎'
    >>> display_token("abcdefghijklmnop", max_chars=6)
    'abcde…'
    """
    shown = "".join(WHITESPACE_SYMBOLS.get(c, c if c.isprintable() else "�") for c in token)
    return shown if len(shown) <= max_chars else shown[: max_chars - 1] + "…"


def _tick_label(token: str, max_chars: int = 8) -> str:
    """A token for an attention axis or hover: ``display_token`` with its whitespace drawn
    larger and in a colour of its own, so a space (␣) or a line break (↵) never reads as a
    letter. (↵ rather than ⏎: the fonts a browser falls back on draw ⏎ small and odd.)
    Plotly's text takes a little HTML, hence the escaping.

    >>> _tick_label(" a")
    '<span style="color:#c2410c; font-size:1.4em; font-weight:bold">␣</span>a'
    """
    shown = html.escape(display_token(token, max_chars).replace("⏎", "↵"), quote=False)
    for symbol in ("␣", "↵", "⇥", "␍"):
        shown = shown.replace(symbol, f'<span style="color:{WHITESPACE_COLOUR}; font-size:1.4em; '
                                      f'font-weight:bold">{symbol}</span>')
    return shown


def _tick_labels(tokens: Sequence[str], max_labels: int = MAX_TICK_LABELS,
                 size: int = 10) -> dict:
    """Axis ticks at integer positions, so repeated tokens keep their own row and column.

    Plotly treats string coordinates as categories and merges equal ones (plotly.js#1516):
    every "e" would collapse into one column. Positions with tick text avoid that. Beyond
    ``max_labels`` tokens every k-th is labelled (the hover names every one).
    """
    T = len(tokens)
    every = max(1, math.ceil(T / max_labels))
    positions = list(range(0, T, every))
    return dict(tickmode="array", tickvals=positions,
                ticktext=[_tick_label(tokens[i]) for i in positions], tickfont=dict(size=size))


def _check_square(weights: np.ndarray, tokens: Sequence[str], where: str) -> None:
    T = len(tokens)
    if weights.shape[-2:] != (T, T):
        raise ValueError(f"{where}: weights of shape {weights.shape} do not match {T} tokens.")


def _causal(weights: np.ndarray) -> np.ndarray:
    """Float32 copy with the masked upper triangle as NaN, which plotly draws as a gap."""
    T = weights.shape[-1]
    out = np.array(weights, dtype=np.float32)
    out[..., ~np.tril(np.ones((T, T), dtype=bool))] = np.nan
    return out


def attention_figure(weights: np.ndarray, tokens: Sequence[str], title: str = "",
                     lang: str = "en", marks: Sequence[tuple[int, int]] = ()) -> go.Figure:
    """One head's attention as a heatmap: row = the token looking (query), column = looked at.

    ``weights`` is (T, T) with rows summing to 1; ``tokens`` the T display strings. Sized to
    be read from the back of a room: labels of ``ATTENTION_FONT`` px, one per row and column
    up to ``ATTENTION_ROW_PX`` px apart (every k-th beyond), upright when the tokens are
    single characters, and at most ``ATTENTION_MAX_PX`` tall, so the grid of every head fits
    beside it. The hover names both tokens and the weight; axis titles and hover in ``lang``.
    ``marks`` are (query, key) cells outlined in white: where a toy task's answer should look.

    >>> fig = attention_figure(np.array([[1.0, 0.0], [0.3, 0.7]]), ["a", "a"])
    >>> fig.layout.xaxis.ticktext, fig.layout.yaxis.autorange, fig.layout.xaxis.tickangle
    (('a', 'a'), 'reversed', 0)
    """
    weights = np.asarray(weights)
    _check_square(weights, tokens, "attention_figure")
    T = len(tokens)
    labels = [_tick_label(t, 16) for t in tokens]
    # customdata[i][j] = (query label, key label): one short pair per cell, read by the hover
    customdata = [[(labels[i], labels[j]) for j in range(T)] for i in range(T)]
    fig = go.Figure(go.Heatmap(
        z=_causal(weights), x=list(range(T)), y=list(range(T)), customdata=customdata,
        colorscale="Viridis", zmin=0.0, zmax=float(np.nanmax(weights)) if T else 1.0,
        colorbar=dict(title=dict(text=t("weight", lang)), thickness=14),
        # %{x} and %{y} would show the tick text again, so the hover names the tokens only
        hovertemplate=(t("“{query}” looks at “{target}”",
                         lang, query="%{customdata[0]}", target="%{customdata[1]}")
                       + "<br>" + t("weight {value}", lang, value="%{z:.3f}") + "<extra></extra>"),
    ))
    if marks:
        fig.add_trace(go.Scatter(
            x=[k for _, k in marks], y=[q for q, _ in marks], mode="markers", hoverinfo="skip",
            name=t("expected", lang), showlegend=False,
            marker=dict(symbol="square-open", size=ATTENTION_ROW_PX, color="white",
                        line=dict(width=2))))
    upright = all(len(display_token(tok, 8)) <= 2 for tok in tokens)
    margin = dict(l=70 if upright else 100, r=10, t=50 if title else 20, b=70 if upright else 110)
    side = min(ATTENTION_MAX_PX, max(380, ATTENTION_ROW_PX * T + margin["t"] + margin["b"]))
    rows_px = side - margin["t"] - margin["b"]
    ticks = _tick_labels(tokens, max(1, rows_px // ATTENTION_ROW_PX), ATTENTION_FONT)
    fig.update_layout(
        template=TEMPLATE, title=dict(text=title), height=side, margin=margin,
        xaxis=dict(title=dict(text=t("key (token attended to)", lang)),
                   tickangle=0 if upright else -60, **ticks),
        yaxis=dict(title=dict(text=t("query (token attending)",
                                     lang)), autorange="reversed", **ticks),
    )
    return fig


def attention_grid_figure(weights: np.ndarray, tokens: Sequence[str], cols: int = 2,
                          title: str = "", lang: str = "en",
                          notes: Sequence[str] | None = None) -> go.Figure:
    """Every head of one layer side by side, sharing one colour scale.

    ``weights`` is (n_head, T, T); ``notes`` an optional line per head for its title (what
    it mostly looks at). The hover names the two tokens, as the single head's does; short
    texts (up to 16 tokens) label the axes too. Titles and hover are in ``lang``.

    >>> fig = attention_grid_figure(np.ones((3, 2, 2)) / 2, ["a", "b"], cols=2, notes=["", "x", ""])
    >>> len(fig.data), fig.data[0].coloraxis, [a.text for a in fig.layout.annotations]
    (3, 'coloraxis', ['head 0', 'head 1<br>x', 'head 2'])
    """
    weights = np.asarray(weights)
    _check_square(weights, tokens, "attention_grid_figure")
    n_head, T = weights.shape[0], len(tokens)
    cols = max(1, min(cols, n_head))
    rows = math.ceil(n_head / cols)
    heads = [t("head {n}", lang, n=h) for h in range(n_head)]
    notes = list(notes or [""] * n_head)
    # the note on a line of its own: a phone's narrow subplots cannot hold both on one
    titles = [f"{head}<br>{note}" if note else head for head, note in zip(heads, notes)]
    labels = [_tick_label(tok, 16) for tok in tokens]
    customdata = [[(labels[i], labels[j]) for j in range(T)] for i in range(T)]  # as one head's
    hover = "<br>".join([t("“{query}” looks at “{target}”", lang, query="%{customdata[0]}",
                           target="%{customdata[1]}"),
                         t("weight {value}", lang, value="%{z:.3f}")])
    # the gaps between rows shrink as rows come (Plotly refuses a gap over 1 / (rows - 1))
    spacing = min(0.16, 0.5 / (rows - 1)) if rows > 1 else 0.08
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles,
                        horizontal_spacing=0.06, vertical_spacing=spacing)
    z = _causal(weights)
    for h in range(n_head):
        fig.add_trace(go.Heatmap(
            z=z[h], x=list(range(T)), y=list(range(T)), coloraxis="coloraxis",
            customdata=customdata, hovertemplate=f"{heads[h]}<br>{hover}<extra></extra>",
        ), row=h // cols + 1, col=h % cols + 1)
    ticks = _tick_labels(tokens, size=11) if T <= 16 else dict(showticklabels=False)
    fig.update_xaxes(**ticks)
    fig.update_yaxes(autorange="reversed", **ticks)
    fig.update_annotations(font=dict(size=13))
    fig.update_layout(
        template=TEMPLATE, title=dict(text=title),
        coloraxis=dict(colorscale="Viridis", cmin=0.0, colorbar=dict(thickness=10),
                       cmax=float(np.nanmax(weights)) if weights.size else 1.0),
        height=min(ATTENTION_MAX_PX, 230 * rows + 100), margin=dict(l=20, r=20, t=80, b=20),
    )
    return fig


def next_token_figure(top: Sequence[tuple[str, float]], title: str = "",
                      lang: str = "en") -> go.Figure:
    """The most likely next tokens as horizontal bars, the likeliest on top.

    ``top`` is [(token string, probability)], highest first, as ``generate`` reports it; the
    axis title is in ``lang``.

    >>> fig = next_token_figure([(" ", 0.5), ("e", 0.3)])
    >>> list(fig.data[0].x), fig.layout.yaxis.ticktext
    ([0.5, 0.3], ('␣', 'e'))
    """
    labels = [display_token(tok, 16) for tok, _ in top]
    probs = [float(p) for _, p in top]
    positions = list(range(len(top)))  # integer rows: two tokens that display alike stay two bars
    fig = go.Figure(go.Bar(
        x=probs, y=positions, orientation="h", marker=dict(color="#2563eb"),
        text=[f"{p:.1%}" for p in probs], textposition="auto",
        customdata=labels, hovertemplate="“%{customdata}”: %{x:.2%}<extra></extra>",
    ))
    fig.update_layout(
        template=TEMPLATE, title=dict(text=title), height=max(220, 32 * len(top) + 80),
        xaxis=dict(title=dict(text=t("probability", lang)),
                   range=[0, max(probs, default=1.0) * 1.1]),
        yaxis=dict(tickmode="array", tickvals=positions, ticktext=labels, autorange="reversed"),
        margin=dict(l=90, r=20, t=40 if title else 20, b=50),
    )
    return fig


def token_html(tokens: Sequence[str], max_tokens: int = 400, lang: str = "en") -> str:
    """The text cut into its tokens as coloured, HTML-escaped spans (colours alternate).

    Newlines stay line breaks (with a ⏎ mark so the token is visible); spaces keep their
    width inside the coloured box. Past ``max_tokens`` a note says how many were left out.
    The tooltips ("token 3") and that note are in ``lang``.

    >>> token_html(["<b>", " x"])
    '<div class="token-view" style="font-family: monospace; white-space: pre-wrap; line-height: 1.9;"><span title="token 0" style="background:#fde68a; border-radius:3px; padding:1px 0;">&lt;b&gt;</span><span title="token 1" style="background:#bfdbfe; border-radius:3px; padding:1px 0;"> x</span></div>'
    """
    spans = []
    for i, tok in enumerate(tokens[:max_tokens]):
        text = html.escape(tok).replace("\n", "⏎\n").replace("\t", "⇥\t")
        colour = TOKEN_COLOURS[i % len(TOKEN_COLOURS)]
        tip = html.escape(t("token {n}", lang, n=i))
        spans.append(f'<span title="{tip}" style="background:{colour}; border-radius:3px; '
                     f'padding:1px 0;">{text}</span>')
    more = len(tokens) - max_tokens
    if more > 0:
        note = html.escape(t("… and {n} more tokens", lang, n=f"{more:,}"))
        spans.append(f'<span style="color:#6b7280;"> {note}</span>')
    return ('<div class="token-view" style="font-family: monospace; white-space: pre-wrap; '
            'line-height: 1.9;">' + "".join(spans) + "</div>")


def highlight_html(text: str, spans: Sequence[tuple[int, int]], title: str = "",
                   prompt_chars: int = 0, writing: bool = False) -> str:
    """``text`` as escaped HTML with the ``[start, end)`` character spans marked (sorted, apart).

    The Generate tab's one view of a generation: the first ``prompt_chars`` characters (the
    prompt) in bold, the spans the memorisation check found copied from the corpus marked
    (spans inside the prompt are not marked), and a cursor at the end while the model is still
    ``writing``. A mark sets its text colour as well as its background, so it reads the same on
    a light page and a dark one; the rest of the text takes the page's own colour.

    >>> highlight_html("Q: a <b> c", [(5, 8)], title="copied", prompt_chars=2)  # doctest: +ELLIPSIS
    '<div class="copy-view" ...><b class="prompt">Q:</b> a <mark title="copied" ...>&lt;b&gt;</mark> c</div>'
    """
    parts = [f'<b class="prompt">{html.escape(text[:prompt_chars])}</b>'] if prompt_chars else []
    last = prompt_chars
    for start, end in spans:
        start = max(start, last)
        if start >= end:
            continue
        parts.append(html.escape(text[last:start]))
        parts.append(f'<mark title="{html.escape(title)}" style="background:{COPY_MARK}; '
                     f'color:{COPY_MARK_TEXT}; padding:1px 0;">{html.escape(text[start:end])}</mark>')
        last = end
    parts.append(html.escape(text[last:]))
    if writing:
        parts.append('<span class="cursor" style="opacity:0.6;">▌</span>')
    return ('<div class="copy-view" style="font-family: var(--font-mono, monospace); '
            'white-space: pre-wrap; line-height: 1.6;">' + "".join(parts) + "</div>")
