"""The model against implementations no one here wrote, and its own invariants."""


import dataclasses
import math

import pytest
import torch
import torch.nn.functional as F

from playground.config import BIGRAM_MAX_ROWS, ConfigError, ModelConfig
from playground.i18n import error_text
from playground.model import (GPT, BigramEmbedding, SoftCap, TokenShift, count_params, estimate_memory,
                              flops_per_token)

from checks import CJK

transformers = pytest.importorskip("transformers")

# Wider than the shared TINY_MODEL (tests/checks.py): two layers and four heads, the size the
# reference models below are built at, so layer stacking and head splitting are both compared.
SIZE = dict(vocab_size=50, block_size=32, n_layer=2, n_head=4, n_embd=32)


def randomise_norm_gains(hf) -> None:
    """Norm gains drawn from [0.5, 1.5]: `transformers` starts them at ones, where a wrong
    or missing norm would not show."""
    with torch.no_grad():
        for name, p in hf.named_parameters():
            if "norm" in name:
                p.uniform_(0.5, 1.5)


def llama_family_weights(sd: dict, n_layer: int, qk_norm: bool = False) -> dict:
    """A `transformers` Llama (or Qwen3, with its per-head q_norm / k_norm) state dict under
    our names: q, k and v stacked into one qkv matrix, SwiGLU's gate, up and down."""
    mapped = {"tok_emb.weight": sd["model.embed_tokens.weight"],
              "ln_f.weight": sd["model.norm.weight"], "lm_head.weight": sd["lm_head.weight"]}
    names = {"attn.proj": "self_attn.o_proj", "mlp.gate": "mlp.gate_proj", "mlp.up": "mlp.up_proj",
             "mlp.proj": "mlp.down_proj", "ln_1": "input_layernorm",
             "ln_2": "post_attention_layernorm"}
    if qk_norm:
        names.update({"attn.q_norm": "self_attn.q_norm", "attn.k_norm": "self_attn.k_norm"})
    for i in range(n_layer):
        h, b = f"model.layers.{i}.", f"blocks.{i}."
        mapped[b + "attn.qkv.weight"] = torch.cat(
            [sd[h + f"self_attn.{p}_proj.weight"] for p in "qkv"], dim=0)
        for ours, theirs in names.items():
            mapped[f"{b}{ours}.weight"] = sd[f"{h}{theirs}.weight"]
    return mapped


def _tokens(B=2, T=16, vocab=50, seed=0):
    return torch.randint(0, vocab, (B, T), generator=torch.Generator().manual_seed(seed))


def test_matches_transformers_gpt2():
    """Learned positions, pre-LayerNorm with biases, exact GELU, tied embeddings = GPT-2."""
    hf_cfg = transformers.GPT2Config(
        vocab_size=50, n_positions=32, n_embd=32, n_layer=2, n_head=4,
        activation_function="gelu", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
        layer_norm_epsilon=1e-5, tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    hf = transformers.GPT2LMHeadModel(hf_cfg).eval()
    ours = GPT(ModelConfig(**SIZE, bias=True, pos="learned", norm="layernorm",
                           norm_placement="pre", activation="gelu", tie_weights=True)).eval()
    sd = hf.state_dict()
    mapped = {"tok_emb.weight": sd["transformer.wte.weight"],
              "pos_emb.weight": sd["transformer.wpe.weight"],
              "ln_f.weight": sd["transformer.ln_f.weight"], "ln_f.bias": sd["transformer.ln_f.bias"]}
    for i in range(2):
        h = f"transformer.h.{i}."
        b = f"blocks.{i}."
        for ours_name, hf_name in [("ln_1", "ln_1"), ("ln_2", "ln_2")]:
            mapped[b + ours_name + ".weight"] = sd[h + hf_name + ".weight"]
            mapped[b + ours_name + ".bias"] = sd[h + hf_name + ".bias"]
        # GPT-2's Conv1D stores weights as (in, out): transpose into nn.Linear's (out, in)
        for ours_name, hf_name in [("attn.qkv", "attn.c_attn"), ("attn.proj", "attn.c_proj"),
                                   ("mlp.fc", "mlp.c_fc"), ("mlp.proj", "mlp.c_proj")]:
            mapped[b + ours_name + ".weight"] = sd[h + hf_name + ".weight"].t()
            mapped[b + ours_name + ".bias"] = sd[h + hf_name + ".bias"]
    missing, unexpected = ours.load_state_dict(mapped, strict=False)
    assert missing == ["lm_head.weight"] and unexpected == []  # tied to tok_emb.weight
    assert ours.lm_head.weight is ours.tok_emb.weight
    idx = _tokens()
    with torch.no_grad():
        expected = hf(idx).logits
        got = ours(idx).logits
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)


