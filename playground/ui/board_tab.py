"""The class board on the page: its tab, with "share my runs with the class" at the top.

The tab shows only on a lesson link with a class code (``export.lesson``; ``lesson_view``
hides it by its class otherwise). What is shared and kept is ``insight.board``'s; here it is
drawn: a ranking (the learner's nickname, final figures and one sample), the validation curves
overlaid as on the Compare tab, and the settings that differ with ``compare_tab``'s table. The
tab asks every ``REFRESH_S`` whether its class's board changed and redraws only then, so a
class's new runs appear live.

Nicknames and samples are learners' own words: shown in tables and plots as plain text, and
in this page's notes through ``plain_markdown``.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from playground.i18n import error_text, t
from playground.insight.board import BOARD, BoardError, Entry, clean_nickname
from playground.insight.runs import accuracy_curves, compare_unit, val_curves
from playground.plots import compare_figure
from playground.ui.compare_tab import comparison_table
from playground.ui.export_tab import plain_markdown
from playground.ui.lang import tr
from playground.ui.outputs import Outputs
from playground.ui.session import Session, ensure

REFRESH_S = 4.0  # how often an open board asks whether its class shared something new

# the handlers' outputs, by the names of BoardTab's (and ShareBox's) widgets
SHOWN = Outputs("seen", "note", "ranking", "plot", "table")  # show_board
SHARING = Outputs("share", "note")  # set_sharing
OPENED = Outputs("timer", "nickname", "share")  # open_board


@dataclass
class ShareBox:
    """The nickname and "share my runs with the class"."""

    nickname: gr.Textbox
    share: gr.Checkbox
    note: gr.Markdown


@dataclass
class BoardTab:
    share: ShareBox
    timer: gr.Timer
    seen: gr.State  # the board's version this page shows (insight.board.Board.version)
    note: gr.Markdown
    ranking: gr.Dataframe
    plot: gr.Plot
    table: gr.Dataframe


def build_share() -> ShareBox:
    with gr.Column(variant="panel", elem_id="class-share"):
        gr.Markdown(tr("board_share_intro"))
        with gr.Row(equal_height=True):
            nickname = gr.Textbox(label=tr("board_nickname"), info=tr("board_nickname_info"),
                                  max_length=40, elem_id="class-nickname", scale=2)
            share = gr.Checkbox(False, label=tr("board_share"), info=tr("board_share_info"),
                                elem_id="class-share-toggle", scale=3)
        note = gr.Markdown(elem_id="class-share-note")
    return ShareBox(nickname=nickname, share=share, note=note)


def build() -> BoardTab:
    gr.Markdown(tr("board_intro"))
    share = build_share()
    note = gr.Markdown(elem_id="board-note")
    ranking = gr.Dataframe(headers=["#"], label=tr("board_ranking"), interactive=False, wrap=True,
                           elem_id="board-ranking")
    plot = gr.Plot(label=tr("board_plot"), value=compare_figure([]), elem_id="board-plot")
    table = gr.Dataframe(headers=["setting"], label=tr("board_table"), interactive=False,
                         wrap=True, elem_id="board-table")
    return BoardTab(share=share, timer=gr.Timer(REFRESH_S, active=False), seen=gr.State(-1), note=note,
                    ranking=ranking, plot=plot, table=table)


def _figure(entry: Entry, unit: str) -> str:
    value = entry.record.final_val_bpc if unit == "bpc" else entry.record.final_val_loss
    return "" if value is None else f"{value:.4f}"


def ranking_rows(entries: list[Entry], lang: str = "en") -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the ranking: place, name, final validation loss (or bits per
    character), a toy task's accuracy when any run has one, steps, parameters, the sample."""
    unit = compare_unit([e.record for e in entries])
    accuracy = any(e.record.final_accuracy is not None for e in entries)
    headers = ["#", t("name", lang),
               t("final bits per character" if unit == "bpc" else "final validation loss", lang)]
    headers += [t("held-out accuracy", lang)] if accuracy else []
    headers += [t("steps", lang), t("parameters", lang), t("sample", lang)]
    rows = []
    for place, entry in enumerate(entries, 1):
        record = entry.record
        row = [str(place), entry.name, _figure(entry, unit)]
        if accuracy:
            row.append("" if record.final_accuracy is None else f"{record.final_accuracy:.0%}")
        rows.append(row + [f"{record.steps:,}", f"{record.n_params:,}", entry.sample])
    return headers, rows


