"""The training coach on synthetic histories: each rule fires on its pattern, and only then."""

import math
from dataclasses import replace

import numpy as np
import pytest

from playground.insight.coach import KINDS, coach_notes, progress_note
from playground.config import ModelConfig, TrainConfig
from playground.train import EndRecord, EvalRecord, StepRecord

V = 65
LN_V = math.log(V)
CFG = TrainConfig(max_steps=1000, warmup_steps=50, eval_interval=100)


def steps(losses, first=1):
    return [StepRecord(first + i, 768 * (first + i), float(loss), 1e-3, 5000.0, 0.1 * (first + i))
            for i, loss in enumerate(losses)]


def evals(pairs, every=100):
    return [EvalRecord(i * every, 768 * i * every, train, val, train / math.log(2), val / math.log(2),
                       10.0 * i, sample=None)
            for i, (train, val) in enumerate(pairs)]


def healthy_losses(n=1000, seed=0):
    """ln V falling smoothly towards 1.5, with the step-to-step noise of a small batch."""
    rng = np.random.default_rng(seed)
    s = np.arange(1, n + 1)
    return 1.5 + (LN_V - 1.5) * np.exp(-s / 150) + rng.normal(0, 0.04, n)


def notes(history, **kwargs):
    args = dict(vocab_size=V, n_params=200_000, train_tokens=1_000_000, config=CFG)
    return coach_notes(history, **{**args, **kwargs})


def kinds(history, **kwargs):
    return [n.kind for n in notes(history, **kwargs)]


def test_a_healthy_run_gets_no_notes():
    history = steps(healthy_losses()) + evals(
        [(LN_V, LN_V), (2.6, 2.65), (2.0, 2.08), (1.75, 1.85), (1.62, 1.74), (1.57, 1.70),
         (1.55, 1.69), (1.53, 1.685), (1.52, 1.684), (1.51, 1.683), (1.5, 1.683)])
    history.append(EndRecord(1000, "done", "Finished."))
    assert notes(history, unigram=3.3) == []


def test_an_empty_or_young_history_gets_no_notes():
    assert notes([]) == []
    assert notes(steps([LN_V] * 50)) == []  # 50 steps near ln V is just the start


def test_nan_at_the_end_says_where_and_suggests_a_lower_rate_and_float32():
    cfg = TrainConfig(lr=3e-3, min_lr=3e-4, warmup_steps=10, grad_clip=0.0, dtype="bfloat16")
    history = steps(healthy_losses(120)) + [
        EndRecord(121, "nan", "The loss became NaN.")]
    (note,) = notes(history, config=cfg)
    assert note.kind == "nan"
    assert note.seen == "The loss became NaN at step 121: the numbers overflowed and the run stopped."
    assert note.tips == ("coach_tip_lower_lr", "coach_tip_warmup", "coach_tip_grad_clip", "coach_tip_float32")
    assert "lr=0.001" in note.advice and "warmup_steps=100" in note.advice
    assert "bfloat16 has a smaller range" in note.advice


def test_an_infinite_step_loss_is_caught_live_before_the_run_ends():
    history = steps(list(healthy_losses(80)) + [math.inf])
    (note,) = notes(history)
    assert (note.kind, note.values["step"], note.values["value"]) == ("nan", "81", "infinity")


def test_a_spike_names_the_step_the_loss_and_the_recent_median():
    losses = healthy_losses(300)
    losses[250] = 4.0  # the median before it is ~1.8
    history = steps(losses)
    (note,) = notes(history)
    assert note.kind == "spike"
    assert note.values["step"] == "251" and note.values["loss"] == "4.000"
    median = float(np.median(losses[200:250]))
    assert note.values["median"] == f"{median:.3f}"
    assert note.tips[0] == "coach_tip_lower_lr"


def test_ordinary_noise_is_not_a_spike():
    assert "spike" not in kinds(steps(healthy_losses(400) + np.random.default_rng(1).normal(0, 0.1, 400)))


def with_norms(history, norms):
    """The step records of ``history`` carrying these gradient norms (None: not measured)."""
    return [StepRecord(r.step, r.tokens, r.loss, r.lr, r.tokens_per_s, r.elapsed, norm)
            for r, norm in zip(history, norms)]


