"""Models of every architecture variant with both tokenizers, for the views inside the model
(test_lens, test_surprise, test_embedding_map): small, seeded, built in a few milliseconds."""

import functools

import pytest
import torch

from playground.config import ModelConfig
from playground.corpus import load_tiny_shakespeare
from playground.model import GPT
from playground.tokenizer import train_tokenizer

# each variant of ModelConfig at least once: positions, norm placement and type, activation,
# biases, an untied head, QK-norm, the scaled embedding
VARIANTS = {
    "learned": dict(pos="learned"),
    "sinusoidal-relu": dict(pos="sinusoidal", activation="relu"),
    "rope-qk_norm": dict(pos="rope", qk_norm=True),
    "none-post": dict(pos="none", norm_placement="post"),
    "swiglu-rmsnorm-untied-bias": dict(activation="swiglu", norm="rmsnorm", tie_weights=False,
                                       bias=True),
    "relu2-scaled": dict(activation="relu2", scale_embedding=True),
}
SHAPE = dict(block_size=32, n_layer=2, n_head=2, n_embd=16)


@functools.lru_cache(maxsize=None)
def text() -> str:
    return load_tiny_shakespeare("bundled").text[:4000]


@functools.lru_cache(maxsize=None)
def tokenizer(kind: str):
    return train_tokenizer(kind, text(), vocab_size=320 if kind == "bpe" else None)


def build(kind: str, variant: str, seed: int = 0) -> GPT:
    torch.manual_seed(seed)
    cfg = ModelConfig(vocab_size=tokenizer(kind).vocab_size, **SHAPE, **VARIANTS[variant])
    return GPT(cfg)


@pytest.fixture(params=[(kind, variant) for kind in ("char", "bpe") for variant in VARIANTS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def variant_model(request):
    """(model, tokenizer, text) for one tokenizer kind and one architecture variant."""
    kind, variant = request.param
    return build(kind, variant), tokenizer(kind), text()