def show_board(session: Session | None, seen: int | None):
    """The board of the page's class, when it changed since version ``seen``: ``SHOWN``
    (version, note, ranking, plot, table); all unchanged otherwise or without a class."""
    session = ensure(session)
    code, lang = session.class_code, session.lang
    version = BOARD.version(code) if code else 0
    if not code or version == seen:
        return SHOWN.only()
    entries = BOARD.entries(code)
    runs = [e.record for e in entries]
    if not entries:
        note = t("No one in this class has shared a run yet. Above, pick a nickname and tick "
                 "'Share my runs with the class': each run you finish then appears here, beside "
                 "your classmates'.", lang)
        return SHOWN(seen=version, note=note, ranking=gr.Dataframe(value=[], headers=["#"]),
                     plot=compare_figure([], lang=lang),
                     table=gr.Dataframe(value=[], headers=[t("setting", lang)]))
    unit = compare_unit(runs)
    by = (t("held-out accuracy", lang) if any(r.final_accuracy is not None for r in runs)
          else t("final bits per character", lang) if unit == "bpc"
          else t("final validation loss", lang))
    note = t("Runs this class shared: {n}, best first (by {by}). The board follows new runs as "
             "they finish.", lang, n=len(entries), by=by)
    if unit == "bpc":
        note += " " + t("These runs use different tokenizers, so they are compared in bits per "
                        "character.", lang)
    headers, rows = ranking_rows(entries, lang)
    figure = compare_figure(val_curves(runs, unit), unit=unit, lang=lang,
                            accuracy=accuracy_curves(runs))
    table_headers, table_rows = comparison_table(runs, lang)
    # the sample takes the room that is left
    widths = [5, 15, 12, *([10] if len(headers) == 7 else []), 8, 11]
    widths.append(100 - sum(widths))
    return SHOWN(seen=version, note=note,
                 ranking=gr.Dataframe(value=rows, headers=headers,
                                      column_widths=[f"{w}%" for w in widths]),
                 plot=figure, table=gr.Dataframe(value=table_rows, headers=table_headers))


def set_sharing(session: Session | None, share: bool, nickname: str | None):
    """'Share my runs with the class' ticked or not, or the nickname changed: ``SHARING``
    (checkbox, note), the checkbox unchanged unless a nickname is refused.
    Ticked, the latest finished run goes to the board now and every later one when it ends;
    unticked, the learner's runs come off the board."""
    session = ensure(session)
    code, lang = session.class_code, session.lang
    if not code:
        return SHARING.only()
    if not share:
        if not session.share_as:  # (the nickname typed while not sharing: nothing to do)
            return SHARING.only()
        session.share_as = ""
        gone = BOARD.withdraw(code, session.id)
        return SHARING.only(note=t("Your runs are not shared with the class ({n} taken off the "
                                   "board).", lang, n=gone))
    try:
        name = clean_nickname(nickname or "")
    except BoardError as error:
        return SHARING(share=gr.Checkbox(value=False), note=f"**{error_text(error, lang)}**")
    if name == session.share_as:  # (the box left with the nickname it had: nothing changed)
        return SHARING.only()
    session.share_as = name
    latest = session.runs.runs[-1] if session.runs.runs else None
    if latest is not None:
        BOARD.share(code, session.id, name, latest)
        said = t("Shared as {name}: your run '{run}' is on the class board, and each run you "
                 "finish from now on goes there too.", lang, name=name, run=latest.name)
    else:
        said = t("You will share as {name}: each run you finish goes to the class board.",
                 lang, name=name)
    said += " " + t("Only its name, settings, loss curve, final figures and one sample are "
                    "shared: never your text, tokenizer or model.", lang)
    return SHARING.only(note=plain_markdown(said))


def open_board(session: Session | None):
    """After a lesson link opened: the board's timer, on for a class page; the nickname and the
    box as the session has them (a reload that found its session goes on sharing, and says so):
    ``OPENED`` (timer, nickname, checkbox)."""
    session = ensure(session)
    on = bool(session.class_code)
    if not session.share_as:
        return OPENED.only(timer=gr.Timer(active=on))
    return OPENED(timer=gr.Timer(active=on), nickname=session.share_as,
                  share=gr.Checkbox(value=True))


def wire(board: BoardTab, session: gr.State, board_page: gr.Tab) -> None:
    """The timer and opening the tab redraw the board; the checkbox and the nickname set
    sharing."""
    share = board.share
    outputs = SHOWN.widgets(seen=board.seen, note=board.note, ranking=board.ranking,
                            plot=board.plot, table=board.table)
    board.timer.tick(show_board, [session, board.seen], outputs, queue=False,
                     api_visibility="private", show_progress="hidden")
    board_page.select(lambda: -1, None, board.seen, queue=False, api_visibility="private").then(
        show_board, [session, board.seen], outputs, queue=False, api_visibility="private",
        show_progress="hidden")
    gr.on([share.share.input, share.nickname.submit, share.nickname.blur], set_sharing,
          [session, share.share, share.nickname],
          SHARING.widgets(share=share.share, note=share.note), queue=False,
          api_name="share_with_class", show_progress="hidden",
          # (one handler for three triggers: a tick while the nickname's blur is answered
          # must run after it, not be dropped as Gradio's "once" would)
          trigger_mode="always_last")
