"""The figures are pure functions of records: read their traces back."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from playground import plots
from playground.plots import (attention_figure, attention_grid_figure, display_token, downsample,
                              loss_figure, next_token_figure, token_html)

from make_records import end, evaluation, step


def test_plots_import_no_gradio():
    """plots.py is core: importing it in a fresh interpreter leaves Gradio unloaded."""
    code = "import sys, playground.plots; print('gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(plots.__file__).parents[1])
    assert out.stdout.strip() == "False"


def test_loss_figure_splits_step_and_eval_records():
    history = [evaluation(0, 4.2, 4.3), step(1, 4.1), step(2, 3.9), evaluation(2, 3.8, 3.95),
               end(2, "done", "ok")]
    fig = loss_figure(history)
    train, val = fig.data
    assert (train.name, list(train.x), list(train.y)) == ("train", [1, 2], [4.1, 3.9])
    assert (val.name, list(val.x), list(val.y)) == ("validation", [0, 2], [4.3, 3.95])
    assert fig.layout.uirevision == "loss"
    by_tokens = loss_figure(history, x="tokens")
    assert list(by_tokens.data[0].x) == [64, 128]
    assert by_tokens.layout.xaxis.title.text == "tokens seen"


def test_loss_figure_without_step_records_uses_eval_train_loss():
    fig = loss_figure([evaluation(5, 2.5, 2.7)])
    assert list(fig.data[0].y) == [2.5] and list(fig.data[1].y) == [2.7]


def test_loss_figure_turns_nan_into_gaps_and_stays_valid_json():
    fig = loss_figure([step(1, 3.0), step(2, float("nan")), step(3, float("inf"))])
    assert list(fig.data[0].y) == [3.0, None, None]
    json.loads(fig.to_json())


def test_empty_loss_figure_says_what_will_appear():
    fig = loss_figure([])
    assert len(fig.data[0].x) == 0
    assert "appears here once training starts" in fig.layout.annotations[0].text


def test_loss_figure_rejects_an_unknown_axis():
    with pytest.raises(ValueError, match="x must be one of"):
        loss_figure([], x="epoch")


def test_downsample_keeps_the_last_point_and_bucket_means():
    xs = list(range(1, 10_001))
    ys = [float(x) for x in xs]
    out_x, out_y = downsample(xs, ys, max_points=1000)
    assert len(out_x) == 1000 and out_x[-1] == 10_000 and out_x[0] == 10
    assert out_y[0] == pytest.approx(5.5)  # mean of 1..10
    assert downsample([1, 2], [None, 3.0], max_points=1) == ([2], [3.0])


def test_long_history_is_downsampled():
    fig = loss_figure([step(s, 1.0) for s in range(1, 20_001)], max_points=500)
    assert len(fig.data[0].x) == 500 and fig.data[0].x[-1] == 20_000


def test_display_token_makes_whitespace_visible():
    assert display_token(" \n\t") == "␣⏎⇥"
    assert display_token("\x00") == "�"
    assert display_token("x" * 20, max_chars=5) == "xxxx…"


def test_attention_figure_keeps_repeated_tokens_apart():
    tokens = ["a", "b", "a", " "]
    w = np.tril(np.ones((4, 4)))
    w = w / w.sum(-1, keepdims=True)
    fig = attention_figure(w, tokens)
    heat = fig.data[0]
    assert isinstance(heat, go.Heatmap)
    assert list(heat.x) == [0, 1, 2, 3] and list(heat.y) == [0, 1, 2, 3]
    space = '<span style="color:#c2410c; font-size:1.4em; font-weight:bold">␣</span>'
    assert fig.layout.xaxis.ticktext == ("a", "b", "a", space)  # whitespace larger, in orange
    assert fig.layout.xaxis.tickvals == (0, 1, 2, 3)
    assert fig.layout.yaxis.autorange == "reversed"
    z = np.array(heat.z, dtype=float)
    assert math.isnan(z[0, 1]) and z[3, 0] == pytest.approx(0.25)  # masked future = gap
    assert list(heat.customdata[2][0]) == ["a", "a"] and list(heat.customdata[3][1]) == [space, "b"]
    assert heat.hovertemplate.startswith("“%{customdata[0]}” looks at “%{customdata[1]}”")


def test_attention_figure_checks_shapes():
    with pytest.raises(ValueError, match="do not match 3 tokens"):
        attention_figure(np.ones((2, 2)), ["a", "b", "c"])


def test_many_tokens_get_every_kth_tick():
    """At most 720 px tall: 130 rows share 630 px (after the margins), a label every 16 px at
    most, so every 4th row is labelled; 32 rows get one label each."""
    T = 130
    fig = attention_figure(np.full((T, T), 1 / T), ["x"] * T)
    assert fig.layout.height == 720 and fig.layout.xaxis.tickvals == tuple(range(0, T, 4))
    fig = attention_figure(np.full((32, 32), 1 / 32), ["x"] * 32)
    assert fig.layout.xaxis.tickvals == tuple(range(32)) and fig.layout.xaxis.tickfont.size == 14
    long = attention_figure(np.full((3, 3), 1 / 3), [" the", " cat", "s"])
    assert long.layout.xaxis.tickangle == -60  # BPE tokens: slanted, so they do not overlap


def test_attention_grid_shares_one_colour_scale():
    w = np.random.default_rng(0).random((6, 5, 5))
    fig = attention_grid_figure(w, list("hello"), cols=4)
    assert len(fig.data) == 6
    assert {t.coloraxis for t in fig.data} == {"coloraxis"}
    assert fig.layout.coloraxis.cmax == pytest.approx(float(w.max()))
    assert [a.text for a in fig.layout.annotations][:6] == [f"head {h}" for h in range(6)]
    assert fig.layout.height == 230 * 2 + 100  # two rows of four


@pytest.mark.parametrize("n_head", [16, 17, 64])
def test_attention_grid_draws_many_heads(n_head):
    """16 heads in two columns are 8 rows: Plotly refused the fixed gap between them ("Vertical
    spacing cannot be greater than (1 / (rows - 1))") and the page said so instead of drawing."""
    fig = attention_grid_figure(np.full((n_head, 3, 3), 1 / 3), list("abc"), cols=2)
    assert len(fig.data) == n_head
    tops = sorted({round(fig.layout[f"yaxis{h + 1 if h else ''}"].domain[1], 6)
                   for h in range(n_head)})
    assert len(tops) == -(-n_head // 2) and tops[0] > 0  # every row has its own band


def test_next_token_figure_bars_in_order():
    fig = next_token_figure([("e", 0.5), (" ", 0.2), ("e", 0.1)])
    bar = fig.data[0]
    assert list(bar.x) == [0.5, 0.2, 0.1] and list(bar.y) == [0, 1, 2]
    assert fig.layout.yaxis.ticktext == ("e", "␣", "e")
    assert list(bar.text) == ["50.0%", "20.0%", "10.0%"]


def test_token_html_escapes_and_marks_newlines():
    out = token_html(["<b>", "\n", "&"])
    assert "<b>" not in out.replace('<div class="token-view"', "")
    assert "&lt;b&gt;" in out and "⏎\n" in out and "&amp;" in out
    assert out.count("<span title=") == 3


def test_token_html_caps_the_number_of_spans():
    out = token_html(["a"] * 10, max_tokens=4)
    assert out.count('<span title="token') == 4 and "and 6 more tokens" in out


# --- the page's language ------------------------------------------------------------------

def _figure_words(fig: go.Figure) -> list[str]:
    """Every word a figure shows that the server wrote: trace names, titles, annotations, hovers."""
    layout = fig.layout
    words = [trace.name for trace in fig.data if trace.name]
    words += [getattr(trace, "hovertemplate", None) or "" for trace in fig.data]
    words += [a.text for a in layout.annotations]
    words += [axis.title.text or "" for axis in (layout.xaxis, layout.yaxis)]
    words += [trace.colorbar.title.text or "" for trace in fig.data
              if isinstance(trace, go.Heatmap) and trace.colorbar.title.text]
    return [w for w in words if w]


HISTORY = [step(1, 4.2), evaluation(2, 3.8, 4.0)]
WEIGHTS = np.array([[1.0, 0.0], [0.4, 0.6]])
FIGURES = {
    "loss": lambda lang: loss_figure(HISTORY, x="tokens", lang=lang),
    "loss, empty": lambda lang: loss_figure([], lang=lang),
    "compare": lambda lang: plots.compare_figure([("run 1", [1, 2], [4.0, 3.5])], unit="bpc", lang=lang),
    "compare, empty": lambda lang: plots.compare_figure([], x="elapsed", lang=lang),
    "attention": lambda lang: attention_figure(WEIGHTS, ["a", "b"], lang=lang),
    "attention grid": lambda lang: attention_grid_figure(np.stack([WEIGHTS, WEIGHTS]), ["a", "b"], lang=lang),
    "next token": lambda lang: next_token_figure([("a", 0.6), ("b", 0.4)], lang=lang),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_figures_speak_the_page_language_and_english_by_default(name):
    english, default, chinese = (_figure_words(FIGURES[name](lang)) for lang in ("en", None, "zh-CN"))
    assert english == default
    assert english and not any(re.search(r"[\u4e00-\u9fff]", w) for w in english)
    # every text with words in it is translated, except run names (the user's) and plotly's codes
    wordy = [w for w in chinese if re.search(r"[A-Za-z]", re.sub(r"%\{[^}]*\}|<[^>]*>", "", w))]
    assert [w for w in wordy if not w.startswith("run ")] == [], wordy
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", w)) for w in chinese) >= 1
    # plotly's own placeholders survive translation
    assert [re.findall(r"%\{[^}]*\}", w) for w in english] == [re.findall(r"%\{[^}]*\}", w) for w in chinese]


def test_figure_words_in_english_are_as_before():
    fig = loss_figure(HISTORY, x="tokens")
    assert ([t.name for t in fig.data], fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == (
        ["train", "validation"], "tokens seen", "loss (cross-entropy, nats)")
    assert loss_figure([]).layout.annotations[0].text == "The loss curve appears here once training starts."
    single = attention_figure(WEIGHTS, ["a", "b"])
    assert single.data[0].hovertemplate == "“%{customdata[0]}” looks at “%{customdata[1]}”<br>weight %{z:.3f}<extra></extra>"
    grid = attention_grid_figure(np.stack([WEIGHTS, WEIGHTS]), ["a", "b"])
    assert grid.data[1].hovertemplate == ("head 1<br>“%{customdata[0]}” looks at “%{customdata[1]}”"
                                          "<br>weight %{z:.3f}<extra></extra>")
    assert [a.text for a in grid.layout.annotations] == ["head 0", "head 1"]
    assert plots.compare_figure([], unit="bpc").layout.yaxis.title.text == "validation bits per character"


def test_token_html_speaks_the_page_language():
    english = token_html(["a", "b", "c"], max_tokens=2)
    assert 'title="token 1"' in english and "… and 1 more tokens" in english
    chinese = token_html(["a", "b", "c"], max_tokens=2, lang="zh-CN")
    assert 'title="词元 1"' in chinese and "……还有 1 个词元" in chinese
