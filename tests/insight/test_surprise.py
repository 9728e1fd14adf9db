"""Where the model is surprised: each token's loss is -log p of the true next token, and their
mean is the evaluation loss on the same text (the trainer's own number), for every variant."""

import html

import numpy as np
import pytest
import torch

from playground.checkpoint import load_bundle, save_bundle
from playground.config import TrainConfig
from playground.insight.surprise import (MAX_TOKENS, Surprise, most_surprising, surprise,
                                         surprise_html, surprise_of_ids)
from playground.train import Trainer

from checks import CJK


def test_the_mean_surprise_is_the_trainers_validation_loss_on_that_text(variant_model):
    """A validation split one window long: every evaluation batch is that window, so the
    trainer's validation loss is the model's loss on exactly this text."""
    model, tok, text = variant_model
    ids = tok.encode(text)
    block = model.config.block_size
    val = ids[-(block + 1):]
    config = TrainConfig(max_steps=1, batch_size=2, eval_iters=2, sample_tokens=0, device="cpu",
                         dtype="float32")
    _, val_loss = Trainer(model, ids[:-(block + 1)], val, config).evaluate()
    assert surprise_of_ids(model, val, tok).mean == pytest.approx(val_loss, rel=1e-5)


def test_each_loss_is_minus_log_p_of_the_next_token_in_windows_of_the_context(variant_model):
    model, tok, text = variant_model
    ids = tok.encode(text)[:3 * model.config.block_size + 5]  # three windows and a bit
    s = surprise_of_ids(model, ids, tok)
    assert len(s.losses) == len(ids) - 1 and s.tokens == tok.token_strs(ids[1:])
    block = model.config.block_size
    expected, weights = [], []
    model.eval()
    with torch.no_grad():
        for start in range(0, len(ids) - 1, block):
            window = torch.tensor([ids[start: start + block + 1]])
            logits = model(window[:, :-1]).logits[0]
            expected.append(-logits.log_softmax(-1).gather(-1, window[0, 1:, None])[:, 0])
            weights.append(model(window[:, :-1], window[:, 1:]).loss * (window.size(1) - 1))
            assert tok.token_strs(logits.argmax(-1).tolist()) == s.guesses[start: start + block]
    assert np.allclose(s.losses, torch.cat(expected).numpy(), atol=1e-5)
    assert s.mean == pytest.approx(float(sum(weights)) / len(s.losses), rel=1e-5)


def test_a_bundle_model_is_as_surprised_as_the_model_saved(tmp_path, variant_model):
    model, tok, text = variant_model
    path = save_bundle(tmp_path / "m.zip", model, tok, TrainConfig(), history=[])
    assert np.array_equal(surprise(load_bundle(path).model, tok, text[:200]).losses,
                          surprise(model, tok, text[:200]).losses)


def test_short_texts_are_refused_and_long_ones_cut(variant_model):
    model, tok, text = variant_model
    with pytest.raises(ValueError, match="at least two tokens"):
        surprise(model, tok, "")
    assert len(surprise(model, tok, text * 3).losses) == MAX_TOKENS - 1


def test_the_text_view_colours_every_token_and_names_the_guess():
    s = Surprise("T", ["o", " ", "<b>"], np.array([0.1, 2.0, 9.0]), ["o", "e", "a"],
                 np.array([0.9, 0.4, 0.2]), vocab_size=65)
    page = surprise_html(s)
    assert page.count("<span title=") == 4  # the first token, uncoloured, and the three predicted
    assert "&lt;b&gt;" in page and "<b>" not in page
    assert html.escape("the model's top guess: “a” (20%)") in page and "loss 9.00 nats" in page
    # the lowest and highest colours of the scale for a sure and a blind token
    assert "background:#f0fdf4" in page and "background:#ef4444" in page
    assert "color:#111827" in page  # dark text on every colour, whatever the page's theme
    assert CJK.search(surprise_html(s, "zh-CN"))
    assert [row[0] for row in most_surprising(s, 2)] == [2, 1]


def test_the_loss_of_a_blind_guess_is_ln_v():
    """A head of zeros gives every token the same chance: each loss is ln V."""
    from playground.config import ModelConfig
    from playground.model import GPT
    from playground.tokenizer import train_tokenizer

    tok = train_tokenizer("char", "abcdefgh")
    model = GPT(ModelConfig(vocab_size=8, block_size=4, n_layer=1, n_head=1, n_embd=4,
                            tie_weights=False, zero_init=True))
    s = surprise(model, tok, "abcdefghabc")
    assert np.allclose(s.losses, np.log(8)) and s.mean == pytest.approx(float(np.log(8)))
