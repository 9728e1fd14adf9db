"""Comparing runs: records, the settings that differ, one-switch ablations, units."""

import dataclasses
import math

import pytest
import torch

from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.model import GPT
from playground.insight.runs import (
    ABLATIONS, MAX_RUNS, RunLog, RunRecord, alternatives, coerce, compare_unit, one_change,
    settings_diff, val_curves,
)
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord, Trainer, prepare_data

from checks import assert_translated

EVALS = [
    EvalRecord(step=0, tokens=0, train_loss=4.2, val_loss=4.3, train_bpc=6.06, val_bpc=6.2, elapsed=0.5),
    StepRecord(step=50, tokens=3200, loss=2.9, lr=1e-3, tokens_per_s=900.0, elapsed=4.0),
    EvalRecord(step=50, tokens=3200, train_loss=2.8, val_loss=2.9, train_bpc=4.04, val_bpc=4.18,
               elapsed=4.5, sample="to be"),
    EndRecord(step=50, reason="done", message="Finished all 50 steps."),
]


def run(name="", tokenizer="char", history=EVALS, **changes):
    model_changes = {k: v for k, v in changes.items() if k in ModelConfig.__dataclass_fields__}
    train_changes = {k: v for k, v in changes.items() if k in TrainConfig.__dataclass_fields__}
    return RunRecord.create(name, ModelConfig(**model_changes), TrainConfig(**train_changes),
                            tokenizer, history, corpus_name="Tiny Shakespeare",
                            corpus_source="bundled", n_params=1234)


def test_a_record_keeps_its_final_figures():
    r = run("a")
    assert r.summary() == {"name": "a", "val_loss": 2.9, "val_bpc": 4.18, "accuracy": None,
                           "steps": 50, "seconds": 4.5, "params": 1234}
    assert r.vocab_size == 65


def test_a_toy_tasks_accuracy_is_its_last_evaluations_and_a_curve_to_compare():
    from playground.insight.runs import accuracy_curves

    task = [EvalRecord(0, 0, 2.0, 2.0, 2.9, 2.9, 0.1, None, 0.0),
            EvalRecord(100, 6400, 1.0, 1.1, 1.5, 1.6, 9.0, None, 0.62)]
    a, b = run("a", history=task), run("b")
    assert a.summary()["accuracy"] == 0.62 and b.summary()["accuracy"] is None
    assert accuracy_curves([a, b]) == [("a", [0, 100], [0.0, 0.62])]


def test_a_record_copies_the_history_so_later_changes_do_not_leak_in():
    history = list(EVALS)
    r = RunRecord.create("a", ModelConfig(), TrainConfig(), "char", history)
    with pytest.raises(dataclasses.FrozenInstanceError):  # the records themselves cannot change
        history[2].val_loss = 99.0
    history.append(EvalRecord(60, 3840, 1.0, 1.0, 1.44, 1.44, 5.0))
    assert r.final_val_loss == 2.9 and r.steps == 50 and r.history == EVALS


def test_records_are_kept_as_records():
    records = [EvalRecord(0, 0, 4.0, 4.1, 5.8, 5.9, 0.2), StepRecord(1, 64, 3.9, 1e-4, 100.0, 0.4)]
    r = RunRecord.create("a", ModelConfig(), TrainConfig(), "char", records)
    assert r.history == records and r.history is not records
    assert r.final_val_bpc == 5.9 and r.seconds == 0.4


def test_final_val_bpc_is_the_last_evaluations_own():
    """The evaluation converted its loss with its split's characters per token; the run keeps it."""
    last = EvalRecord(1, 64, 1.5, 2.0 * math.log(2), 1.1, 1.25, 0.3)
    r = run("a", history=[EVALS[0], last])
    assert r.final_val_bpc == 1.25 and r.final_val_loss == 2.0 * math.log(2)
    assert run("b", history=[]).final_val_loss is None and run("b", history=[]).final_val_bpc is None


def test_settings_diff_lists_only_what_differs_in_a_stable_order():
    a = run("a", pos="rope", lr=1e-3)
    b = run("b", pos="none", lr=1e-3)
    c = run("c", pos="rope", lr=3e-3, tokenizer="bpe", vocab_size=512)
    assert settings_diff([a, b]) == [("pos", ["rope", "none"])]
    assert settings_diff([a, b, c]) == [("tokenizer", ["char", "char", "bpe"]),
                                        ("vocab_size", [65, 65, 512]),
                                        ("pos", ["rope", "none", "rope"]),
                                        ("lr", [0.001, 0.001, 0.003])]
    assert settings_diff([a, run("a2", pos="rope")]) == []
    assert settings_diff([a]) == []


