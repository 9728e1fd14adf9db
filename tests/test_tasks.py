"""Toy tasks: the generators answer right (checked by other means than theirs), the held-out
set is fixed and never trained on, accuracy is greedy decoding's exact match, every
evaluation of a task run reports it, the CLI trains a task, and a trained copy model has a
head whose attention sits on the expected positions."""

import json
import random

import pytest

from playground.checkpoint import load_bundle, records_from_json, records_to_json, save_bundle
from playground.cli import main
from playground.config import replace
from playground.prepare import prepare_run
from playground.tasks import (HELD_OUT, SEPARATOR, TASKS, accuracy, best_head, expected_cells,
                              head_focus, score, task_corpus, task_marks, task_of, task_text,
                              written)
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord

from checks import tiny_flags


def balanced(s: str) -> bool:
    while "()" in s:  # not the generator's counting: remove matched pairs until none is left
        s = s.replace("()", "")
    return s == ""


CHECKS = {
    "copy": lambda q, a: a == q,
    "reverse": lambda q, a: a == "".join(reversed(q)),
    "sort": lambda q, a: sorted(a) == sorted(q) and list(a) == sorted(a),
    # every number ones digit first, three digits each and four for the sum: 720+583>2140
    "add": lambda q, a: (len(q) == 7 and len(a) == 4
                         and int(a[::-1]) == sum(int(n[::-1]) for n in q.split("+"))),
    "brackets": lambda q, a: a == ("y" if balanced(q) else "n"),
    "lookup": lambda q, a: dict(zip(q[:-2:2], q[1:-2:2]))[q[-1]] == a,
}


@pytest.mark.parametrize("name", TASKS)
def test_every_problem_has_the_right_answer(name):
    task, rng = TASKS[name], random.Random(5)
    for _ in range(300):
        q, a = task.make(rng)
        assert CHECKS[name](q, a), (q, a)
        assert SEPARATOR not in q + a and "\n" not in q + a
    assert CHECKS[name](*task.example.split(SEPARATOR))


@pytest.mark.parametrize("name", TASKS)
def test_the_held_out_set_is_fixed_distinct_and_never_in_a_corpus(name):
    task = TASKS[name]
    held = task.held_out()
    assert held == task.held_out() and len({q for q, _ in held}) == len(held) == HELD_OUT
    for seed in (0, 1):
        corpus = task_corpus(name, seed=seed, lines=3000)
        questions = {line.split(SEPARATOR)[0] for line in corpus.text.splitlines()}
        assert not questions & {q for q, _ in held}
        assert task_of(corpus) is task and corpus.source == "task"
    assert task_corpus(name, seed=0, lines=50).text == task_corpus(name, seed=0, lines=50).text
    assert task_corpus(name, seed=0, lines=50).text != task_corpus(name, seed=1, lines=50).text


def test_expected_cells_and_marks_follow_the_answer():
    # reverse "abcd": > at 5 looks at d at 4; copy "abcd": > at 5 looks at a at 1
    assert expected_cells(TASKS["reverse"], "abcd", "dcba")[0] == (5, {4})
    assert expected_cells(TASKS["copy"], "abcd", "abcd")[1] == (6, {2})
    assert expected_cells(TASKS["lookup"], "a3c7:c", "7") == [(7, {4})]  # the 7 after c
    assert expected_cells(TASKS["brackets"], "()", "y") == []  # no one position holds it
    # with a line before it, the marks move with the line
    assert task_marks(TASKS["copy"], "xyz\nab>ab") == [(6, 4), (7, 5)]
    text = task_text(TASKS["reverse"])
    question, answer = text[1:].split(SEPARATOR)
    assert text[0] == "\n" and (question, answer) in TASKS["reverse"].held_out()


@pytest.fixture(scope="module")
def trained_copy():
    """The copy task's preset, trained (slow: about a minute on 2 cores)."""
    task = TASKS["copy"]
    corpus = task_corpus("copy")
    tok = train_tokenizer("char", corpus.text)
    preset = task.preset
    run = prepare_run(corpus, tok, preset.model, replace(preset.train, device="cpu"))
    records = list(run.trainer().run())
    return run.trained, records