def healthy_norms(n=300, seed=0):
    """Norms that fall fast over the first steps, then wander within 30% of 0.4."""
    rng = np.random.default_rng(seed)
    s = np.arange(1, n + 1)
    return 0.4 + 3.0 * np.exp(-s / 10) + rng.uniform(-0.12, 0.12, n)


def test_a_gradient_norm_spike_names_its_step_the_norm_and_the_recent_median():
    norms = healthy_norms()
    norms[250] = 6.0  # far above the ~0.4 before it; the loss stays as it was
    history = with_norms(steps(healthy_losses(300)), norms)
    cfg = TrainConfig(max_steps=1000, warmup_steps=100, grad_clip=0.0)
    (note,) = notes(history, config=cfg)
    median = float(np.median(norms[200:250]))
    assert note.kind == "grad_spike"
    assert note.values == {"step": "251", "norm": "6", "median": f"{median:.3g}",
                           "ratio": f"{6.0 / median:.0f}"}
    assert note.seen.startswith("At step 251 the gradient norm jumped to 6, ")
    assert note.tips == ("coach_tip_lower_lr", "coach_tip_grad_clip")
    # with clipping on, the note says the step was held to grad_clip
    (clipped,) = notes(history, config=CFG)
    assert "Clipping held that step to 1" in clipped.seen and clipped.values["clip"] == "1"
    assert "裁剪把这一步限制在了 1" in notes(history, config=CFG, lang="zh-CN")[0].seen


def test_falling_or_missing_gradient_norms_are_no_spike():
    history = steps(healthy_losses(300))
    assert notes(with_norms(history, healthy_norms())) == []  # the fall is in the warmup
    assert notes(with_norms(history, [None] * 300)) == []  # histories saved before grad_norm
    early = healthy_norms()
    early[30] = 6.0  # inside the warmup (50 steps): the norm is still settling there
    assert notes(with_norms(history, early)) == []


def test_a_loss_that_climbs_after_the_warmup_is_rising():
    down = np.linspace(3.0, 2.0, 150)
    up = np.linspace(2.0, 2.8, 150)
    (note,) = notes(steps(np.concatenate([down, up])))
    assert note.kind == "rising"
    assert float(note.values["recent"]) > float(note.values["earlier"]) + 0.5
    assert "lower the learning rate" in note.advice.lower()


def test_a_loss_stuck_near_ln_v_is_not_learning():
    (note,) = notes(steps([LN_V - 0.02] * 300), config=TrainConfig(lr=1e-5, min_lr=1e-6))
    assert note.kind == "not_learning"
    assert note.seen == ("After 300 steps the loss is still 4.154, close to 4.174 (ln 65), the loss "
                         "of a uniform guess: the model has not learned yet.")
    assert note.tips == ("coach_tip_raise_lr", "coach_tip_wait")
    assert "lr=3e-05" in note.advice


def test_not_learning_advice_for_a_deep_post_norm_model():
    deep = ModelConfig(n_layer=12, n_head=4, n_embd=128, norm_placement="post")
    (note,) = notes(steps([LN_V] * 300), model_config=deep)
    assert note.tips == ("coach_tip_pre_norm", "coach_tip_shallower", "coach_tip_wait")


def test_not_learning_waits_for_the_warmup_to_end():
    assert notes(steps([LN_V] * 300), config=TrainConfig(warmup_steps=250)) == []


def test_a_loss_sitting_at_the_unigram_entropy_gets_a_note_only_when_it_is_known():
    history = steps(np.full(600, 3.3) + np.random.default_rng(0).normal(0, 0.02, 600))
    (note,) = notes(history, unigram=3.31)
    assert note.kind == "unigram" and note.values["unigram"] == "3.310"
    assert notes(history) == []