def test_matches_transformers_llama():
    """RoPE, RMSNorm, SwiGLU, no biases, untied embeddings = Llama."""
    cfg = ModelConfig(**SIZE, bias=False, pos="rope", norm="rmsnorm", norm_placement="pre",
                      activation="swiglu", tie_weights=False, norm_eps=1e-6, mlp_ratio=3.0)
    hf_cfg = transformers.LlamaConfig(
        vocab_size=50, hidden_size=32, intermediate_size=cfg.hidden_size, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=32,
        rms_norm_eps=1e-6, rope_theta=10000.0, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False,
    )
    torch.manual_seed(0)
    hf = transformers.LlamaForCausalLM(hf_cfg).eval()
    randomise_norm_gains(hf)
    ours = GPT(cfg).eval()
    ours.load_state_dict(llama_family_weights(hf.state_dict(), n_layer=2), strict=True)
    idx = _tokens()
    with torch.no_grad():
        expected = hf(idx).logits
        got = ours(idx).logits
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)


def test_qk_norm_matches_transformers_qwen3():
    """RoPE, RMSNorm, SwiGLU, untied, and each head's queries and keys RMS-normed before RoPE
    (qk_norm) = Qwen3."""
    cfg = ModelConfig(**SIZE, bias=False, pos="rope", norm="rmsnorm", norm_placement="pre",
                      activation="swiglu", tie_weights=False, norm_eps=1e-6, mlp_ratio=3.0,
                      qk_norm=True)
    hf_cfg = transformers.Qwen3Config(
        vocab_size=50, hidden_size=32, intermediate_size=cfg.hidden_size, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, head_dim=cfg.head_size,
        max_position_embeddings=32, rms_norm_eps=1e-6, rope_theta=10000.0,
        tie_word_embeddings=False, attention_bias=False, use_sliding_window=False,
    )
    torch.manual_seed(0)
    hf = transformers.Qwen3ForCausalLM(hf_cfg).eval()
    randomise_norm_gains(hf)  # q_norm and k_norm too, so a wrong or missing one shows
    ours = GPT(cfg).eval()
    mapped = llama_family_weights(hf.state_dict(), n_layer=2, qk_norm=True)
    ours.load_state_dict(mapped, strict=True)
    idx = _tokens()
    with torch.no_grad():
        expected = hf(idx).logits
        got = ours(idx).logits
        without = GPT(dataclasses.replace(cfg, qk_norm=False))
        without.load_state_dict({k: v for k, v in mapped.items() if "_norm" not in k})
        unnormed = without.eval()(idx).logits
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)
    assert not torch.allclose(unnormed, expected, atol=1e-3)  # the norms do matter here


def test_relu2_is_squared_relu():
    """activation="relu2": the feed-forward is proj(relu(fc(x))**2), at the same width as ReLU."""
    torch.manual_seed(0)
    cfg = ModelConfig(**SIZE, activation="relu2", bias=True)
    mlp = GPT(cfg).blocks[0].mlp
    x = torch.randn(2, 10, 32)
    with torch.no_grad():
        expected = mlp.proj(F.relu(mlp.fc(x)) ** 2)
        got = mlp(x)
    torch.testing.assert_close(got, expected, atol=0, rtol=0)
    assert mlp.fc.out_features == ModelConfig(**SIZE, activation="relu").hidden_size == 128
    assert not torch.allclose(got, mlp.proj(F.relu(mlp.fc(x))))


