"""One attention head's arithmetic, step by step, with the model's own numbers.

For a layer, a head and a position, ``head_arithmetic`` takes what that head computes from
the model itself: the vector the block hands its attention (after the norm, and the token
shift where there is one), the head's slice of the query, key and value projections, the
QK-norm and the RoPE rotation when the model has them, the dot products, the division by
√d_k, the causal mask, the softmax, the weighted sum of the values and what that sum, through
the head's slice of the output projection, adds to the residual stream. ``head_steps`` says
each step in one plain sentence with its numbers, for the Inside tab's Previous/Next.

Every number is the model's: the tests check the weights against the model's own attention
and the weighted sum against what PyTorch's fused kernel gave the output projection.

>>> import torch
>>> from playground.config import ModelConfig
>>> from playground.model import GPT
>>> from playground.tokenizer import train_tokenizer
>>> tok = train_tokenizer("char", "abcd>dcba")
>>> _ = torch.manual_seed(0)
>>> model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=16, n_layer=1, n_head=2,
...                         n_embd=8, pos="rope", qk_norm=True))
>>> a = head_arithmetic(model, tok, "abcd>", layer=0, head=1, position=4)
>>> a.weights.shape, round(float(a.weights.sum()), 5)
((5,), 1.0)
>>> [step.key for step in head_steps(a)]   # doctest: +NORMALIZE_WHITESPACE
['query', 'keys', 'qk_norm', 'rope', 'dots', 'scale', 'mask', 'softmax', 'values',
 'weighted_sum', 'residual']
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from playground.i18n import Message, localize, msg, t
from playground.model import GPT
from playground.plots import display_token

DIGITS = 3  # decimals shown


@dataclass(frozen=True)
class HeadArithmetic:
    """The numbers of one head at one position (T tokens, hs numbers per head, C in the stream)."""

    tokens: list[str]
    layer: int
    head: int
    position: int  # the token asking (the query)
    q: np.ndarray  # (hs,) its query: the head's slice of x @ W_q
    k: np.ndarray  # (T, hs) every token's key
    v: np.ndarray  # (T, hs) every token's value
    q_normed: np.ndarray | None  # (hs,) after QK-norm (None without it)
    k_normed: np.ndarray | None  # (T, hs)
    q_rotated: np.ndarray | None  # (hs,) after the RoPE rotation (None without RoPE)
    k_rotated: np.ndarray | None  # (T, hs)
    dots: np.ndarray  # (T,) the query · each key, later ones too (the mask hides them next)
    scaled: np.ndarray  # (T,) divided by √hs
    masked: np.ndarray  # (T,) later positions at -inf
    weights: np.ndarray  # (T,) softmax: zero after the position
    out: np.ndarray  # (hs,) the weighted sum of the values
    added: np.ndarray  # (C,) out through the head's slice of the output projection

    @property
    def head_size(self) -> int:
        return len(self.q)


@torch.no_grad()
def head_arithmetic(model: GPT, tokenizer, text: str, layer: int, head: int,
                    position: int) -> HeadArithmetic:
    """The arithmetic of ``head`` in ``layer`` (0-based) for the token at ``position`` of
    ``text`` (cut to the context), from one forward pass of ``model`` in eval mode."""
    ids = tokenizer.encode(text)[:model.config.block_size] if text else []
    if not ids:
        raise ValueError(msg("Type a prompt: the forward pass needs at least one token."))
    attn = model.blocks[layer].attn
    seen = {}

    def keep_input(module, args) -> None:  # returns None: the forward goes on unchanged
        seen["x"] = args[0]

    hook = attn.register_forward_pre_hook(keep_input)
    was_training = model.training
    model.eval()
    try:
        model(torch.tensor([ids], device=model.tok_emb.weight.device))
    finally:
        hook.remove()
        model.train(was_training)
    x = seen["x"][0].float()  # (T, C): what this block's attention reads
    T, hs = len(ids), attn.head_size
    p = min(max(int(position), 0), T - 1)
    cols = slice(head * hs, (head + 1) * hs)
    W = attn.qkv.weight.float()  # (3C, C): the rows of W_q, then W_k, then W_v
    bias = attn.qkv.bias.float() if attn.qkv.bias is not None else torch.zeros(W.size(0))
    C = x.size(-1)

    def project(part: int) -> torch.Tensor:  # (T, hs): this head's slice of q, k or v
        rows = slice(part * C + head * hs, part * C + (head + 1) * hs)
        return x @ W[rows].T + bias[rows]

    q, k, v = project(0), project(1), project(2)  # (T, hs) each

    def as_heads(t):  # (1, 1, T, hs): the shape the model's modules take
        return t[None, None]

    q_normed = k_normed = q_rotated = k_rotated = None
    q_used, k_used = q, k
    if not isinstance(attn.q_norm, torch.nn.Identity):
        q_used, k_used = attn.q_norm(as_heads(q))[0, 0].float(), attn.k_norm(as_heads(k))[0, 0].float()
        q_normed, k_normed = q_used, k_used
    if attn.rotary is not None:
        q_used, k_used = attn.rotary(as_heads(q_used), 0)[0, 0], attn.rotary(as_heads(k_used), 0)[0, 0]
        q_rotated, k_rotated = q_used, k_used
    dots = k_used @ q_used[p]  # (T,)
    scaled = dots / math.sqrt(hs)
    masked = scaled.masked_fill(torch.arange(T) > p, float("-inf"))
    weights = masked.softmax(-1)
    out = weights @ v  # (hs,)
    added = out @ attn.proj.weight.float()[:, cols].T  # (C,)

    def arr(t):
        return None if t is None else t.detach().cpu().numpy()

    return HeadArithmetic(
        tokens=tokenizer.token_strs(ids), layer=layer, head=head, position=p,
        q=arr(q[p]), k=arr(k), v=arr(v),
        q_normed=arr(q_normed[p]) if q_normed is not None else None, k_normed=arr(k_normed),
        q_rotated=arr(q_rotated[p]) if q_rotated is not None else None, k_rotated=arr(k_rotated),
        dots=arr(dots), scaled=arr(scaled), masked=arr(masked), weights=arr(weights),
        out=arr(out), added=arr(added))


@dataclass(frozen=True)
class Step:
    """One step as the page shows it: a title, one plain sentence, and its numbers."""

    key: str
    title: Message
    sentence: Message
    table: str  # Markdown


def _number(x: float) -> str:
    return "−∞" if x == float("-inf") else f"{x:.{DIGITS}f}"


def _vector(values: np.ndarray, limit: int = 16) -> str:
    shown = ", ".join(_number(float(x)) for x in values[:limit])
    return f"[{shown}{', …' if len(values) > limit else ''}]"


def _rows(a: HeadArithmetic, columns: list[tuple[str, list[str]]], upto: int | None = None) -> str:
    """A Markdown table: one row per token (up to ``upto``), with the given columns."""
    n = len(a.tokens) if upto is None else upto + 1
    head = "| # | token | " + " | ".join(name for name, _ in columns) + " |"
    rule = "|---|---|" + "---|" * len(columns)
    lines = [head, rule]
    for j in range(n):
        mark = " ←" if j == a.position else ""
        cells = " | ".join(values[j] for _, values in columns)
        lines.append(f"| {j}{mark} | `{display_token(a.tokens[j])}` | {cells} |")
    return "\n".join(lines)


def head_steps(a: HeadArithmetic) -> list[Step]:
    """The head's arithmetic as steps (QK-norm and RoPE only where the model has them)."""
    p, hs = a.position, a.head_size
    token = display_token(a.tokens[p])
    def vectors(m):
        return [_vector(row) for row in m]

    def numbers(v):
        return [_number(float(x)) for x in v]

    def query_and_keys(q, k) -> str:  # a step that changes the query and the keys alike
        return f"q = `{_vector(q)}`\n\n" + _rows(a, [("k", vectors(k))], p)

    steps = [
        Step("query", msg("1. The query"),
             msg("The token {token} at position {position} asks its question: its vector times "
                 "the head's query matrix W_q gives {hs} numbers.", token=token, position=p, hs=hs),
             f"q = `{_vector(a.q)}`"),
        Step("keys", msg("2. The keys"),
             msg("Every token up to it offers a key: its vector times W_k. Tokens whose key "
                 "points the same way as the query will get attention."),
             _rows(a, [("k", vectors(a.k))], p)),
    ]
    if a.q_normed is not None:
        steps.append(Step("qk_norm", msg("QK-norm"),
                          msg("This model rescales each query and key to the same size (RMSNorm "
                              "with learned gains), so only their directions and the gains "
                              "decide the scores."),
                          query_and_keys(a.q_normed, a.k_normed)))
    if a.q_rotated is not None:
        steps.append(Step("rope", msg("RoPE: the rotation"),
                          msg("This model turns the query and every key by an angle that grows "
                              "with their position (RoPE), so their dot product depends on how "
                              "far apart they are."),
                          query_and_keys(a.q_rotated, a.k_rotated)))
    steps += [
        Step("dots", msg("3. Dot products"),
             msg("Multiply the query by each key, number by number, and add up: one score per "
                 "token. Tokens after position {position} get scores too, but the mask will "
                 "hide them.", position=p),
             _rows(a, [("q · k", numbers(a.dots))])),
        Step("scale", msg("4. Divide by √d_k"),
             msg("Divide every score by √{hs} = {root}, so the scores do not grow with the head "
                 "size and the softmax stays soft.", hs=hs, root=f"{math.sqrt(hs):.3f}"),
             _rows(a, [("q · k / √d_k", numbers(a.scaled))])),
        Step("mask", msg("5. The causal mask"),
             msg("A token may not look at tokens after it: their scores become −∞, which the "
                 "softmax turns into 0."),
             _rows(a, [("masked", numbers(a.masked))])),
        Step("softmax", msg("6. Softmax"),
             msg("e to the power of each score, divided by their sum: weights between 0 and 1 "
                 "that add up to 1. This row is the row of position {position} in the attention "
                 "map.", position=p),
             _rows(a, [("weight", numbers(a.weights))])),
        Step("values", msg("7. The values"),
             msg("Every token also offers a value (its vector times W_v): what it passes on "
                 "when it is looked at."),
             _rows(a, [("weight", numbers(a.weights)), ("v", vectors(a.v))], p)),
        Step("weighted_sum", msg("8. The weighted sum"),
             msg("Add up the values, each times its weight: the {hs} numbers this head read "
                 "for position {position}.", hs=hs, position=p),
             f"Σ weight × v = `{_vector(a.out)}`"),
        Step("residual", msg("9. Into the residual stream"),
             msg("The head's slice of the output matrix W_o turns those {hs} numbers into "
                 "{width}, added to the token's vector in the residual stream (size {size}).",
                 hs=hs, width=len(a.added), size=f"{float(np.linalg.norm(a.added)):.3f}"),
             f"added = `{_vector(a.added, limit=len(a.added))}`"),
    ]
    return steps


def step_markdown(steps: list[Step], index: int, lang: str = "en") -> str:
    """Step ``index`` of ``steps`` as Markdown in ``lang``: its title, where it stands among
    the steps, its sentence and its numbers."""
    step = steps[index]
    return (f"**{localize(step.title, lang)}** · "
            + t("step {number} of {total}", lang, number=index + 1, total=len(steps))
            + f"\n\n{localize(step.sentence, lang)}\n\n{step.table}")
