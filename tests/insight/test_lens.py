"""One forward pass, step by step: the logit lens's last read-out is the model's own output,
the attention and vectors are the model's, and the reshaped distribution is what sampling
draws from; for every architecture variant and both tokenizers."""

import math

import numpy as np
import pytest
import torch

from playground.checkpoint import load_bundle, save_bundle
from playground.config import TrainConfig
from playground.insight.lens import (attention_row_figure, distribution_figure, forward_pass,
                                     lens_figure, logit_lens, shaped_probs, vector_figure)

from checks import CJK

PROMPT = "ROMEO:\nWhat light through yonder window"


def test_the_last_lens_read_out_is_the_models_output(variant_model):
    model, tok, _ = variant_model
    fp = forward_pass(model, tok, PROMPT)
    ids = tok.encode(PROMPT)[:model.config.block_size]
    with torch.no_grad():
        out = model.eval()(torch.tensor([ids]), return_attn=True)
    logits = out.logits[0]
    assert np.array_equal(fp.logits, logits.numpy())  # the same arithmetic: exactly equal
    probs = logits.softmax(-1)
    top = probs.topk(fp.lens_ids.shape[-1], dim=-1)
    assert np.array_equal(fp.lens_ids[-1], top.indices.numpy())
    assert np.allclose(fp.lens_probs[-1], top.values.numpy())
    following = probs[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]
    assert np.allclose(fp.next_probs[-1, :-1], following.numpy()) and math.isnan(fp.next_probs[-1, -1])
    assert np.array_equal(fp.attention, torch.stack([a[0] for a in out.attn]).numpy())
    assert fp.lens_ids.shape[0] == model.config.n_layer + 1 and fp.token_ids == ids


def test_the_vectors_are_the_embedding_rows_and_the_positions_added(variant_model):
    model, tok, _ = variant_model
    fp = forward_pass(model, tok, PROMPT)
    rows = model.tok_emb.weight[fp.token_ids].detach().numpy()
    scale = math.sqrt(model.config.n_embd) if model.config.scale_embedding else 1.0
    assert np.allclose(fp.token_vectors, rows * scale)
    pos = model.config.pos
    if pos in ("learned", "sinusoidal"):
        table = model.pos_emb.weight if pos == "learned" else model.pos_emb.table
        assert np.allclose(fp.position_vectors, table[:len(fp.tokens)].detach().numpy())
    else:
        assert fp.position_vectors is None


def test_the_lens_reads_every_layer_through_the_final_norm_and_head(variant_model):
    """An independent read-out of block 1: the residual stream run by hand through the
    model's own blocks, then the final norm and head."""
    model, tok, _ = variant_model
    model.eval()
    ids = torch.tensor([tok.encode(PROMPT)[:model.config.block_size]])
    with torch.no_grad():
        hidden, _ = model.residual_stream(ids)
        x = model.tok_emb(ids) * model.emb_scale + model.pos_emb(0, ids.size(1))
        by_hand = model.blocks[0](x)[0]
        lens = logit_lens(model, hidden)
    assert torch.allclose(hidden[1], by_hand, atol=1e-6)
    assert torch.allclose(lens[1], model.lm_head(model.ln_f(by_hand)), atol=1e-5)
    fp = forward_pass(model, tok, PROMPT)
    assert np.array_equal(fp.lens_ids[1], lens[1][0].softmax(-1).topk(5).indices.numpy())


def test_a_training_model_is_left_training_and_an_empty_prompt_is_refused(variant_model):
    model, tok, _ = variant_model
    model.train()
    forward_pass(model, tok, PROMPT)
    assert model.training
    with pytest.raises(ValueError, match="at least one token"):
        forward_pass(model, tok, "")


def numpy_probs(logits, temperature):
    z = np.asarray(logits, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def test_temperature_top_k_and_top_p_reshape_the_cached_logits():
    logits = np.random.default_rng(0).normal(size=50).astype(np.float32) * 3
    for temperature in (0.3, 1.0, 1.7):
        assert np.allclose(shaped_probs(logits, temperature), numpy_probs(logits, temperature),
                           atol=1e-6)
    kept = shaped_probs(logits, 1.0, top_k=7)
    assert (kept > 0).sum() == 7 and set(np.flatnonzero(kept)) == set(np.argsort(-logits)[:7])
    nucleus = shaped_probs(logits, 1.0, top_p=0.6)
    full = numpy_probs(logits, 1.0)
    chosen = np.flatnonzero(nucleus)
    # the smallest set of likeliest tokens holding 60%: without its least likely one, less
    assert full[chosen].sum() >= 0.6 > full[chosen].sum() - full[chosen].min()
    greedy = shaped_probs(logits, 0.0)
    assert greedy.max() == 1.0 and greedy.argmax() == logits.argmax()


def test_the_figures_show_the_chosen_position_in_both_languages(variant_model):
    model, tok, _ = variant_model
    fp = forward_pass(model, tok, PROMPT)
    p = 3
    layers, heads = model.config.n_layer, model.config.n_head
    lens = lens_figure(fp, p, tok)
    assert np.array_equal(np.asarray(lens.data[0].z), fp.lens_probs[:, p])
    assert len(lens.layout.yaxis.ticktext) == layers + 1
    row = attention_row_figure(fp, p)
    assert np.asarray(row.data[0].z).shape == (layers * heads, p + 1)
    assert np.allclose(np.asarray(row.data[0].z).sum(axis=1), 1.0, atol=1e-5)  # rows of softmax
    strips = vector_figure(fp, p)
    assert np.asarray(strips.data[0].z).shape[1] == model.config.n_embd
    shaped = distribution_figure(fp.logits[p], tok, temperature=0.5, top_k=3)
    model_bars, sampled_bars = shaped.data
    assert sum(v > 0 for v in sampled_bars.x) == 3
    assert np.isclose(sum(sampled_bars.x), 1.0)
    # top-k keeps the three likeliest, in the model's own order; the grey bars are the model's
    assert list(model_bars.x[:3]) == pytest.approx(sorted(shaped_probs(fp.logits[p]))[::-1][:3])
    for figure in (lens_figure(fp, p, tok, "zh-CN"), attention_row_figure(fp, p, "zh-CN"),
                   vector_figure(fp, p, "zh-CN"), distribution_figure(fp.logits[p], tok, lang="zh-CN")):
        assert CJK.search(figure.to_json())
    assert lens_figure(fp, 10_000, tok).layout == lens_figure(fp, len(fp.tokens) - 1, tok).layout


def test_a_model_loaded_from_a_bundle_gives_the_same_forward_pass(tmp_path, variant_model):
    model, tok, _ = variant_model
    path = save_bundle(tmp_path / "m.zip", model, tok, TrainConfig(), history=[])
    again = forward_pass(load_bundle(path).model, tok, PROMPT)
    first = forward_pass(model, tok, PROMPT)
    assert np.array_equal(again.logits, first.logits)
    assert np.array_equal(again.lens_ids, first.lens_ids)