@pytest.mark.parametrize("tie", [False, True])
def test_zero_init_zeroes_the_output_projections_and_an_untied_head(tie):
    """zero_init: every proj (and an untied head) is exactly zero; every other weight is drawn
    as without it; an untied zero head predicts uniformly (loss ln V exactly); and the zeros
    train away in a few steps."""
    torch.manual_seed(0)
    drawn = GPT(ModelConfig(**SIZE, tie_weights=tie, bias=True))
    torch.manual_seed(0)
    model = GPT(ModelConfig(**SIZE, tie_weights=tie, bias=True, zero_init=True))
    zeroed = {n for n in dict(model.named_parameters())
              if n.endswith(("attn.proj.weight", "mlp.proj.weight"))
              or (n == "lm_head.weight" and not tie)}
    assert len(zeroed) == 4 + (not tie)
    for name, p in model.named_parameters():
        if name in zeroed:
            assert not p.any(), name
        else:
            assert torch.equal(p, dict(drawn.named_parameters())[name]), name
    assert (model.lm_head.weight is model.tok_emb.weight) == tie
    idx, targets = _tokens(), _tokens(seed=1)
    logits, loss, _ = model(idx, targets)
    if not tie:  # every logit exactly 0; ln 50 up to float32 rounding in the log-sum-exp
        assert not logits.any()
        torch.testing.assert_close(loss, torch.tensor(math.log(50)))
    opt = model.configure_optimizer(0.0, 3e-3, (0.9, 0.99), "cpu")
    for _ in range(3):  # the head moves first, then the projections behind it
        opt.zero_grad()
        model(idx, targets).loss.backward()
        opt.step()
    assert all(dict(model.named_parameters())[n].any() for n in zeroed)
    assert model(idx, targets).loss < loss


VARIANTS = [
    dict(pos=pos, norm=norm, norm_placement=place, activation=act, tie_weights=tie, bias=bias,
         scale_embedding=scale)
    for pos, norm, place, act, tie, bias, scale in [
        ("learned", "layernorm", "pre", "gelu", True, False, False),
        ("sinusoidal", "rmsnorm", "post", "relu", False, True, True),
        ("rope", "rmsnorm", "pre", "swiglu", False, False, False),
        ("none", "layernorm", "post", "gelu", True, True, False),
        ("rope", "layernorm", "post", "relu", True, True, True),
        ("sinusoidal", "layernorm", "pre", "swiglu", True, False, False),
    ]
]
# the modded-nanogpt switches: ReLU², QK-norm, zero-initialised outputs (made non-zero by
# _model below, so the blocks do something), and the token shift
VARIANTS += [
    dict(pos="rope", norm="rmsnorm", norm_placement="pre", activation="relu2", tie_weights=False,
         bias=False, scale_embedding=False, qk_norm=True, zero_init=True, token_shift=True),
    dict(pos="learned", norm="layernorm", norm_placement="post", activation="relu2",
         tie_weights=True, bias=True, scale_embedding=False, qk_norm=True, zero_init=False,
         token_shift=True),
    dict(pos="sinusoidal", norm="rmsnorm", norm_placement="pre", activation="gelu",
         tie_weights=True, bias=False, scale_embedding=True, qk_norm=False, zero_init=True),
    # the bigram and value embeddings (zero tables, made non-zero by _model) and the soft-cap
    dict(pos="rope", norm="rmsnorm", norm_placement="pre", activation="relu2", tie_weights=True,
         bias=False, scale_embedding=False, qk_norm=True, token_shift=True, bigram=True,
         value_embed=True, logit_softcap=15.0),
    dict(pos="learned", norm="layernorm", norm_placement="post", activation="gelu",
         tie_weights=False, bias=True, scale_embedding=False, bigram=True, value_embed=True,
         logit_softcap=2.0),
]


def _model(variant: dict) -> GPT:
    """A seeded model of this variant, in eval mode. Zero-initialised weights get small random
    values, as after a few steps of training: blocks that write zeros would pass any check."""
    torch.manual_seed(0)
    model = GPT(ModelConfig(**SIZE, **variant))
    if model.config.zero_init or model.config.bigram or model.config.value_embed:
        with torch.no_grad():
            for p in model.parameters():
                if not p.any():
                    p.normal_(0.0, 0.02)
    return model.eval()


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(str(x) for x in v.values()))
def test_causal_for_every_variant(variant):
    """Changing token t changes no logit before t, and does change the logit at t."""
    model = _model(variant)
    idx = _tokens(B=1, T=20)
    t = 11
    changed = idx.clone()
    changed[0, t] = (idx[0, t] + 1) % 50
    with torch.no_grad():
        a, b = model(idx).logits, model(changed).logits
    torch.testing.assert_close(a[:, :t], b[:, :t], atol=0, rtol=0)
    assert not torch.allclose(a[:, t], b[:, t])


@pytest.mark.parametrize("variant", VARIANTS[:4] + VARIANTS[6:],
                         ids=lambda v: v["pos"] + "-" + v["norm_placement"])