def test_settings_that_compare_equal_across_types_still_differ():
    # True == 1 in Python, but a setting that is on and a count of one are not the same setting
    a, b = run("a"), run("b")
    a.train_config["compile"], b.train_config["compile"] = True, 1
    assert settings_diff([a, b]) == [("compile", [True, 1])]


def test_compare_unit_is_bits_per_character_across_tokenizers():
    a, b = run("a"), run("b", tokenizer="bpe", vocab_size=512)
    assert compare_unit([a, run("a2", pos="rope")]) == "loss"
    assert compare_unit([a, b]) == "bpc"
    assert val_curves([a, b]) == [("a", [0, 50], [6.2, 4.18]), ("b", [0, 50], [6.2, 4.18])]
    assert val_curves([a, b], unit="loss", axis="tokens") == [("a", [0, 3200], [4.3, 2.9]),
                                                              ("b", [0, 3200], [4.3, 2.9])]
    with pytest.raises(ValueError):
        val_curves([a], unit="nats")


def test_one_change_changes_exactly_one_setting():
    a = run("a", pos="rope", seed=42)
    for setting, value, expected in [("pos", "sinusoidal", "sinusoidal"), ("norm_placement", "post", "post"),
                                     ("activation", "relu", "relu"), ("dropout", "0.1", 0.1),
                                     ("bias", "true", True), ("n_layer", 2.0, 2), ("lr", "3e-3", 0.003),
                                     ("seed", 7, 7)]:
        model_cfg, train_cfg = one_change(a, setting, value)
        after = {**model_cfg.to_dict(), **train_cfg.to_dict()}
        before = {**a.model_config, **a.train_config}
        assert after[setting] == expected
        assert {k for k in after if after[k] != before[k]} == {setting}


@pytest.mark.parametrize("setting, value, message", [
    ("pos", "alibi", "pos must be one of"),
    ("n_head", "3", "must divide evenly"),  # n_embd 128 among 3 heads
    ("n_layer", "2.5", "whole number"),
    ("dropout", "lots", "must be a number"),
    ("lr", "nan", "must be a number"),
    ("bias", "maybe", "true or false"),
    ("vocab_size", 100, "follows the tokenizer"),
    ("colour", "blue", "no setting called 'colour'"),
    ("pos", "rope", "already has pos='rope'"),
    ("min_lr", 0.5, "cannot be above the peak lr"),
])
def test_one_change_refuses_what_cannot_work(setting, value, message):
    with pytest.raises(ConfigError, match=message):
        one_change(run("a", pos="rope"), setting, value)


def test_coerce_and_alternatives():
    assert coerce("compile", "off") is False and coerce("threads", "4") == 4
    assert coerce("mlp_ratio", 3) == 3.0 and isinstance(coerce("mlp_ratio", 3), float)
    r = run("a", norm_placement="post")
    assert alternatives(r, "norm_placement") == ["pre"]
    assert alternatives(r, "activation") == ["relu", "relu2", "swiglu"]
    assert alternatives(r, "tie_weights") == [False]
    assert alternatives(r, "lr") == []
    assert alternatives(r, "optimizer") == ["muon"]  # "what does Muon buy you?" is one change
    assert alternatives(r, "rng_stream") == ["nanogpt"]
    assert set(ABLATIONS) <= set(ModelConfig.__dataclass_fields__) | set(TrainConfig.__dataclass_fields__)


def test_run_log_names_runs_and_keeps_the_newest():
    log = RunLog(max_runs=3)
    for _ in range(4):
        log.add(run(""))
    assert log.names() == ["run 2", "run 3", "run 4"]
    log.add(run("rope"))
    log.add(run("rope"))  # a name already taken gets a number
    assert log.names() == ["run 4", "rope", "rope 6"]
    assert [r.name for r in log.get(["rope 6", "run 4"])] == ["rope 6", "run 4"]
    with pytest.raises(ConfigError, match="No run is called 'run 1'"):
        log.get(["run 1"])
    assert RunLog().max_runs == MAX_RUNS


