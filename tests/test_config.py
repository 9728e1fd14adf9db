"""Settings errors: the same English for the CLI and the logs, and Chinese for the page."""

import dataclasses
import pickle

import pytest

from playground.config import ConfigError, ModelConfig, TrainConfig, replace
from playground.i18n import Message, error_text

from checks import assert_translated



def config_error(make) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        make()
    return info.value


# (what to build, the English message exactly, what the Chinese must keep)
CASES = [
    (lambda: ModelConfig(n_layer="x"), "n_layer must be a whole number, got 'x'.",
     ["n_layer", "'x'"]),
    (lambda: ModelConfig(n_layer=True), "n_layer must be a whole number, got True.",
     ["n_layer", "True"]),
    (lambda: TrainConfig(max_steps=20_000_000),
     "max_steps must be between 1 and 10,000,000, got 20,000,000.",
     ["max_steps", "10,000,000", "20,000,000"]),
    (lambda: TrainConfig(lr="fast"), "lr must be a number, got 'fast'.", ["lr", "'fast'"]),
    (lambda: TrainConfig(lr=float("nan")), "lr must be a number, got nan.", ["lr", "nan"]),
    (lambda: ModelConfig(dropout=1.5), "dropout must be between 0 and 0.9, got 1.5.",
     ["dropout", "0.9", "1.5"]),
    (lambda: ModelConfig(norm_eps=1.0), "norm_eps must be between 1e-12 and 0.1, got 1.",
     ["norm_eps", "1e-12", "0.1"]),
    (lambda: ModelConfig(pos="alibi"),
     "pos must be one of learned, sinusoidal, rope, none; got 'alibi'.",
     ["pos", "learned, sinusoidal, rope, none", "'alibi'"]),
    (lambda: ModelConfig(n_embd=100, n_head=3),
     "The width n_embd=100 must divide evenly among the 3 attention heads (each head gets "
     "n_embd / n_head numbers). Try n_embd=99 or a number of heads that divides 100.",
     ["n_embd=100", "3", "n_embd=99"]),
    (lambda: ModelConfig(n_embd=12, n_head=4, pos="rope"),
     "RoPE rotates the numbers of each head in pairs, so the head size (n_embd / n_head = 3) "
     "must be even. Change n_embd or n_head, or pick another kind of position encoding.",
     ["RoPE", "n_embd / n_head = 3"]),
    (lambda: TrainConfig(lr=1e-3, min_lr=2e-3),
     "min_lr (0.002) is where the learning rate ends, so it cannot be above the peak lr (0.001).",
     ["min_lr", "0.002", "0.001"]),
    (lambda: TrainConfig(batch_size=10, grad_accum=3),
     "batch_size=10 must split evenly into grad_accum=3 micro-batches.",
     ["batch_size=10", "grad_accum=3"]),
    (lambda: ModelConfig.from_dict({"zz": 1, "aa": 2}), "Unknown ModelConfig settings: aa, zz.",
     ["ModelConfig", "aa, zz"]),
    (lambda: replace(TrainConfig(), dtype="fp8"),
     "dtype must be one of auto, float32, bfloat16, float16; got 'fp8'.", ["dtype", "'fp8'"]),
    (lambda: TrainConfig(optimizer="sgd"), "optimizer must be one of adamw, muon; got 'sgd'.",
     ["optimizer", "adamw, muon", "'sgd'"]),
    (lambda: TrainConfig(optimizer="muon", muon_lr=20.0),
     "muon_lr must be between 1e-08 and 10, got 20.", ["muon_lr", "1e-08", "10", "20"]),
    (lambda: TrainConfig(muon_momentum=1.0),
     "muon_momentum must be between 0 and 0.9999, got 1.", ["muon_momentum", "0.9999"]),
]


@pytest.mark.parametrize("make, english, kept", CASES)
def test_a_settings_error_reads_the_same_in_english_and_has_chinese(make, english, kept):
    error = config_error(make)
    assert error_text(error, "en") == english
    assert_translated(error, english, kept)


def test_a_settings_error_survives_pickling_with_its_message():
    """Errors cross process boundaries (the GPU worker); the translation must come along."""
    error = config_error(lambda: ModelConfig(n_head=0))
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again.args[0], Message) and str(again) == str(error)
    assert error_text(again, "zh-CN") == error_text(error, "zh-CN")


def test_valid_settings_still_serialise_as_plain_values():
    cfg = ModelConfig(n_embd=96, n_head=4)
    assert dataclasses.asdict(cfg) == cfg.to_dict() and cfg.head_size == 24


def test_the_speedrun_preset_evaluates_at_the_start_and_at_its_end_only():
    """Every evaluation counts in the speedrun's time: its schedule, run by the Trainer on a tiny
    model, evaluates at step 0 and at the last step (on at least 50 batches), and writes the
    sample there; an evaluation on the way (the 250-step one of the 320-step recipe) is waste."""
    from playground.config import PRESETS
    from playground.tokenizer import train_tokenizer
    from playground.train import EvalRecord, Trainer

    from checks import tiny_model, token_stream

    preset = PRESETS["cpu-speedrun"]
    train = replace(preset.train, device="cpu")
    ids = token_stream(3_000)
    tokenizer = train_tokenizer("char", "".join(chr(ord("a") + i) for i in range(16)))
    trainer = Trainer(tiny_model(), ids[:2_500], ids[2_500:], train, tokenizer=tokenizer)
    evals = [r for r in trainer.run() if isinstance(r, EvalRecord)]
    assert [r.step for r in evals] == [0, preset.train.max_steps]
    assert preset.train.eval_iters >= 50  # the least for the final evaluation
    assert len(evals[-1].sample) == preset.train.sample_tokens  # one character per token