def test_explicit_attention_path_equals_sdpa(variant):
    model = _model(variant)
    idx = _tokens(T=24)
    with torch.no_grad():
        fast = model(idx)
        slow = model(idx, return_attn=True)
    assert fast.attn is None
    torch.testing.assert_close(slow.logits, fast.logits, atol=1e-5, rtol=1e-5)
    assert len(slow.attn) == 2
    for att in slow.attn:
        assert att.shape == (2, 4, 24, 24)
        torch.testing.assert_close(att.sum(-1), torch.ones(2, 4, 24))
        upper = torch.triu(torch.ones(24, 24, dtype=torch.bool), diagonal=1)
        assert (att[..., upper] == 0).all()


def test_our_attention_equals_pytorch_kernel_reference():
    """One attention layer against PyTorch's own math, written with its causal kernel."""
    torch.manual_seed(0)
    cfg = ModelConfig(**SIZE)
    attn = GPT(cfg).blocks[0].attn.eval()
    x = torch.randn(2, 10, 32)
    q, k, v = attn.qkv(x).split(32, dim=2)
    q, k, v = (t.view(2, 10, 4, 8).transpose(1, 2) for t in (q, k, v))
    mask = torch.ones(10, 10).tril().bool()
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    expected = attn.proj(expected.transpose(1, 2).reshape(2, 10, 32))
    with torch.no_grad():
        got, weights = attn(x, return_attn=True)
    torch.testing.assert_close(got, expected, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v["pos"] + "-" + v["activation"])
def test_kv_cache_logits_equal_full_forward(variant):
    """Feeding tokens through the cache (a prefill, then one by one) gives the same logits."""
    model = _model(variant)
    idx = _tokens(B=1, T=20)
    with torch.no_grad():
        full = model(idx).logits
        cache = model.new_cache(1)
        pieces = [model(idx[:, :7], cache=cache).logits]
        pieces.append(model(idx[:, 7:12], cache=cache).logits)  # a chunk after a prefill
        pieces += [model(idx[:, t:t + 1], cache=cache).logits for t in range(12, 20)]
    assert cache.length == 20
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("variant", [{}, dict(pos="rope", qk_norm=True)], ids=["plain", "qk_norm"])
def test_attention_weights_through_cache_cover_all_past_keys(variant):
    torch.manual_seed(0)
    model = GPT(ModelConfig(**SIZE, **variant)).eval()
    idx = _tokens(B=1, T=6)
    with torch.no_grad():
        full = model(idx, return_attn=True).attn
        cache = model.new_cache(1)
        model(idx[:, :5], cache=cache)
        last = model(idx[:, 5:], cache=cache, return_attn=True).attn
    for layer in range(2):
        torch.testing.assert_close(last[layer][0, :, 0], full[layer][0, :, 5], atol=1e-6, rtol=1e-5)


def test_context_longer_than_block_size_is_refused_clearly():
    model = GPT(ModelConfig(**SIZE))
    with pytest.raises(ValueError, match="at most 32 tokens"):
        model(torch.zeros(1, 33, dtype=torch.long))


def test_loss_is_cross_entropy_and_label_smoothing_applies():
    torch.manual_seed(0)
    model = GPT(ModelConfig(**SIZE)).eval()
    idx, targets = _tokens(), _tokens(seed=1)
    out = model(idx, targets)
    expected = F.cross_entropy(out.logits.reshape(-1, 50), targets.reshape(-1))
    torch.testing.assert_close(out.loss, expected)
    smoothed = model(idx, targets, label_smoothing=0.1).loss
    assert not torch.allclose(smoothed, expected)
    # a fresh model is close to a uniform guess: ln(50) = 3.91 nats
    assert abs(out.loss.item() - torch.log(torch.tensor(50.0)).item()) < 0.1


def test_overfits_a_single_batch():
    torch.manual_seed(0)
    model = GPT(ModelConfig(**SIZE))
    opt = model.configure_optimizer(0.0, 3e-3, (0.9, 0.99), "cpu")
    idx = _tokens(B=4, T=16)
    x, y = idx[:, :-1], idx[:, 1:]
    for _ in range(150):
        loss = model(x, y).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.05