def train(model_cfg, train_cfg, text, tok):
    """A real (tiny) run, seeded the way the page seeds it."""
    torch.manual_seed(train_cfg.seed)
    model = GPT(model_cfg)
    train_ids, val_ids = prepare_data(text, tok, train_cfg.val_fraction, model_cfg.block_size)
    trainer = Trainer(model, train_ids, val_ids, train_cfg, device="cpu")
    list(trainer.run())
    return trainer.history


def test_same_run_one_change_end_to_end(tiny_text):
    tok = train_tokenizer("char", tiny_text)
    model_cfg = ModelConfig(vocab_size=tok.vocab_size, block_size=16, n_layer=1, n_head=2, n_embd=16,
                            pos="rope")
    train_cfg = TrainConfig(max_steps=6, batch_size=4, lr=1e-2, min_lr=1e-3, warmup_steps=2,
                            eval_interval=3, eval_iters=2, seed=5, device="cpu", dtype="float32")
    a = RunRecord.create("rope", model_cfg, train_cfg, "char", train(model_cfg, train_cfg, tiny_text, tok))

    # no change at all: same seed, same data, the very same curve
    again = train(*[ModelConfig.from_dict(a.model_config), TrainConfig.from_dict(a.train_config)], tiny_text, tok)
    assert [r.val_loss for r in again if isinstance(r, EvalRecord)] == [
        r.val_loss for r in a.history if isinstance(r, EvalRecord)]

    changed = one_change(a, "pos", "none")
    b = RunRecord.create("none", *changed, "char", train(*changed, tiny_text, tok))
    assert settings_diff([a, b]) == [("pos", ["rope", "none"])]
    (name_a, xs_a, ys_a), (name_b, xs_b, ys_b) = val_curves([a, b])
    assert (name_a, name_b, xs_a, xs_b) == ("rope", "none", [0, 3, 6], [0, 3, 6])
    assert ys_a != ys_b


# --- the page's language ------------------------------------------------------------------

_RUN = RunRecord.create("base", ModelConfig(pos="rope"), TrainConfig(), "char", [])


@pytest.mark.parametrize("make, english, names", [
    (lambda: RunLog().get(["run 9"]), "No run is called 'run 9'; the runs of this session are none yet.",
     ("'run 9'", "还没有")),
    (lambda: one_change(_RUN, "vocab_size", 512),
     "vocab_size follows the tokenizer: train another tokenizer to change it.", ("vocab_size",)),
    (lambda: one_change(_RUN, "colour", "blue"),
     "There is no setting called 'colour'; pick one of pos, norm_placement, norm, activation, dropout, "
     "bias, tie_weights, scale_embedding, qk_norm, zero_init, token_shift, bigram, value_embed, logit_softcap, "
     "n_layer, n_head, n_embd, block_size, lr, optimizer, muon_lr, polar_express, seed (or any model or "
     "training setting).",
     ("'colour'", "pos, norm_placement")),
    (lambda: one_change(_RUN, "pos", "rope"),
     "This run already has pos='rope'; pick another value to see its effect.", ("pos='rope'",)),
    (lambda: one_change(_RUN, "bias", "maybe"), "bias is on or off (true or false), got 'maybe'.",
     ("bias", "'maybe'")),
    (lambda: one_change(_RUN, "dropout", "lots"), "dropout must be a number, got 'lots'.", ("dropout", "'lots'")),
    (lambda: one_change(_RUN, "n_layer", "many"), "n_layer must be a whole number, got 'many'.",
     ("n_layer", "'many'")),
    (lambda: one_change(_RUN, "n_layer", 2.5), "n_layer must be a whole number, got 2.5.", ("n_layer",)),
], ids=["unknown run", "vocab_size", "no setting", "same value", "bool", "number", "whole", "fraction"])
def test_run_errors_read_the_same_in_english_and_translate(make, english, names):
    with pytest.raises(ConfigError) as caught:
        make()
    assert_translated(caught.value, english, names)


def test_the_runs_that_exist_are_named_in_both_languages():
    log = RunLog()
    log.add(RunRecord.create("", ModelConfig(), TrainConfig(), "char", []))
    with pytest.raises(ConfigError) as caught:
        log.get(["run 1", "run 7"])
    assert_translated(caught.value, "No run is called 'run 7'; the runs of this session are run 1.", ("run 1",))
