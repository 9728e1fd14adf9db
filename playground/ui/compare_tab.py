"""Tab 6, Compare runs: validation curves of the session's runs overlaid, the settings that
differ, and "same run, one change".

Every run that ends (done or stopped) is kept in ``session.runs`` (``runs.log_run``).
Selecting runs draws their validation curves on one plot (``runs.val_curves``: bits per
character when their tokenizers differ) and a table of the settings that differ
(``runs.settings_diff``) with each run's final figures. "Same run, one change" fills the
training tab with a run's settings and one setting changed (``runs.one_change``: same seed),
puts back the corpus and tokenizer that run used (same data), and starts the training tab's
own ``train_model``, so the live plot, Stop and the coach work as for any run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import gradio as gr

from playground.config import ConfigError
from playground.i18n import localize, msg, t
from playground.plots import compare_figure
from playground.insight.baselines import axis_key
from playground.insight.runs import (ABLATIONS, MODEL_FIELDS, RunRecord, accuracy_curves,
                                     alternatives, compare_unit, one_change, settings_diff,
                                     val_curves)
from playground.ui import train_tab
from playground.ui.lang import tr
from playground.ui.loss_panel import X_CHOICES
from playground.ui.session import Session, ensure, friendly_errors
from playground.settings import PageSettings
from playground.runtime import hosting

SUMMARY_ROWS = {  # the figures under the settings: the run summary's key, its row title
    "val_loss": msg("final validation loss"), "val_bpc": msg("final bits per character"),
    "accuracy": msg("final held-out accuracy"),
    "steps": msg("steps"), "seconds": msg("seconds"),
    "params": msg("parameters"),
}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def comparison_table(runs: Sequence[RunRecord],
                     lang: str = "en") -> tuple[list[str], list[list[str]]]:
    """(headers, rows): one row per setting that differs, then the final figures (named in
    ``lang``; the settings keep their own names).

    >>> from playground.config import ModelConfig, TrainConfig
    >>> a = RunRecord.create("a", ModelConfig(pos="rope"), TrainConfig(), "char", [])
    >>> b = RunRecord.create("b", ModelConfig(pos="none"), TrainConfig(), "char", [])
    >>> comparison_table([a, b])[1][0]
    ['pos', 'rope', 'none']
    """
    headers = [t("setting", lang), *[r.name for r in runs]]
    rows = [[key, *map(_cell, values)] for key, values in settings_diff(runs)]
    summaries = [r.summary() for r in runs]
    rows += [[localize(title, lang),
              *[f"{s[key]:,}" if key == "params" else _cell(s[key]) for s in summaries]]
             for key, title in SUMMARY_ROWS.items()
             if key != "accuracy" or any(s[key] is not None for s in summaries)]  # toy tasks
    return headers, rows


def _default_selection(names: list[str], selected: Sequence[str] | None) -> list[str]:
    kept = [n for n in (selected or []) if n in names]
    return kept or names[-2:]


def refresh_runs(session: Session | None, selected: Sequence[str] | None):
    """The run lists after runs were added: (runs checkbox group, base-run dropdown)."""
    session = ensure(session)
    names = session.runs.names()
    return (gr.CheckboxGroup(choices=names, value=_default_selection(names, selected)),
            gr.Dropdown(choices=names, value=names[-1] if names else None))


@friendly_errors
def compare_runs(session: Session | None, names: Sequence[str] | None, x: str):
    """(overlay figure, note, table) for the selected runs."""
    session = ensure(session)
    runs = session.runs.get(list(names or []))
    x = axis_key(x or "step")
    if not runs:
        note = t("Train at least two runs to compare them.",
                 session.lang) if len(session.runs.runs) < 2 else ""
        return (compare_figure([], x=x, lang=session.lang), note,
                gr.Dataframe(value=[], headers=[t("setting", session.lang)]))
    unit = compare_unit(runs)
    figure = compare_figure(val_curves(runs, unit, x), unit=unit, x=x, lang=session.lang,
                            accuracy=accuracy_curves(runs, x))
    notes = []
    if unit == "bpc":
        notes.append(t("These runs use different tokenizers, so they are compared in bits per "
                       "character.", session.lang))
    if len(runs) > 1 and not settings_diff(runs):
        notes.append(t("The selected runs have the same settings.", session.lang))
    headers, rows = comparison_table(runs, session.lang)
    return figure, " ".join(notes), gr.Dataframe(value=rows, headers=headers)


@friendly_errors
def value_choices(session: Session | None, base: str | None, setting: str | None):
    """The other values ``setting`` can take in run ``base`` (a choice or on/off setting);
    for a number the field starts empty (type one)."""
    session = ensure(session)
    if not base or not setting or base not in session.runs.names():
        return gr.Dropdown(choices=[], value=None)
    run = session.runs.get([base])[0]
    choices = [str(v).lower() if isinstance(v, bool) else v for v in alternatives(run, setting)]
    return gr.Dropdown(choices=choices, value=choices[0] if choices else None)


@friendly_errors
def prepare_one_change(session: Session | None, base: str | None, setting: str | None,
                       value: Any):
    """First half of "same run, one change": the new run's settings into the training tab.

    Puts back the corpus and tokenizer of run ``base``, marks a run as pending (as Start
    does) and names it. Returns (session, continue checkbox, *settings, tabs).
    """
    session = ensure(session)
    if not base:
        raise ConfigError(msg("Pick the run to start from: train a run first (tab 3)."))
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ConfigError(msg("Type or pick the new value of {setting}.", setting=setting))
    run = session.runs.get([base])[0]
    model_cfg, train_cfg = one_change(run, setting, value)
    if base not in session.run_data:
        raise ConfigError(msg("The text and tokenizer of {base} are no longer kept; pick a newer "
                              "run.", base=base))
    train_tab.reserve_run(session)  # refuses while a run goes
    corpus, tokenizer = session.run_data[base]
    session.corpus, session.tokenizer, session.tokenizer_corpus = corpus, tokenizer, corpus
    changed = getattr(model_cfg if setting in MODEL_FIELDS else train_cfg, setting)
    session.next_run_name = f"{base}, {setting}={changed}"
    values = PageSettings.from_configs(model_cfg, train_cfg).as_list()
    note = t("Training {name}: the same seed and data as {base}, only {setting} changed. Watch it "
             "on the training tab.", session.lang, name=session.next_run_name, base=base,
             setting=setting)
    if train_cfg.rng_stream == "nanogpt" and setting in MODEL_FIELDS:
        note += " " + t("Note: these runs use nanoGPT's single random stream "
                        "(rng_stream=nanogpt), so a change to the model also changes which "
                        "batches it sees. For a comparison of {setting} alone, set rng_stream to "
                        "separate in both runs.", session.lang, setting=setting)
    gr.Info(note, title=t("Note", session.lang))
    return (session, False, *values, gr.Tabs(selected="train"))


@dataclass
class CompareTab:
    """The Compare tab's widgets that ``wire`` connects to the training tab."""

    runs: gr.CheckboxGroup
    base: gr.Dropdown
    setting: gr.Dropdown
    value: gr.Dropdown
    button: gr.Button
    plot: gr.Plot
    note: gr.Markdown
    table: gr.Dataframe
    x: gr.Radio


