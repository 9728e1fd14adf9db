"""Reference lines for the loss plot and its x axes."""

import math
from collections import Counter

import numpy as np
import pytest
import torch

from playground.insight.baselines import (
    NANOGPT_SHAKESPEARE_CHAR_VAL, axis_key, bits_per_char, curve, reference_lines, uniform_loss,
    unigram_entropy, x_values,
)
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord, bits_per_char as train_bits_per_char


def test_uniform_loss_is_the_cross_entropy_of_equal_logits():
    for v in (2, 65, 512):
        logits = torch.zeros(1, v)
        target = torch.tensor([v - 1])
        expected = torch.nn.functional.cross_entropy(logits, target).item()
        assert uniform_loss(v) == pytest.approx(expected, rel=1e-6)
    assert uniform_loss(65) == math.log(65)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError):
            uniform_loss(bad)


def test_unigram_entropy_of_text_ids_arrays_and_tensors_agree(tiny_text):
    tok = train_tokenizer("char", tiny_text)
    ids = tok.encode(tiny_text)
    counts = Counter(tiny_text)
    expected = -sum(c / len(tiny_text) * math.log(c / len(tiny_text)) for c in counts.values())
    assert unigram_entropy(tiny_text) == pytest.approx(expected, rel=1e-12)
    assert unigram_entropy(ids) == pytest.approx(expected, rel=1e-12)
    assert unigram_entropy(np.array(ids)) == pytest.approx(expected, rel=1e-12)
    assert unigram_entropy(torch.tensor(ids)) == pytest.approx(expected, rel=1e-12)
    # the unigram level lies below the uniform guess: some characters are far more common
    assert unigram_entropy(ids) < uniform_loss(tok.vocab_size)


def test_unigram_entropy_edge_cases():
    assert unigram_entropy("aaaa") == 0.0
    assert unigram_entropy([3, 3, 7, 7]) == pytest.approx(math.log(2))
    with pytest.raises(ValueError):
        unigram_entropy("")
    with pytest.raises(ValueError):
        unigram_entropy([1, -1])


def test_bits_per_char_matches_the_trainer():
    for loss, cpt in [(1.4697, 1.0), (3.2, 2.7), (0.0, 1.5)]:
        assert bits_per_char(loss, cpt) == train_bits_per_char(loss, cpt)
    with pytest.raises(ValueError):
        bits_per_char(1.0, 0.0)


def test_reference_lines_for_tiny_shakespeare_at_character_level(shakespeare_text):
    train_text = shakespeare_text[: int(0.9 * len(shakespeare_text))]
    lines = reference_lines(65, train_text, "bundled", "char")
    assert [line.key for line in lines] == ["uniform", "unigram", "nanogpt"]
    assert lines[0].value == math.log(65) and lines[0].label == "guessing letters at random (4.17)"
    assert 3.2 < lines[1].value < 3.4  # Tiny Shakespeare's characters: about 3.3 nats
    assert lines[2].value == NANOGPT_SHAKESPEARE_CHAR_VAL == 1.4697
    assert lines[1].label.startswith("knowing only letter frequencies (3.")
    assert lines[2].label == "nanoGPT's big GPU model (1.47)"


@pytest.mark.parametrize("source, kind", [("bundled", "bpe"), ("upload", "char"), ("paste", "char"),
                                          (None, "char")])
def test_the_nanogpt_line_only_for_tiny_shakespeare_characters(source, kind):
    keys = [line.key for line in reference_lines(300, [1, 2, 2], source, kind)]
    assert keys == ["uniform", "unigram"]


def test_reference_lines_in_bits_per_character():
    lines = reference_lines(512, None, "hub", "char", unit="bpc", chars_per_token=2.0)
    assert [line.key for line in lines] == ["uniform", "nanogpt"]
    assert lines[0].value == pytest.approx(math.log(512) / math.log(2) / 2.0)
    assert lines[1].value == pytest.approx(1.4697 / math.log(2) / 2.0)
    with pytest.raises(ValueError):
        reference_lines(65, unit="bits")


def test_reference_labels_in_chinese():
    labels = [line.label for line in reference_lines(65, "abc", "bundled", "char", lang="zh-CN")]
    assert labels == ["随机猜字符（4.17）", "只知道每个字符的频率（1.10）",
                      "nanoGPT 在 GPU 上训练的大模型（1.47）"]
    bpe = [line.label for line in reference_lines(512, [1, 2], "upload", "bpe", lang="zh-CN")]
    assert bpe == ["随机猜词元（6.24）", "只知道每个词元的频率（0.69）"]


HISTORY = [
    EvalRecord(0, 0, 4.2, 4.2, 6.0, 6.0, 0.3),
    StepRecord(1, 768, 4.1, 1e-4, 900.0, 0.5),
    StepRecord(2, 1536, 3.9, 2e-4, 950.0, 0.9),
    EvalRecord(2, 1536, 3.8, 3.85, 5.5, 5.6, 1.2),
    EndRecord(2, "done", "Finished all 2 steps."),
]


def test_x_values_on_each_axis():
    assert x_values(HISTORY, "step") == [0, 1, 2, 2, 2]
    assert x_values(HISTORY, "tokens") == [0, 768, 1536, 1536]
    assert x_values(HISTORY, "seconds") == [0.3, 0.5, 0.9, 1.2]
    assert x_values(HISTORY, "elapsed") == x_values(HISTORY, "seconds")


def test_curve_pairs_x_with_the_field_asked_for():
    assert curve(HISTORY, "val_loss", "tokens") == ([0, 1536], [4.2, 3.85])
    assert curve(HISTORY, "loss", "elapsed") == ([0.5, 0.9], [4.1, 3.9])
    assert curve(HISTORY, "val_bpc") == ([0, 2], [6.0, 5.6])


def test_unknown_axis_is_refused():
    assert axis_key("tokens seen") == "tokens"
    with pytest.raises(ValueError, match="steps, tokens seen, seconds"):
        x_values(HISTORY, "epochs")