def test_weight_decay_only_on_matrices():
    model = GPT(ModelConfig(**SIZE, bias=True))
    opt = model.configure_optimizer(0.1, 1e-3, (0.9, 0.99), "cpu")
    decay, no_decay = opt.param_groups
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    assert all(p.dim() >= 2 for p in decay["params"]) and all(p.dim() == 1 for p in no_decay["params"])
    assert sum(p.numel() for g in opt.param_groups for p in g["params"]) == model.num_params()


def test_gpt2_style_init_scales_residual_projections():
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=50, block_size=32, n_layer=8, n_head=4, n_embd=256))
    assert abs(model.blocks[0].mlp.fc.weight.std().item() - 0.02) < 2e-3
    assert abs(model.blocks[0].mlp.proj.weight.std().item() - 0.02 / 4) < 1e-3


def test_param_count_matches_nanogpt_cpu_recipe():
    cfg = ModelConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
    model = GPT(cfg)
    # nanoGPT prints "number of parameters: 0.80M", which leaves out the position table
    assert model.num_params(non_embedding=True) == 795_904
    assert count_params(cfg) == model.num_params() == 804_096
    untied = GPT(ModelConfig(**{**cfg.to_dict(), "tie_weights": False}))
    assert untied.num_params() == 804_096 + 65 * 128
    assert flops_per_token(cfg, 795_904) == 6 * 795_904 + 12 * 4 * 4 * 32 * 64


def test_memory_estimate_grows_with_the_model():
    from playground.config import TrainConfig
    small = estimate_memory(ModelConfig(**SIZE), TrainConfig(batch_size=4))
    big = estimate_memory(ModelConfig(**{**SIZE, "n_embd": 256}), TrainConfig(batch_size=4))
    assert 0 < small < big


