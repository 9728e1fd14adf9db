"""Generation with and without the KV cache, BPE training and encoding speed."""

from __future__ import annotations

import time

import torch

from bench.core import Context, Row, check, median
from playground.config import PRESETS, SampleConfig, replace
from playground.generate import generate
from playground.model import GPT
from playground.tokenizer import train_tokenizer


def _generate_ids(model, tok, prompt: str, n: int, use_cache: bool) -> tuple[list[int], float]:
    start = time.perf_counter()
    ids = [step.token_id for step in generate(model, tok, prompt, SampleConfig(n, temperature=0.0),
                                              use_cache=use_cache, top_n=1)]
    return ids, time.perf_counter() - start


def generation(ctx: Context) -> list[Row]:
    """Greedy tokens/s for 500 new tokens at context 256, nanogpt-gpu size, cache vs none.

    The weights are a fresh initialisation (speed does not depend on them). Greedy decoding
    makes the two paths comparable token by token; the prompt fills most of the context, so
    the window is full almost at once and slides (by a quarter) as generation goes on.
    """
    text = ctx.shakespeare()
    tok = train_tokenizer("char", text)
    cfg = replace(PRESETS["nanogpt-gpu"].model, vocab_size=tok.vocab_size, dropout=0.0)
    n_new, repeats = 500, 2
    if ctx.quick:
        cfg = replace(cfg, n_layer=1, n_head=2, n_embd=16, block_size=32)
        n_new, repeats = 40, 1
    torch.manual_seed(0)
    model = GPT(cfg).eval()
    prompt = text[: cfg.block_size * 3 // 4]
    _generate_ids(model, tok, prompt, 8, True)  # warm-up of both paths
    _generate_ids(model, tok, prompt, 8, False)
    times = {True: [], False: []}
    outputs = {}
    for r in range(repeats):
        for use_cache in ((True, False) if r % 2 == 0 else (False, True)):
            ids, seconds = _generate_ids(model, tok, prompt, n_new, use_cache)
            times[use_cache].append(seconds)
            outputs[use_cache] = ids
    same = outputs[True] == outputs[False]
    cached, uncached = n_new / median(times[True]), n_new / median(times[False])
    shape = f"{cfg.n_layer}L x {cfg.n_embd}, ctx {cfg.block_size}, {n_new} new tokens, greedy"
    rows = [
        Row("generate", "tokens/s with KV cache", cached, "tok/s", note=shape),
        Row("generate", "tokens/s recomputing", uncached, "tok/s"),
        Row("generate", "KV cache speed-up", cached / uncached, "x", ">= 5x",
            met=check(cached / uncached, 5.0, higher_is_better=True)),
        Row("generate", "same tokens with and without cache", same, "", "yes", met=same),
    ]
    if not same:
        first = next(i for i, (a, b) in enumerate(zip(outputs[True], outputs[False])) if a != b)
        rows[-1] = Row("generate", "same tokens with and without cache", same, "", "yes", met=False,
                       note=f"first difference at new token {first}")
    return rows


def bpe(ctx: Context) -> list[Row]:
    """BPE training time at vocab 512 and 4096 on Tiny Shakespeare; encode MB/s."""
    text = ctx.shakespeare()
    megabytes = len(text.encode("utf-8")) / 1e6
    repeats = 1 if ctx.quick else 3
    rows = []
    for vocab in (512, 4096):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            tok = train_tokenizer("bpe", text, vocab)
            times.append(time.perf_counter() - start)
        rows.append(Row("bpe", f"train time, vocab {vocab}", median(times), "s", "<= 1 s",
                        met=check(median(times), 1.0, higher_is_better=False),
                        note=f"{megabytes:.2f} MB, median of {repeats}"))
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            ids = tok.encode(text)
            times.append(time.perf_counter() - start)
        rows.append(Row("bpe", f"encode, vocab {vocab}", megabytes / median(times), "MB/s",
                        note=f"{len(ids):,} tokens, {len(text) / len(ids):.2f} chars/token"))
    return rows
