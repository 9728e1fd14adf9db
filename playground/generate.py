"""Text generation, one token at a time, with the sampling controls the page offers.

Sampling is a chain of small pure functions (as in gpt-fast): logits -> probabilities
(temperature, top-k, top-p) -> one token. ``generate`` streams a ``GenerationStep`` per token
with the text it adds and the most likely next tokens, for the probability chart.

A generation is a generator of steps, so whoever reads it decides when to stop: the page's
Stop button simply stops reading, and the text so far is exactly the first tokens of the text
an unstopped run would have written (the same seed draws the same tokens in the same order).
``generate_text`` is the same stream read to its end.

A seed of None is a new draw from the operating system's entropy (``fresh_seed``), not the
global torch generator: training seeds that one, so every session (and every CLI call,
which starts from torch's fixed default seed) would otherwise write the same "random" text.

The window the model reads: at most ``block_size`` tokens. When it is full, it slides by a
quarter of the context at once, keeping the last three quarters; the KV cache is then
refilled from that window. The uncached path reads exactly the same windows, so both give
the same tokens, and the cache only has to be refilled every ``block_size / 4`` tokens.

>>> probs = logits_to_probs(torch.tensor([2.0, 1.0, 0.0]), temperature=1.0, top_k=2)
>>> [round(p, 3) for p in probs.tolist()]
[0.731, 0.269, 0.0]
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Iterator

import torch

from playground.config import SampleConfig
from playground.model import GPT
from playground.runtime import compute


FRESH_SEEDS = 999_999  # fresh seeds are 1..FRESH_SEEDS: short enough to read out and type in


def fresh_seed() -> int:
    """A seed nobody chose, from the operating system's entropy: 1 to ``FRESH_SEEDS``.

    Never 0 (the page's "no fixed seed"), and small enough for a number box in the browser
    (JavaScript numbers are exact only up to 2**53) and for a person to copy.

    >>> 1 <= fresh_seed() <= FRESH_SEEDS
    True
    """
    return secrets.randbelow(FRESH_SEEDS) + 1


@dataclass(frozen=True)
class GenerationStep:
    token_id: int
    text: str  # the text this token adds (may be "" while a multi-byte character is incomplete)
    top: list[tuple[str, float]]  # the most likely next tokens and their probabilities


def logits_to_probs(logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None,
                    top_p: float | None = None) -> torch.Tensor:
    """Probabilities to sample from. Temperature 0 means greedy: all mass on the top token."""
    logits = logits.float()
    if temperature <= 0:
        probs = torch.zeros_like(logits)
        probs[logits.argmax()] = 1.0
        return probs
    logits = logits / temperature
    if top_k is not None and 0 < top_k < logits.numel():
        kth = torch.topk(logits, top_k).values[-1]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    if top_p is not None and 0 < top_p < 1:
        sorted_probs, order = probs.sort(descending=True)
        # keep the smallest set of tokens whose mass reaches top_p (always at least one)
        outside = sorted_probs.cumsum(0) - sorted_probs >= top_p
        sorted_probs[outside] = 0.0
        probs = torch.zeros_like(probs).scatter(0, order, sorted_probs)
        probs = probs / probs.sum()
    return probs


def sample(probs: torch.Tensor, generator: torch.Generator | None = None) -> int:
    return int(torch.multinomial(probs, 1, generator=generator))


def top_tokens(probs: torch.Tensor, tokenizer, n: int = 10) -> list[tuple[str, float]]:
    values, ids = probs.topk(min(n, probs.numel()))
    return [(tokenizer.token_str(int(i)), float(v)) for v, i in zip(values, ids) if v > 0]


def prompt_ids(tokenizer, prompt: str) -> list[int]:
    """The prompt's tokens; an empty prompt starts from a newline (or the first token)."""
    ids = tokenizer.encode(prompt) if prompt else []
    if not ids:
        ids = tokenizer.encode("\n") if _encodes(tokenizer, "\n") else [0]
    return ids


def _encodes(tokenizer, text: str) -> bool:
    try:
        return bool(tokenizer.encode(text))
    except ValueError:
        return False


@compute.routed
@torch.no_grad()
def generate(
    model: GPT,
    tokenizer,
    prompt: str = "",
    sampling: SampleConfig | None = None,
    *,
    use_cache: bool = True,
    top_n: int = 10,
) -> Iterator[GenerationStep]:
    """Stream new tokens after ``prompt`` as ``sampling`` says (default: ``SampleConfig()``).

    Stop early by no longer reading (or closing) the stream; see the module docstring for the
    window rule and for what a seed of None means.
    """
    sampling = sampling or SampleConfig()
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    block_size = model.config.block_size
    keep = block_size - max(1, block_size // 4)  # tokens kept when the window slides
    seed = sampling.seed if sampling.seed is not None else fresh_seed()
    generator = torch.Generator().manual_seed(seed)

    ids = prompt_ids(tokenizer, prompt)
    start = max(0, len(ids) - block_size)  # a long prompt is cropped to the context
    cache, cache_start = None, start  # the cache holds tokens of the window at cache_start

    def next_logits() -> torch.Tensor:
        nonlocal start, cache, cache_start
        if len(ids) - start > block_size:
            start = len(ids) - keep
        window = ids[start:]
        if not use_cache:
            return model(torch.tensor([window], device=device)).logits[0, -1]
        if cache is None or cache_start != start:  # first call, or the window slid
            cache, cache_start = model.new_cache(1), start
        new = window[cache.length :]  # only tokens the cache has not seen
        return model(torch.tensor([new], device=device), cache=cache).logits[0, -1]

    emitted = ""
    generated: list[int] = []
    try:
        for i in range(sampling.max_new_tokens):
            probs = logits_to_probs(next_logits().cpu(), sampling.temperature, sampling.top_k,
                                    sampling.top_p)
            token = sample(probs, generator)
            ids.append(token)
            generated.append(token)
            text = tokenizer.decode(generated)
            last = i == sampling.max_new_tokens - 1
            if text.endswith("\ufffd") and not last:
                new_text = ""  # an incomplete multi-byte character: wait for its other bytes
            else:
                new_text, emitted = text[len(emitted):], text
            yield GenerationStep(token, new_text, top_tokens(probs, tokenizer, top_n))
    finally:
        model.train(was_training)


@compute.routed
def generate_text(model: GPT, tokenizer, prompt: str = "", sampling: SampleConfig | None = None,
                  **kwargs) -> str:
    """All of ``generate`` at once: the new text only."""
    return "".join(step.text for step in generate(model, tokenizer, prompt, sampling, **kwargs))