def build(session: gr.State) -> CompareTab:
    gr.Markdown(tr("compare_intro"))
    with gr.Row():
        runs = gr.CheckboxGroup([], label=tr("compare_runs"), elem_id="compare-runs", scale=3)
        refresh = gr.Button(tr("compare_refresh"), scale=1, size="sm")
    x = gr.Radio(X_CHOICES, value="step", label=tr("x_axis"), info=tr("compare_x_info"))
    plot = gr.Plot(label=tr("compare_plot"), value=compare_figure([]), elem_id="compare-plot")
    note = gr.Markdown(elem_id="compare-note")
    table = gr.Dataframe(headers=["setting"], label=tr("compare_table"), interactive=False,
                         wrap=True, elem_id="compare-table")
    with gr.Accordion(tr("one_change_title"), open=True):
        gr.Markdown(tr("one_change_info"))
        with gr.Row():
            base = gr.Dropdown([], label=tr("compare_base_run"), info=tr("compare_base_run_info"),
                               elem_id="one-change-base")
            setting = gr.Dropdown(list(ABLATIONS), value="pos", label=tr("one_change_setting"),
                                  info=tr("compare_setting_info"), elem_id="one-change-setting")
            value = gr.Dropdown([], label=tr("one_change_value"), info=tr("compare_value_info"),
                                allow_custom_value=True, elem_id="one-change-value")
        button = gr.Button(tr("one_change_button"), variant="primary", elem_id="one-change-button")

    def redraw_on(triggers):
        return gr.on(triggers, compare_runs, [session, runs, x], [plot, note, table],
                     concurrency_limit=None, api_visibility="private", show_progress="hidden")

    refreshed = refresh.click(refresh_runs, [session, runs], [runs, base], concurrency_limit=None,
                              api_name="list_runs")
    refreshed.then(compare_runs, [session, runs, x], [plot, note, table], concurrency_limit=None,
                   api_visibility="private")
    redraw_on([runs.input, x.change])
    gr.on([base.change, setting.change], value_choices, [session, base, setting], value,
          concurrency_limit=None, api_visibility="private", show_progress="hidden")
    return CompareTab(runs=runs, base=base, setting=setting, value=value, button=button,
                      plot=plot, note=note, table=table, x=x)


def wire(compare: CompareTab, train: train_tab.TrainTab, session: gr.State, tabs: gr.Tabs,
         concurrency_limit: int, tab: gr.Tab) -> None:
    """Connect the tab to the training tab: one change starts ``train_tab.train_model``, and
    opening the tab (or a run ending) refreshes the list of runs."""
    def refresh_then_compare(event):
        event.then(refresh_runs, [session, compare.runs], [compare.runs, compare.base],
                   concurrency_limit=None, api_visibility="private").then(
            compare_runs, [session, compare.runs, compare.x],
            [compare.plot, compare.note, compare.table], concurrency_limit=None,
            api_visibility="private")

    started = compare.button.click(
        prepare_one_change, [session, compare.base, compare.setting, compare.value],
        [session, train.continue_training, *train.settings, tabs], concurrency_limit=None,
        api_name="one_change").success(
        train_tab.train_model, [session, train.continue_training, *train.settings],
        train.outputs, concurrency_limit=hosting.max_runs(), concurrency_id="training",
        show_progress_on=[train.status], api_name="train_one_change")
    started.failure(train_tab.release_run, session, session, concurrency_limit=None,
                    api_visibility="private", show_progress="hidden")
    refresh_then_compare(started)
    opened = tab.select(lambda: None, None, None, queue=False, api_visibility="private")
    refresh_then_compare(opened)