def test_validation_rising_while_training_falls_is_overfitting():
    history = evals([(3.0, 3.0), (1.9, 2.0), (1.6, 1.8), (1.4, 1.7), (1.2, 1.75), (1.0, 1.85)])
    (note,) = notes(history, model_config=ModelConfig(dropout=0.0))
    assert note.kind == "overfitting"
    assert note.seen == ("The validation loss rose from 1.700 (step 300) to 1.850 while the "
                         "training loss fell to 1.000: the model is memorising the training "
                         "text (overfitting).")
    assert note.tips[:3] == ("coach_tip_stop_early", "coach_tip_more_data", "coach_tip_dropout")
    assert "step 300" in note.advice and "dropout=0.2" in note.advice


@pytest.mark.parametrize("pairs", [
    [(3.0, 3.0), (2.0, 2.1), (1.8, 1.9), (1.9, 2.0), (2.0, 2.1)],  # both rising: not overfitting
    [(3.0, 3.0), (2.0, 2.1), (1.8, 1.9), (1.7, 1.8), (1.6, 1.85)],  # best only one eval ago
    [(3.0, 3.0), (2.0, 2.1), (1.8, 1.9), (1.7, 1.905), (1.6, 1.91)],  # a rise within the noise
])
def test_not_overfitting(pairs):
    assert notes(evals(pairs)) == []


def test_far_more_parameters_than_tokens():
    (note,) = notes([], n_params=10_788_929, train_tokens=1_003_854)
    assert note.kind == "params"
    assert note.seen == ("The model has 10,788,929 parameters for 1,003,854 training tokens, 10.7 "
                         "parameters per token: it can memorise the text rather than learn from it.")
    assert notes([], n_params=9_000_000, train_tokens=1_000_000) == []


def test_notes_come_most_urgent_first_and_in_chinese_when_asked():
    history = steps([LN_V] * 300) + evals(
        [(4.0, 4.0), (3.0, 3.2), (2.5, 3.0), (2.2, 3.1), (2.0, 3.3)])
    found = notes(history, n_params=50_000_000, train_tokens=1_000_000, lang="zh-CN")
    assert [n.kind for n in found] == ["not_learning", "overfitting", "params"]
    assert [n.kind for n in found] == [k for k in KINDS if k in {n.kind for n in found}]
    assert found[0].seen.startswith("训练了 300 步之后损失仍是 4.174")
    assert found[1].advice.startswith("保留第 200 步的模型")
    assert found[2].seen.startswith("模型有 50,000,000 个参数")


def test_an_end_record_of_a_finished_run_adds_no_note():
    records = [StepRecord(s, 768 * s, LN_V, 1e-3, 5000.0, 0.1 * s) for s in range(1, 301)]
    records.append(EvalRecord(300, 230_400, LN_V, LN_V, 6.0, 6.0, 30.0))
    records.append(EndRecord(300, "done", "Finished."))
    assert kinds(records) == ["not_learning"]


def progress_history(norms):
    run = with_norms(steps(healthy_losses(len(norms))), norms)
    return run + evals([(LN_V, LN_V), (2.0, 2.1), (1.8, 1.9)], every=len(norms) // 2)


def test_a_run_clipped_at_nearly_every_step_is_told_that_is_normal():
    # Muon's runs: the norm sits just over grad_clip 1.0 at every step
    rng = np.random.default_rng(0)
    note = progress_note(progress_history(1.3 + rng.normal(0, 0.05, 200)), config=CFG)
    assert "coach_tip_clipped" in note.tips
    assert "200 of 200 steps had their gradients clipped (norm about 1.3, just over grad_clip 1;" \
        in note.advice
    zh = progress_note(progress_history(1.3 + rng.normal(0, 0.05, 200)), config=CFG, lang="zh-CN")
    assert "200 步中有 200 步的梯度被裁剪了" in zh.advice


@pytest.mark.parametrize("norms, config", [
    (np.full(200, 0.8), CFG),  # under the clip
    (np.r_[np.full(150, 1.3), np.full(50, 0.8)], CFG),  # a quarter unclipped
    (np.full(200, 5.0), CFG),  # far over it: not "just over", the spike rules' business
    (np.full(200, 1.3), replace(CFG, grad_clip=0.0)),  # no clipping at all
])
def test_no_clipping_note_unless_nearly_every_step_sat_just_over_the_clip(norms, config):
    assert "coach_tip_clipped" not in progress_note(progress_history(norms), config=config).tips
