"""Generation and attention maps: sampling rules, the KV cache, the sliding window."""


import pytest
import torch

from playground.insight.attention import attention_maps
from playground.config import ModelConfig, SampleConfig
from playground.generate import generate, generate_text, logits_to_probs, sample
from playground.model import GPT
from playground.tokenizer import train_tokenizer

from checks import assert_translated

TEXT = "To be, or not to be, that is the question:\nWhether 'tis nobler in the mind to suffer\n"


@pytest.fixture(scope="module")
def char_tok():
    return train_tokenizer("char", TEXT)


def _model(tok, **kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=tok.vocab_size, block_size=16, n_layer=2, n_head=2, n_embd=16)
    return GPT(ModelConfig(**{**cfg, **kw})).eval()


def test_greedy_is_temperature_zero():
    probs = logits_to_probs(torch.tensor([0.1, 3.0, 2.9]), temperature=0)
    assert probs.tolist() == [0.0, 1.0, 0.0]


def test_top_k_and_top_p_cut_the_tail():
    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))
    assert (logits_to_probs(logits, top_k=2) > 0).tolist() == [True, True, False, False]
    # top-p 0.7: 0.5 alone is short of 0.7, 0.5 + 0.3 reaches it, so two tokens stay
    p = logits_to_probs(logits, top_p=0.7)
    assert (p > 0).tolist() == [True, True, False, False]
    torch.testing.assert_close(p[:2], torch.tensor([0.625, 0.375]))
    # temperature flattens or sharpens the same distribution
    hot, cold = logits_to_probs(logits, temperature=2.0), logits_to_probs(logits, temperature=0.5)
    assert hot[0] < 0.5 < cold[0]


def test_sampling_is_repeatable_with_a_seed():
    probs = torch.full((10,), 0.1)
    a = [sample(probs, torch.Generator().manual_seed(3)) for _ in range(5)]
    b = [sample(probs, torch.Generator().manual_seed(3)) for _ in range(5)]
    assert a == b


@pytest.mark.parametrize("pos", ["learned", "sinusoidal", "rope", "none"])
def test_cached_generation_equals_uncached_past_the_context(char_tok, pos):
    """Greedy output with the KV cache equals recomputing, for 60 tokens with context 16:
    the window slides several times (learned positions included)."""
    model = _model(char_tok, pos=pos)
    sampling = SampleConfig(max_new_tokens=60, temperature=0)
    with_cache = [s.token_id for s in generate(model, char_tok, "To be", sampling, use_cache=True)]
    without = [s.token_id for s in generate(model, char_tok, "To be", sampling, use_cache=False)]
    assert len(with_cache) == 60
    assert with_cache == without


@pytest.mark.parametrize("switch", [dict(activation="relu2"), dict(qk_norm=True),
                                    dict(qk_norm=True, pos="rope"),
                                    dict(zero_init=True, tie_weights=False),
                                    dict(token_shift=True, pos="rope"),
                                    dict(token_shift=True, norm_placement="post"),
                                    dict(bigram=True, value_embed=True, logit_softcap=5.0,
                                         token_shift=True, pos="rope")],
                         ids=["relu2", "qk_norm", "qk_norm-rope", "zero_init", "token_shift",
                              "token_shift-post", "bigram-value_embed-softcap"])
def test_cached_generation_equals_uncached_with_each_switch(char_tok, switch):
    model = _model(char_tok, **switch)
    with torch.no_grad():  # weights spread wide, so the greedy path varies (a zero head would not)
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    sampling = SampleConfig(max_new_tokens=60, temperature=0)
    with_cache = [s.token_id for s in generate(model, char_tok, "To be", sampling, use_cache=True)]
    without = [s.token_id for s in generate(model, char_tok, "To be", sampling, use_cache=False)]
    assert with_cache == without and len(set(with_cache)) > 1


def test_seeded_sampling_streams_the_same_text_twice(char_tok):
    model = _model(char_tok)
    sampling = SampleConfig(max_new_tokens=30, temperature=1.0, top_k=5, seed=7)
    a = generate_text(model, char_tok, "the", sampling)
    b = generate_text(model, char_tok, "the", sampling)
    assert a == b and len(a) == 30


