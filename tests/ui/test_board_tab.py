"""The class board's handlers: ticking "share my runs" (with a nickname, or told to pick one),
unticking, and the board's redraw only when its class's runs changed."""

import gradio as gr
import pytest

from playground.config import ModelConfig, TrainConfig
from playground.insight import board as board_module
from playground.insight.board import Board, new_code
from playground.insight.runs import RunRecord
from playground.train import EvalRecord
from playground.ui import board_tab
from playground.ui.session import Session

SKIP = type(gr.skip())


@pytest.fixture(autouse=True)
def fresh_board(monkeypatch):
    fresh = Board()
    monkeypatch.setattr(board_module, "BOARD", fresh)
    monkeypatch.setattr(board_tab, "BOARD", fresh)
    return fresh


def learner(code, lang="en", runs=()):
    session = Session()
    session.class_code, session.lang = code, lang
    for name, loss in runs:
        session.runs.add(RunRecord.create(name, ModelConfig(), TrainConfig(), "char",
                                          [EvalRecord(50, 3200, loss, loss, 2.0, 2.0, 1.0, f"{name} says hi")],
                                          n_params=4321))
    return session


def test_ticking_shares_the_latest_run_and_later_ones(fresh_board):
    code = new_code()
    ada = learner(code, runs=[("run 1", 2.2), ("run 2", 1.8)])
    box, note = board_tab.set_sharing(ada, True, "  Ada  ")
    assert isinstance(box, SKIP) and ada.share_as == "Ada"
    assert "Shared as Ada" in note and "run 2" in note and "never your text" in note
    [entry] = fresh_board.entries(code)
    assert entry.name == "Ada" and entry.record.final_val_loss == 1.8 and entry.sample == "run 2 says hi"


def test_ticking_without_a_nickname_unticks_and_says_why_in_the_pages_language(fresh_board):
    code = new_code()
    box, note = board_tab.set_sharing(learner(code, runs=[("run 1", 2.0)]), True, " ")
    assert box.value is False and "Choose a nickname first" in note
    assert board_tab.set_sharing(learner(code, "zh-CN"), True, "")[1].startswith("**请先取一个昵称")
    assert fresh_board.entries(code) == []


def test_unticking_takes_the_runs_off_the_board(fresh_board):
    code = new_code()
    ada = learner(code, runs=[("run 1", 2.0)])
    board_tab.set_sharing(ada, True, "Ada")
    _, note = board_tab.set_sharing(ada, False, "Ada")
    assert fresh_board.entries(code) == [] and ada.share_as == ""
    assert "not shared" in note and "1 taken off" in note


def test_a_nickname_is_shown_as_plain_text(fresh_board):
    code = new_code()
    _, note = board_tab.set_sharing(learner(code), True, "[Log in](//ev.il)")
    assert "](" not in note.replace("\\](", "") and "\\[Log in\\]" in note
    assert "You will share as" in note  # no run yet: the next one goes


def test_a_page_without_a_class_has_no_board_to_share_to(fresh_board):
    assert all(isinstance(v, SKIP) for v in board_tab.set_sharing(learner(""), True, "Ada"))
    assert all(isinstance(v, SKIP) for v in board_tab.show_board(learner(""), -1))
    assert board_tab.open_board(learner(""))[0].active is False
    assert board_tab.open_board(learner(new_code()))[0].active is True


def test_a_reloaded_page_shows_that_it_is_still_sharing(fresh_board):
    ada = learner(new_code(), runs=[("run 1", 2.0)])
    timer, nickname, share = board_tab.open_board(ada)
    assert timer.active and isinstance(nickname, SKIP) and isinstance(share, SKIP)
    board_tab.set_sharing(ada, True, "Ada")
    _, nickname, share = board_tab.open_board(ada)
    assert nickname == "Ada" and share.value is True


def test_the_board_redraws_only_when_its_class_changed(fresh_board):
    code = new_code()
    viewer = learner(code)
    version, note, ranking, figure, table = board_tab.show_board(viewer, -1)
    assert "No one in this class has shared a run yet" in note and ranking.value["data"] == []
    assert all(isinstance(v, SKIP) for v in board_tab.show_board(viewer, version))
    for name, loss in (("Ada", 1.9), ("Bo", 1.6)):
        board_tab.set_sharing(learner(code, runs=[("run 1", loss)]), True, name)
    board_tab.set_sharing(learner(new_code(), runs=[("run 1", 0.5)]), True, "Elsewhere")
    version2, note, ranking, figure, table = board_tab.show_board(viewer, version)
    assert version2 != version and "Runs this class shared: 2" in note
    assert [row[:3] for row in ranking.value["data"]] == [["1", "Bo", "1.6000"], ["2", "Ada", "1.9000"]]
    assert ranking.value["data"][0][-1] == "run 1 says hi" and ranking.value["data"][0][-2] == "4,321"
    assert [trace.name for trace in figure.data] == ["Bo", "Ada"]
    assert "Elsewhere" not in str(ranking.value) + str(table.value)  # another class's run


def test_the_board_speaks_chinese_on_a_chinese_page(fresh_board):
    code = new_code()
    board_tab.set_sharing(learner(code, runs=[("run 1", 1.5)]), True, "Ada")
    _, note, ranking, _, _ = board_tab.show_board(learner(code, "zh-CN"), -1)
    assert "这个班级分享了 1 次训练" in note and "名字" in ranking.value["headers"]
