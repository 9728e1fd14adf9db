"""One head's arithmetic: every number is the model's. The weights are the model's own
attention row, the weighted sum is what PyTorch's fused kernel (scaled_dot_product_attention)
handed the output projection, and the heads' additions sum to the attention layer's output."""

import math

import numpy as np
import pytest
import torch

from playground.config import ModelConfig
from playground.insight.head_steps import head_arithmetic, head_steps
from playground.model import GPT
from playground.tokenizer import train_tokenizer

PROMPT = "ROMEO:\nWhat light"


def model_run(model, ids):
    """The model's own numbers at each layer's attention: its weights (explicit path), the
    input of the output projection from the fused path, and the attention layer's output."""
    seen = {}

    def keep(name, i, value) -> None:  # a hook that returns None changes nothing
        seen[(name, i)] = value

    hooks = []
    for i, block in enumerate(model.blocks):
        hooks.append(block.attn.proj.register_forward_pre_hook(
            lambda m, args, i=i: keep("proj_in", i, args[0])))
        hooks.append(block.attn.register_forward_hook(
            lambda m, args, out, i=i: keep("attn_out", i, out[0])))
    with torch.no_grad():
        model.eval()(torch.tensor([ids]))  # no return_attn: the fused kernel
    for hook in hooks:
        hook.remove()
    with torch.no_grad():
        weights = model(torch.tensor([ids]), return_attn=True).attn
    return weights, seen


def check_against_the_model(model, tok, prompt):
    ids = tok.encode(prompt)[:model.config.block_size]
    weights, seen = model_run(model, ids)
    hs, T = model.config.head_size, len(ids)
    for layer in range(model.config.n_layer):
        for position in (0, T // 2, T - 1):
            added = 0
            for head in range(model.config.n_head):
                a = head_arithmetic(model, tok, prompt, layer, head, position)
                np.testing.assert_allclose(a.weights, weights[layer][0, head, position].numpy(),
                                           rtol=1e-5, atol=1e-6)
                fused = seen[("proj_in", layer)][0, position, head * hs:(head + 1) * hs]
                np.testing.assert_allclose(a.out, fused.numpy(), rtol=1e-4, atol=1e-5)
                added = added + a.added
                assert (a.weights[position + 1:] == 0).all()
                assert np.isneginf(a.masked[position + 1:]).all()
                np.testing.assert_allclose(a.scaled, a.dots / math.sqrt(hs), rtol=1e-6)
            bias = model.blocks[layer].attn.proj.bias
            if bias is not None:
                added = added + bias.detach().numpy()
            np.testing.assert_allclose(added, seen[("attn_out", layer)][0, position].numpy(),
                                       rtol=1e-4, atol=1e-5)


def test_every_number_is_the_models_own(variant_model):
    model, tok, _ = variant_model
    check_against_the_model(model, tok, PROMPT)


def test_the_token_shift_is_read_as_the_block_reads_it():
    tok = train_tokenizer("char", PROMPT)
    torch.manual_seed(3)
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=32, n_layer=2, n_head=2,
                            n_embd=16, pos="rope", token_shift=True, qk_norm=True))
    check_against_the_model(model, tok, PROMPT)


def test_the_dot_products_are_the_rotated_query_times_the_rotated_keys():
    """RoPE and QK-norm show as their own steps, and the scores come from what they give."""
    tok = train_tokenizer("char", PROMPT)
    torch.manual_seed(1)
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=32, n_layer=1, n_head=2,
                            n_embd=16, pos="rope", qk_norm=True))
    a = head_arithmetic(model, tok, PROMPT, 0, 1, 5)
    np.testing.assert_allclose(a.dots, a.k_rotated @ a.q_rotated, rtol=1e-5, atol=1e-6)
    assert not np.allclose(a.q_rotated, a.q_normed)  # position 5 is turned
    keys = [s.key for s in head_steps(a)]
    assert keys.index("qk_norm") < keys.index("rope") < keys.index("dots")


@pytest.mark.parametrize("pos, steps", [("learned", 9), ("rope", 10)])
def test_steps_only_for_what_the_model_has(pos, steps):
    tok = train_tokenizer("char", PROMPT)
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=32, n_layer=1, n_head=2,
                            n_embd=16, pos=pos))
    shown = head_steps(head_arithmetic(model, tok, PROMPT, 0, 0, 3))
    assert len(shown) == steps and "qk_norm" not in [s.key for s in shown]
    assert all(s.title and s.sentence and s.table for s in shown)
