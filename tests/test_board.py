"""The class board (``playground.insight.board``): what a learner shares, how the board ranks
and bounds it, and that a class sees only its own runs; then a real run shared by the run
driver when, and only when, its learner chose to."""

from __future__ import annotations

import dataclasses

import pytest
from checks import run_settings

from playground import runs
from playground.config import ModelConfig, TrainConfig
from playground.corpus import from_text
from playground.export.lesson import Lesson, ShareError, decode_lesson, lesson_url
from playground.insight import board as board_module
from playground.insight.board import (KEEP_S, MAX_CLASSES, MAX_PER_CLASS, MAX_PER_LEARNER, Board,
                                      BoardError, check_code, clean_nickname, new_code, shareable)
from playground.insight.runs import RunRecord
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord
from playground.workspace import Workspace


class Clock:
    def __init__(self):
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def record(name="run 1", loss=2.0, accuracy=None, steps=100, n_layer=2, kind="char", vocab=65,
           corpus="Tiny Shakespeare"):
    history = [StepRecord(s, s * 64, loss + 1, 1e-3, 900.0, 0.1) for s in range(1, steps + 1)]
    history += [EvalRecord(steps // 2, 3200, loss + 0.5, loss + 0.5, 3.0, 3.0, 1.0, "half way"),
                EvalRecord(steps, 6400, loss, loss, 2.9, 2.9, 2.0, "To be\x07, or not", accuracy),
                EndRecord(steps, "done", "Finished all the steps.")]
    return RunRecord.create(name, ModelConfig(n_layer=n_layer, vocab_size=vocab), TrainConfig(),
                            kind, history, corpus_name=corpus, corpus_source="paste", n_params=1234)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def board(clock):
    return Board(clock)


def names(board, code):
    return [entry.name for entry in board.entries(code)]


def test_codes_are_long_random_and_checked():
    codes = {new_code() for _ in range(1000)}
    assert len(codes) == 1000 and all(len(code) == 16 for code in codes)
    assert check_code("abcdefghijklmnop") == "abcdefghijklmnop"
    for bad in ("", "short", "abcdefghijklmnopq", "abcdefghijklmno/", "abcdefgh ijklmno", None):
        with pytest.raises(BoardError, match="class code"):
            check_code(bad)


def test_a_nickname_is_plain_bounded_and_required():
    assert clean_nickname("  Ada\u202e \n Lovelace\x00 ") == "Ada Lovelace"
    assert clean_nickname("x" * 100) == "x" * 24
    for empty in ("", "   ", "\u200b\u200b", None):
        with pytest.raises(BoardError, match="nickname"):
            clean_nickname(empty)


def test_what_is_shared_is_settings_curve_figures_and_one_sample():
    kept, sample = shareable(record())
    assert [type(r).__name__ for r in kept.history] == ["EvalRecord", "EvalRecord", "EndRecord"]
    assert all(r.sample is None for r in kept.history if isinstance(r, EvalRecord))
    assert kept.history[-1].message == ""  # (the loop's words are not the learner's to share)
    assert sample == "To be, or not"  # the last sample, without control characters
    assert kept.corpus_source == "" and kept.final_val_loss == 2.0 and kept.steps == 100
    assert kept.model_config == record().model_config and kept.n_params == 1234
    original = record()
    shareable(original)[0].model_config["n_layer"] = 99
    assert original.model_config["n_layer"] == 2  # a copy: the learner's own log is untouched


def test_the_board_ranks_by_loss_and_by_accuracy_when_a_task_has_one(board):
    code = new_code()
    board.share(code, "a", "Ada", record(loss=1.9))
    board.share(code, "b", "Bo", record(loss=1.5))
    board.share(code, "c", "Cy", record(loss=2.4))
    assert names(board, code) == ["Bo", "Ada", "Cy"]
    task = new_code()
    board.share(task, "a", "Ada", record(loss=0.3, accuracy=0.5))
    board.share(task, "b", "Bo", record(loss=0.9, accuracy=0.75))
    board.share(task, "c", "Cy", record(loss=0.1, accuracy=0.5))
    assert names(board, task) == ["Bo", "Cy", "Ada"]  # accuracy first, then the loss


def test_runs_with_other_tokenizers_rank_in_bits_per_character(board):
    code = new_code()
    board.share(code, "a", "Ada", record(loss=1.0, kind="bpe", vocab=512))  # bpc 2.9
    char = record(loss=1.5)
    char.history[-2] = dataclasses.replace(char.history[-2], val_bpc=2.1)
    board.share(code, "b", "Bo", char)
    assert names(board, code) == ["Bo", "Ada"]  # the lower loss per token is not the better run


def test_nicknames_are_told_apart_and_a_learners_runs_named(board):
    code = new_code()
    board.share(code, "a", "Ada", record("run 1", loss=2.0))
    board.share(code, "b", "ada", record("run 1", loss=2.1))
    board.share(code, "a", "Ada", record("run 2", loss=1.0))
    assert names(board, code) == ["Ada · run 2", "Ada · run 1", "ada 2"]
    assert [e.record.name for e in board.entries(code)] == names(board, code)


def test_sharing_a_run_again_replaces_it_and_a_new_nickname_renames_all(board):
    code = new_code()
    board.share(code, "a", "Ada", record("run 1", loss=2.0))
    board.share(code, "a", "Ada L.", record("run 1", loss=1.7))
    entries = board.entries(code)
    assert [(e.name, e.record.final_val_loss) for e in entries] == [("Ada L.", 1.7)]


def test_unsharing_takes_a_learners_runs_off(board):
    code = new_code()
    board.share(code, "a", "Ada", record("run 1"))
    board.share(code, "a", "Ada", record("run 2"))
    board.share(code, "b", "Bo", record("run 1"))
    version = board.version(code)
    assert board.withdraw(code, "a") == 2 and names(board, code) == ["Bo"]
    assert board.version(code) > version  # the pages redraw
    assert board.withdraw(new_code(), "a") == 0


def test_a_board_is_bounded_per_learner_per_class_and_in_classes(board, monkeypatch):
    code = new_code()
    for n in range(MAX_PER_LEARNER + 2):
        board.share(code, "a", "Ada", record(f"run {n}", loss=1.0 + n))
    assert len(board.entries(code)) == MAX_PER_LEARNER
    assert {e.record.steps for e in board.entries(code)} == {100}
    assert names(board, code)[0].endswith(f"run {2}")  # the oldest two went
    for n in range(MAX_PER_CLASS + 5):
        board.share(code, f"learner {n}", f"L{n}", record())
    assert len(board.entries(code)) == MAX_PER_CLASS
    assert "L0" not in names(board, code) and f"L{MAX_PER_CLASS + 4}" in names(board, code)
    monkeypatch.setattr(board_module, "MAX_CLASSES", 3)
    codes = [new_code() for _ in range(5)]
    for c in codes:
        board.share(c, "a", "Ada", record())
    assert [bool(board.entries(c)) for c in codes] == [False, False, True, True, True]
    assert MAX_CLASSES >= 100  # (a real server holds many classes at once)


def test_the_board_forgets_runs_after_a_day_of_school(board, clock):
    code = new_code()
    board.share(code, "a", "Ada", record())
    clock.now += KEEP_S / 2
    board.share(code, "b", "Bo", record())
    clock.now += KEEP_S / 2 + 1
    assert names(board, code) == ["Bo"]
    clock.now += KEEP_S
    assert board.entries(code) == [] and board.version(code) == 0


def test_no_class_sees_another_class(board):
    classes = {new_code(): [f"{c}-{n}" for n in range(12)] for c in "xyz"}
    for code, learners in classes.items():
        for learner in learners:
            board.share(code, learner, learner, record(loss=1 + len(learner) / 10))
    for code, learners in classes.items():
        assert sorted(names(board, code)) == sorted(learners)
    assert board.entries(new_code()) == []


def test_a_lesson_link_carries_its_class_code():
    code = new_code()
    url = lesson_url("https://example.org/", {}, Lesson(title="Week 3", class_code=code))
    assert f"class={code}" in url and decode_lesson(url).class_code == code
    assert decode_lesson("https://example.org/?v=1&title=Old").class_code == ""  # old links
    with pytest.raises(ShareError, match="class code"):
        decode_lesson("https://example.org/?title=x&class=guess")
    with pytest.raises(ShareError, match="at least one tab"):
        Lesson(tabs=("board",))  # a board alone, with no class, would show nothing
    assert Lesson(tabs=("board",), class_code=code).tabs == ("board",)


# --- the run driver shares a finished run, only when its learner chose to -----------------------

@pytest.fixture
def workspace(tiny_text, tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    monkeypatch.setattr(board_module, "BOARD", Board())
    corpus = from_text(tiny_text)
    ws = Workspace(corpus=corpus, tokenizer=train_tokenizer("char", corpus.text),
                   tokenizer_corpus=corpus)
    yield ws
    ws.release()


def test_a_finished_run_goes_to_the_board_only_when_shared(workspace):
    code = new_code()
    workspace.class_code = code
    list(runs.start_run(workspace, run_settings(sample_tokens=20)).events())
    assert board_module.BOARD.entries(code) == []  # a class page, but not ticked
    workspace.share_as = "Ada"
    done = list(runs.start_run(workspace, run_settings(sample_tokens=20)).events())[-1]
    [entry] = board_module.BOARD.entries(code)
    assert entry.name == "Ada" and entry.record.final_val_loss == done.last_eval.val_loss
    assert entry.record.steps == 6 and entry.sample  # the run's own last sample
    assert entry.sample in done.last_eval.sample
    list(runs.start_run(workspace, run_settings(), steps=2).events())  # Step ×2: no new run
    assert len(board_module.BOARD.entries(code)) == 1