@pytest.mark.parametrize("kwargs,message", [
    (dict(n_embd=30, n_head=4), "divide evenly among the 4 attention heads"),
    (dict(n_embd=12, n_head=4, pos="rope"), "head size .* must be even"),
    (dict(pos="alibi"), "pos must be one of"),
    (dict(n_layer=0), "n_layer must be between"),
    (dict(dropout=1.5), "dropout must be between"),
    (dict(n_embd="wide"), "must be a whole number"),
])
def test_config_errors_are_readable(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        ModelConfig(**kwargs)




def test_model_errors_keep_their_english_and_have_chinese():
    model = GPT(ModelConfig(**SIZE))
    with pytest.raises(ValueError) as too_long:
        model(torch.zeros(1, 33, dtype=torch.long))
    assert str(too_long.value) == ("This model reads at most 32 tokens at once (block_size); it "
                                   "was given 33. Crop the input to the last 32 tokens.")
    cache = model.new_cache(1, max_len=4)
    model(torch.zeros(1, 3, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError) as full:
        model(torch.zeros(1, 2, dtype=torch.long), cache=cache)
    assert str(full.value) == ("The KV cache holds 4 tokens; it cannot take 2 more after 3. "
                               "Start a new cache (generation slides its window for this).")
    for error, numbers in [(too_long.value, ["32", "33"]), (full.value, ["4", "2", "3"])]:
        chinese = error_text(error, "zh-CN")
        assert CJK.search(chinese) and all(n in chinese for n in numbers), chinese


def test_token_shift_gives_half_of_each_position_the_numbers_of_the_one_before():
    """Written out position by position: the first half from t - 1 (zeros at 0), the rest t's."""
    x = torch.randn(2, 5, 6)
    expected = torch.stack([torch.cat([x[:, t - 1, :3] if t else torch.zeros(2, 3), x[:, t, 3:]],
                                      dim=-1) for t in range(5)], dim=1)
    assert torch.equal(TokenShift("attn")(x), expected)
    # the model's blocks shift what attention and the MLP read, and add no weights
    plain, shifted = (GPT(ModelConfig(**SIZE, token_shift=on)) for on in (False, True))
    assert plain.num_params() == shifted.num_params()
    assert [type(b.shift_1).__name__ for b in shifted.blocks] == ["TokenShift"] * SIZE["n_layer"]
    shifted.load_state_dict(plain.state_dict())  # the same weights: only the shift differs
    idx = torch.randint(0, SIZE["vocab_size"], (1, 12))
    assert not torch.allclose(plain(idx).logits, shifted(idx).logits)


def test_logit_softcap_matches_transformers_gemma2():
    """``SoftCap`` is Gemma 2's ``final_logit_softcapping``: the same `transformers` model with
    and without it gives logits that our soft-cap maps one onto the other."""
    hf_cfg = transformers.Gemma2Config(
        vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=4, head_dim=8, max_position_embeddings=32,
        final_logit_softcapping=None)
    torch.manual_seed(0)
    hf = transformers.Gemma2ForCausalLM(hf_cfg).eval()
    with torch.no_grad():
        hf.lm_head.weight.mul_(200.0)  # logits of tens, where the cap bends them
        idx = _tokens()
        plain = hf(idx).logits
        hf.config.final_logit_softcapping = 4.0
        capped = hf(idx).logits
    assert plain.abs().max() > 8.0
    torch.testing.assert_close(SoftCap(4.0)(plain), capped, atol=1e-5, rtol=1e-5)
    # and the model applies it last, to the head's output, wherever it is read
    model = GPT(ModelConfig(**SIZE, logit_softcap=3.0)).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(100.0)
        hidden, _ = model.residual_stream(idx)
        raw = model.lm_head(model.ln_f(hidden[-1]))
        torch.testing.assert_close(model(idx).logits, 3.0 * torch.tanh(raw / 3.0))
    assert raw.abs().max() > 3.0 >= model(idx).logits.abs().max()


def test_bigram_rows_are_the_pairs_and_start_as_nothing():
    """Row p * V + t for the pair (previous p, token t), hashed modulo the rows past
    BIGRAM_MAX_ROWS, and the zero row where there is no previous token. Every row starts at
    zero, so a new model with the table predicts exactly as the same weights without it."""
    bigram = BigramEmbedding(ModelConfig(vocab_size=65, n_embd=8, n_head=2))
    idx = torch.tensor([[3, 64, 0, 7]])
    assert bigram.rows == 65 * 65
    assert bigram.pairs(idx).tolist() == [[65 * 65, 3 * 65 + 64, 64 * 65, 7]]
    assert bigram.pairs(idx, previous=torch.tensor([[5]])).tolist()[0][0] == 5 * 65 + 3
    wide = BigramEmbedding(ModelConfig(vocab_size=1000, n_embd=8, n_head=2))
    assert wide.rows == BIGRAM_MAX_ROWS
    assert wide.pairs(torch.tensor([[999, 999]])).tolist() == [[BIGRAM_MAX_ROWS,
                                                               (999 * 1000 + 999) % BIGRAM_MAX_ROWS]]
    torch.manual_seed(0)
    plain = GPT(ModelConfig(**SIZE))
    torch.manual_seed(0)
    with_table = GPT(ModelConfig(**SIZE, bigram=True, value_embed=True))
    # the zero tables are made last and draw nothing: every other weight is the same draw
    assert all(torch.equal(p, with_table.state_dict()[k]) for k, p in plain.state_dict().items())
    idx = _tokens()
    assert torch.equal(plain(idx).logits, with_table(idx).logits)
    # a trained pair's row reaches exactly the positions that hold that pair
    with torch.no_grad():
        with_table.bigram.weight[idx[0, 0] * SIZE["vocab_size"] + idx[0, 1]] = 1.0
    hidden, _ = with_table.residual_stream(idx)
    pairs = with_table.bigram.pairs(idx)
    moved = (hidden[0] - plain.residual_stream(idx)[0][0]).abs().sum(-1) > 0  # (B, T)
    assert torch.equal(moved, pairs == pairs[0, 1])


def test_value_embeddings_add_to_each_layers_values():
    """A layer's value embedding of a token is added to the values attention mixes: with the
    weights of the value projection moved into it by hand, a model without them gives the same."""
    torch.manual_seed(0)
    cfg = ModelConfig(**{**SIZE, "n_layer": 1}, value_embed=True)
    model = GPT(cfg).eval()
    with torch.no_grad():
        model.value_embeds.weight.normal_(0.0, 0.5)
    idx = _tokens()
    C = SIZE["n_embd"]
    with torch.no_grad():
        got = model(idx).logits
        # by hand: the values of the attention are v(x) + table[token]
        block = model.blocks[0]
        x = model.tok_emb(idx) + model.pos_emb(0, idx.size(1))
        q, k, v = block.attn.qkv(block.ln_1(x)).split(C, dim=2)
        v = v + model.value_embeds.weight[0][idx]
        B, T = idx.shape
        q, k, v = (t.view(B, T, SIZE["n_head"], -1).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
        x = x + block.attn.proj(y)
        x = x + block.mlp(block.ln_2(x))
        expected = model.lm_head(model.ln_f(x))
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