@pytest.mark.parametrize("use_cache", [True, False])
def test_streaming_equals_the_one_shot_text_and_a_stopped_stream_is_its_start(char_tok, use_cache):
    """For a fixed seed the streamed pieces join to generate_text's text, and a stream read
    for only 12 tokens (the page's Stop) wrote exactly the first 12 tokens of the full one."""
    model = _model(char_tok)
    sampling = SampleConfig(max_new_tokens=40, temperature=1.0, top_p=0.9, seed=11)
    steps = list(generate(model, char_tok, "to", sampling, use_cache=use_cache))
    whole = generate_text(model, char_tok, "to", sampling, use_cache=use_cache)
    assert "".join(s.text for s in steps) == whole == char_tok.decode([s.token_id for s in steps])
    model.train()  # the stream switches it to eval; closing the stream must switch it back
    stream = generate(model, char_tok, "to", sampling, use_cache=use_cache)
    first = [next(stream).token_id for _ in range(12)]
    stream.close()  # what the page does on Stop: it reads no further
    assert first == [s.token_id for s in steps[:12]]
    assert model.training  # closing ran the generator's clean-up


def test_no_seed_is_a_fresh_draw_that_ignores_the_global_generator(char_tok, monkeypatch):
    """Training seeds the global generator, so reading it would give every session the same
    'random' text: a seed of None draws a fresh seed and leaves the global one alone."""
    import playground.generate as gen

    model = _model(char_tok)
    monkeypatch.setattr(gen, "fresh_seed", lambda: 5)
    torch.manual_seed(0)
    before = torch.get_rng_state()
    unseeded = generate_text(model, char_tok, "to", SampleConfig(30, temperature=1.0))
    assert torch.get_rng_state().equal(before)
    assert unseeded == generate_text(model, char_tok, "to", SampleConfig(30, temperature=1.0, seed=5))
    monkeypatch.undo()
    seeds = {gen.fresh_seed() for _ in range(50)}
    assert all(1 <= s <= gen.FRESH_SEEDS for s in seeds) and len(seeds) > 1


def test_long_prompt_is_cropped_and_empty_prompt_starts_from_newline(char_tok):
    model = _model(char_tok)
    long_prompt = TEXT * 3  # far longer than the 16-token context
    assert len(generate_text(model, char_tok, long_prompt, SampleConfig(5, temperature=0))) == 5
    assert len(generate_text(model, char_tok, "", SampleConfig(5, temperature=0))) == 5


def test_each_step_carries_the_top_next_tokens(char_tok):
    model = _model(char_tok)
    steps = list(generate(model, char_tok, "to", SampleConfig(3, temperature=1.0, seed=0),
                          top_n=10))
    for step in steps:
        assert len(step.top) == 10
        probs = [p for _, p in step.top]
        assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0 + 1e-6
        assert all(isinstance(s, str) for s, _ in step.top)


def test_bpe_generation_streams_whole_characters():
    text = "你好，世界。Привет, мир! 😀 hello world. " * 20
    tok = train_tokenizer("bpe", text, vocab_size=300)
    model = _model(tok, block_size=32)
    steps = list(generate(model, tok, "你好", SampleConfig(40, temperature=1.0, seed=1)))
    streamed = "".join(s.text for s in steps)
    assert streamed == tok.decode([s.token_id for s in steps])


def test_generation_leaves_the_model_in_its_mode(char_tok):
    model = _model(char_tok).train()
    generate_text(model, char_tok, "to", SampleConfig(max_new_tokens=2))
    assert model.training


def test_attention_maps_for_a_text(char_tok):
    model = _model(char_tok)
    maps = attention_maps(model, char_tok, "to be or not")
    assert maps.weights.shape == (2, 2, 12, 12)
    assert maps.tokens == list("to be or not")
    assert maps.weights.sum(-1) == pytest.approx(1.0, abs=1e-5)
    # a longer text is cut to the context
    assert attention_maps(model, char_tok, TEXT).weights.shape[-1] == 16
    with pytest.raises(ValueError, match="at least one token"):
        attention_maps(model, char_tok, "   ")


@pytest.mark.parametrize("call, english", [
    (lambda model, tok: list(generate(model, tok, "to", SampleConfig(max_new_tokens=-1))),
     "max_new_tokens must be between 1 and 2,000, got -1."),
    (lambda model, tok: attention_maps(model, tok, "   "),
     "Type some text to look at: the attention map needs at least one token."),
])
def test_generation_errors_keep_their_english_and_have_chinese(char_tok, call, english):
    with pytest.raises(ValueError) as info:
        call(_model(char_tok), char_tok)
    assert_translated(info.value, english)