@pytest.mark.slow
def test_a_trained_copy_model_answers_and_has_a_head_on_the_expected_positions(trained_copy):
    trained, records = trained_copy
    evals = [r for r in records if isinstance(r, EvalRecord)]
    assert len(evals) >= 2 and all(r.accuracy is not None for r in evals)
    assert evals[0].accuracy == 0.0 and evals[-1].accuracy >= 0.8
    assert "✓" in evals[-1].sample  # the problems shown, marked
    task = TASKS["copy"]
    layer, head, mass = best_head(task, trained.model, trained.tokenizer)
    assert mass > 0.5  # most of one head's attention from the answer sits where it should
    focus = head_focus(task, trained.model, trained.tokenizer)
    assert focus[layer, head] == mass and focus.shape == (trained.model_config.n_layer,
                                                          trained.model_config.n_head)


@pytest.mark.slow
def test_accuracy_is_greedy_decodings_exact_match(trained_copy):
    """One teacher-forced pass gives what writing each answer greedily gives, right or wrong."""
    trained, _ = trained_copy
    problems = TASKS["copy"].held_out()[:60]
    # some answers wrong too: a shorter context breaks the longest ones
    problems += [(q + "hh", a) for q, a in problems[:20]]
    answers = written(trained.model, trained.tokenizer, problems)
    expected = sum(ok for _, _, ok in answers) / len(problems)
    assert 0 < expected < 1
    assert accuracy(trained.model, trained.tokenizer, problems) == expected


def test_accuracy_travels_in_the_bundle_and_older_histories_still_load(tmp_path):
    tok = train_tokenizer("char", task_corpus("reverse", lines=200).text)
    corpus = task_corpus("reverse", lines=400)
    preset = TASKS["reverse"].preset
    run = prepare_run(corpus, tok, replace(preset.model, n_layer=1, n_embd=16),
                      replace(preset.train, max_steps=2, eval_interval=1, eval_iters=1,
                              device="cpu"))
    trainer = run.trainer()
    records = list(trainer.run())
    evals = [r for r in records if isinstance(r, EvalRecord)]
    assert len(evals) == 3 and all(0.0 <= r.accuracy <= 1.0 for r in evals)
    # the last evaluation scored the final weights
    assert accuracy(run.trained.model, tok, TASKS["reverse"].held_out()) == evals[-1].accuracy
    assert score(TASKS["reverse"], run.trained.model, tok)[0] == evals[-1].accuracy
    path = save_bundle(tmp_path / "r.zip", run.trained.model, tok, trainer.config, trainer.history,
                       trainer.state_dict())
    assert [r.accuracy for r in load_bundle(path).history if isinstance(r, EvalRecord)] == [
        r.accuracy for r in evals]
    # a format-2 history written before the field existed reads as "not measured"
    old = [{k: v for k, v in r.items() if k != "accuracy"} for r in records_to_json(evals)]
    assert [r.accuracy for r in records_from_json(old, "old.zip")] == [None] * len(evals)


def test_a_corpus_run_has_no_accuracy():
    from playground.corpus import from_text

    corpus = from_text("to be or not to be, that is the question. " * 40)
    tok = train_tokenizer("char", corpus.text)
    run = prepare_run(corpus, tok, replace(TASKS["copy"].preset.model, n_layer=1, n_embd=16,
                                           block_size=8),
                      replace(TASKS["copy"].preset.train, max_steps=1, eval_iters=1, device="cpu"))
    evals = [r for r in run.trainer().run() if isinstance(r, EvalRecord)]
    assert evals and all(r.accuracy is None for r in evals)


def test_the_cli_trains_a_task_with_its_preset(tmp_path, capsys):
    bundle = tmp_path / "task.zip"
    flags = tiny_flags(max_steps=2, eval_interval=2, block_size=32)
    status = main(["train", "--task", "reverse", *flags, "--out", str(bundle)])
    out, err = capsys.readouterr()
    assert status == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert 0.0 <= summary["accuracy"] <= 1.0 and "held-out accuracy" in out
    loaded = load_bundle(bundle)
    preset = TASKS["reverse"].preset.train
    assert loaded.train_config.lr == preset.lr and loaded.train_config.optimizer == preset.optimizer
    status = main(["train", "--task", "copy", "--text", "abc " * 50, "--out", str(tmp_path / "x.zip")])
    assert status == 2 and "not more" in capsys.readouterr().err
