"""A decoder-only Transformer written from PyTorch primitives, read top to bottom.

The parts come before the whole: normalisation, positions, attention, feed-forward, block,
and then ``GPT``. Every variant of the classic tutorials is picked when a module is built
(``ModelConfig``), so each ``forward`` stays a straight line.

Shapes: B = batch, T = tokens in this call, S = tokens attended to (T plus any cached ones),
C = n_embd, nh = n_head, hs = head size (C / nh), V = vocab_size.

>>> from playground.config import ModelConfig
>>> model = GPT(ModelConfig(vocab_size=10, block_size=8, n_layer=1, n_head=2, n_embd=8))
>>> logits, loss, attn = model(torch.zeros(1, 5, dtype=torch.long))
>>> tuple(logits.shape), loss, attn
((1, 5, 10), None, None)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from playground.config import BIGRAM_MAX_ROWS, ModelConfig, TrainConfig
from playground.i18n import msg

# ---------------------------------------------------------------------------------------------
# Normalisation


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (PyTorch's own cannot drop just the bias)."""

    def __init__(self, n_embd: int, bias: bool, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n_embd))
        self.bias = nn.Parameter(torch.zeros(n_embd)) if bias else None
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)


class RMSNorm(nn.Module):
    """Root-mean-square norm (Llama): rescale only, no centring, no bias."""

    def __init__(self, n_embd: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n_embd))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # computed in float32 so bf16 activations do not lose the small mean square
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.type_as(x) * self.weight


def make_norm(cfg: ModelConfig) -> nn.Module:
    if cfg.norm == "rmsnorm":
        return RMSNorm(cfg.n_embd, cfg.norm_eps)
    return LayerNorm(cfg.n_embd, cfg.bias, cfg.norm_eps)


# ---------------------------------------------------------------------------------------------
# Dropout, drawn from a generator of the run's own


class Dropout(nn.Module):
    """``nn.Dropout`` whose masks come from ``self.generator``: the trainer gives every run its
    own (``GPT.use_dropout_generator``), so runs side by side in one process never draw from
    one shared stream. None draws from PyTorch's global generator, as ``nn.Dropout`` does, and
    then gives the same numbers (on the CPU): keep each value with probability 1 - p and scale
    the kept ones by 1 / (1 - p).

    >>> x = torch.ones(2, 4)
    >>> drop = Dropout(0.5)
    >>> drop.generator = torch.Generator().manual_seed(0)
    >>> drop(x)
    tensor([[0., 0., 2., 0.],
            [0., 0., 2., 2.]])
    >>> drop.eval()(x).equal(x)  # evaluation and p = 0 pass x through untouched
    True
    """

    def __init__(self, p: float):
        super().__init__()
        self.p = p
        self.generator: torch.Generator | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        keep = torch.empty_like(x).bernoulli_(1.0 - self.p, generator=self.generator)
        return x * keep.div_(1.0 - self.p)


# ---------------------------------------------------------------------------------------------
# Positions: added to the token embeddings (learned, sinusoidal, none) or rotated into the
# queries and keys inside attention (RoPE).


class LearnedPositions(nn.Module):
    """One trained vector per position, as in GPT-2."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        # drawn as nn.Embedding draws its table (GPT._init_weights redraws it), so a seeded
        # model takes the same random numbers as nanoGPT's, whose wpe is an nn.Embedding
        self.weight = nn.Parameter(torch.empty(cfg.block_size, cfg.n_embd))
        nn.init.normal_(self.weight)

    def forward(self, start: int, T: int) -> torch.Tensor:
        return self.weight[start : start + T]  # (T, C)


class SinusoidalPositions(nn.Module):
    """The fixed sine/cosine table of "Attention Is All You Need" (no parameters)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        pos = torch.arange(cfg.block_size, dtype=torch.float32)[:, None]  # (block_size, 1)
        i = torch.arange(0, cfg.n_embd, 2, dtype=torch.float32)  # (ceil(C/2),)
        angle = pos / torch.pow(10000.0, i / cfg.n_embd)  # (block_size, ceil(C/2))
        table = torch.zeros(cfg.block_size, cfg.n_embd)
        table[:, 0::2] = torch.sin(angle)
        table[:, 1::2] = torch.cos(angle[:, : cfg.n_embd // 2])
        self.register_buffer("table", table, persistent=False)

    def forward(self, start: int, T: int) -> torch.Tensor:
        return self.table[start : start + T]  # (T, C)


class NoPositions(nn.Module):
    """No position signal at all: the causal mask alone tells tokens apart by order."""

    def forward(self, start: int, T: int) -> float:
        return 0.0


class Rotary(nn.Module):
    """Rotary position embedding (RoPE), in the half-split layout Llama uses.

    Each head's vector is cut into two halves (x1, x2); pair i is rotated by the angle
    position * base^(-2i/hs). Dot products between rotated queries and keys then depend on
    the distance between positions only.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        hs = cfg.head_size
        inv_freq = 1.0 / (cfg.rope_base ** (torch.arange(0, hs, 2, dtype=torch.float32) / hs))
        angle = torch.outer(torch.arange(cfg.block_size, dtype=torch.float32), inv_freq)
        angle = torch.cat([angle, angle], dim=-1)  # (block_size, hs)
        self.register_buffer("cos", angle.cos(), persistent=False)
        self.register_buffer("sin", angle.sin(), persistent=False)

    def forward(self, x: torch.Tensor, start: int) -> torch.Tensor:
        T = x.size(-2)
        cos, sin = self.cos[start : start + T], self.sin[start : start + T]  # (T, hs)
        x1, x2 = x.chunk(2, dim=-1)
        rotated = torch.cat([-x2, x1], dim=-1)
        return (x * cos + rotated * sin).type_as(x)  # (B, nh, T, hs)


def make_positions(cfg: ModelConfig) -> nn.Module:
    return {"learned": LearnedPositions, "sinusoidal": SinusoidalPositions}.get(
        cfg.pos, lambda _: NoPositions()
    )(cfg)


# ---------------------------------------------------------------------------------------------
# The KV cache: keys and values of tokens already seen, so generation feeds one token a step.


class LayerKVCache:
    """Pre-allocated keys and values of one layer: (B, nh, max_len, hs) each."""

    def __init__(self, B: int, n_head: int, max_len: int, head_size: int, device, dtype):
        self.k = torch.zeros(B, n_head, max_len, head_size, device=device, dtype=dtype)
        self.v = torch.zeros_like(self.k)
        self.length = 0
        self.last: dict[str, torch.Tensor] = {}  # token shift: the last vector each shift saw

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        T = k.size(2)
        if self.length + T > self.k.size(2):
            raise ValueError(msg("The KV cache holds {size} tokens; it cannot take {n} more after "
                                 "{length}. Start a new cache (generation slides its window for "
                                 "this).", size=self.k.size(2), n=T,
                                 length=self.length))
        self.k[:, :, self.length : self.length + T] = k
        self.v[:, :, self.length : self.length + T] = v
        self.length += T
        return self.k[:, :, : self.length], self.v[:, :, : self.length]  # (B, nh, S, hs)


class KVCache:
    """One ``LayerKVCache`` per layer; ``length`` is the number of tokens already cached."""

    def __init__(self, layers: list[LayerKVCache]):
        self.layers = layers
        self.last_token: torch.Tensor | None = None  # (B, 1): the bigram's previous token

    @property
    def length(self) -> int:
        return self.layers[0].length


# ---------------------------------------------------------------------------------------------
# Attention


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention, scaled by 1/sqrt(head size).

    Two paths compute the same thing: the fast fused kernel
    (``F.scaled_dot_product_attention``) and, only when the caller asks for the weights, an
    explicit softmax that also returns them.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.n_head, self.head_size = cfg.n_head, cfg.head_size
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=cfg.bias)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd, bias=cfg.bias)
        self.proj.is_residual_projection = True  # scaled down at init, see GPT.__init__
        self.rotary = Rotary(cfg) if cfg.pos == "rope" else None
        # QK-norm (Qwen3): each head's queries and keys RMS-normed over hs, before RoPE
        self.q_norm = RMSNorm(cfg.head_size, cfg.norm_eps) if cfg.qk_norm else nn.Identity()
        self.k_norm = RMSNorm(cfg.head_size, cfg.norm_eps) if cfg.qk_norm else nn.Identity()
        self.attn_dropout = Dropout(cfg.dropout)  # on the weights: training takes the explicit path
        self.resid_dropout = Dropout(cfg.dropout)

    def forward(self, x, cache: LayerKVCache | None = None, return_attn: bool = False,
                value: torch.Tensor | None = None):
        B, T, C = x.shape
        start = cache.length if cache is not None else 0
        q, k, v = self.qkv(x).split(C, dim=2)  # 3 x (B, T, C)
        if value is not None:  # the layer's value embedding of each token (value_embed)
            v = v + value
        q, k, v = (t.view(B, T, self.n_head, self.head_size).transpose(1, 2) for t in (q, k, v))
        q, k = self.q_norm(q), self.k_norm(k)  # (B, nh, T, hs); identities without qk_norm
        if self.rotary is not None:
            q, k = self.rotary(q, start), self.rotary(k, start)
        if cache is not None:  # the cache keeps keys as attention reads them: normed, rotated
            k, v = cache.append(k, v)  # (B, nh, S, hs), S = start + T
        S = k.size(2)
        # the fused kernel's own dropout would draw from the global generator, so training
        # with dropout computes the weights explicitly (nanoGPT's path without flash attention)
        dropping = self.training and self.attn_dropout.p > 0
        if return_attn or dropping:
            y, att = self._explicit_attention(q, k, v, start)
        else:
            y, att = self._fused_attention(q, k, v, start, S), None
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # (B, T, C): heads side by side again
        return self.resid_dropout(self.proj(y)), att

    def _causal_mask(self, T: int, S: int, start: int, device) -> torch.Tensor:
        # query t sits at position start + t and may look at keys 0 .. start + t
        q_pos = torch.arange(start, start + T, device=device)[:, None]
        return torch.arange(S, device=device)[None, :] <= q_pos  # (T, S) bool

    def _fused_attention(self, q, k, v, start: int, S: int) -> torch.Tensor:
        T = q.size(2)
        if start == 0:  # no past: the kernel's own causal mask (top-left aligned) is right
            return F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)
        mask = self._causal_mask(T, S, start, q.device)  # past keys: align the mask bottom-right
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    def _explicit_attention(self, q, k, v, start: int):
        T, S = q.size(2), k.size(2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_size)  # (B, nh, T, S)
        att = att.masked_fill(~self._causal_mask(T, S, start, q.device), float("-inf"))
        att = att.softmax(dim=-1)
        return self.attn_dropout(att) @ v, att  # (B, nh, T, hs), (B, nh, T, S)


# ---------------------------------------------------------------------------------------------
# Feed-forward


class SquaredReLU(nn.Module):
    """relu(x)², the activation of Primer (So et al., 2021) and the modded-nanogpt speedrun."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x).square()


class MLP(nn.Module):
    """Two linear layers with a GELU, ReLU or ReLU² between: widen, activate, project back."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.fc = nn.Linear(cfg.n_embd, cfg.hidden_size, bias=cfg.bias)
        self.act = {"gelu": nn.GELU, "relu": nn.ReLU, "relu2": SquaredReLU}[cfg.activation]()
        self.proj = nn.Linear(cfg.hidden_size, cfg.n_embd, bias=cfg.bias)
        self.proj.is_residual_projection = True
        self.dropout = Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.proj(self.act(self.fc(x))))


class SwiGLU(nn.Module):
    """Gated feed-forward (PaLM, Llama): silu(gate(x)) * up(x), projected back."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.gate = nn.Linear(cfg.n_embd, cfg.hidden_size, bias=cfg.bias)
        self.up = nn.Linear(cfg.n_embd, cfg.hidden_size, bias=cfg.bias)
        self.proj = nn.Linear(cfg.hidden_size, cfg.n_embd, bias=cfg.bias)
        self.proj.is_residual_projection = True
        self.dropout = Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.proj(F.silu(self.gate(x)) * self.up(x)))


# ---------------------------------------------------------------------------------------------
# Token shift: each position also sees the vector of the one before


class TokenShift(nn.Module):
    """The first half of each position's numbers replaced by the previous position's (RWKV's
    token shift, as BlinkDL tuned minGPT for characters): what reads it sees the token before
    without spending an attention head on it, and nothing is added to train. The first
    position gets zeros there, and with a KV cache the last position seen stands in for the
    one before, so feeding one token at a time gives what the whole sequence gives.

    >>> TokenShift("attn")(torch.tensor([[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]))
    tensor([[[0., 0., 3., 4.],
             [1., 2., 7., 8.]]])
    """

    def __init__(self, key: str):
        super().__init__()
        self.key = key  # where in the block: its slot in a layer's cache

    def forward(self, x: torch.Tensor, cache: LayerKVCache | None = None) -> torch.Tensor:
        half = x.size(-1) // 2
        shifted = F.pad(x[..., :half], (0, 0, 1, -1))  # (B, T, C/2): position t gets t - 1's
        if cache is not None:
            if self.key in cache.last:
                shifted[:, :1] = cache.last[self.key]
            cache.last[self.key] = x[:, -1:, :half].detach()
        return torch.cat([shifted, x[..., half:]], dim=-1)


# ---------------------------------------------------------------------------------------------
# Extra embeddings of the tokens: of each pair in a row (bigram), and per layer for the values


class BigramEmbedding(nn.Module):
    """A vector per (previous token, token) pair, added to the token's embedding (the bigram
    embedding of the modded-nanogpt speedrun). Pair (p, t) takes row p * V + t, modulo the
    table's rows when V² is more than ``BIGRAM_MAX_ROWS``; the first position, with no token
    before it, takes the last row, which stays zero. Every row starts at zero, so a new model
    predicts as it would without the table. With a KV cache the last token fed stands in for
    the one before, as the token shift does.

    >>> bigram = BigramEmbedding(ModelConfig(vocab_size=3, n_embd=2, n_head=1))
    >>> bigram.rows, bigram.pairs(torch.tensor([[2, 0, 1]])).tolist()
    (9, [[9, 6, 1]])
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.vocab_size = cfg.vocab_size
        self.rows = min(cfg.vocab_size ** 2, BIGRAM_MAX_ROWS)
        self.weight = nn.Parameter(torch.zeros(self.rows + 1, cfg.n_embd))  # the last: no pair

    def pairs(self, idx: torch.Tensor, previous: torch.Tensor | None = None) -> torch.Tensor:
        """The row of each position's pair: (B, T) token ids in, (B, T) row numbers out."""
        before = F.pad(idx[:, :-1], (1, 0), value=-1)  # (B, T): position t gets t - 1's token
        if previous is not None:
            before[:, :1] = previous
        rows = (before * self.vocab_size + idx) % self.rows
        return rows.masked_fill(before < 0, self.rows)

    def forward(self, idx: torch.Tensor, previous: torch.Tensor | None = None) -> torch.Tensor:
        # the padding row gets no gradient, so it stays the zero vector "no token before"
        return F.embedding(self.pairs(idx, previous), self.weight, padding_idx=self.rows)


class ValueEmbeddings(nn.Module):
    """One token embedding per layer, added to that layer's attention values (modded-nanogpt's
    value embeddings), all zero at first. ``forward`` gives the n_layer tensors (B, T, C)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(cfg.n_layer, cfg.vocab_size, cfg.n_embd))

    def forward(self, idx: torch.Tensor) -> list[torch.Tensor]:
        return [F.embedding(idx, table) for table in self.weight]


class SoftCap(nn.Module):
    """cap * tanh(x / cap): about x for small x, never beyond ±cap (Gemma 2's
    ``final_logit_softcapping``).

    >>> SoftCap(10.0)(torch.tensor([0.5, 100.0]))
    tensor([ 0.4996, 10.0000])
    """

    def __init__(self, cap: float):
        super().__init__()
        self.cap = cap

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.cap * torch.tanh(x / self.cap)


# ---------------------------------------------------------------------------------------------
# Blocks: attention then feed-forward, each with a residual connection and a norm.


class PreNormBlock(nn.Module):
    """x + f(norm(x)): the norm sits inside the residual branch (GPT-2 and later)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln_1, self.attn = make_norm(cfg), CausalSelfAttention(cfg)
        self.ln_2 = make_norm(cfg)
        self.mlp = SwiGLU(cfg) if cfg.activation == "swiglu" else MLP(cfg)
        if cfg.token_shift:  # what attention and the MLP read, each with its own cache slot
            self.shift_1, self.shift_2 = TokenShift("attn"), TokenShift("mlp")
        else:
            self.shift_1 = self.shift_2 = None

    def _shifted(self, shift: TokenShift | None, x, cache):
        return x if shift is None else shift(x, cache)

    def forward(self, x, cache=None, return_attn=False, value=None):
        y, att = self.attn(self._shifted(self.shift_1, self.ln_1(x), cache), cache, return_attn,
                           value)
        x = x + y
        return x + self.mlp(self._shifted(self.shift_2, self.ln_2(x), cache)), att


class PostNormBlock(PreNormBlock):
    """norm(x + f(x)): the norm follows each residual sum (the 2017 paper)."""

    def forward(self, x, cache=None, return_attn=False, value=None):
        y, att = self.attn(self._shifted(self.shift_1, x, cache), cache, return_attn, value)
        x = self.ln_1(x + y)
        return self.ln_2(x + self.mlp(self._shifted(self.shift_2, x, cache))), att


# ---------------------------------------------------------------------------------------------
# The whole model


class ModelOutput(NamedTuple):
    logits: torch.Tensor  # (B, T, V)
    loss: torch.Tensor | None  # mean cross-entropy over all B*T targets, in nats
    attn: list[torch.Tensor] | None  # per layer (B, nh, T, S), only when asked for


class GPT(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.config = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = make_positions(cfg)
        self.emb_scale = math.sqrt(cfg.n_embd) if cfg.scale_embedding else 1.0
        self.drop = Dropout(cfg.dropout)
        block = PreNormBlock if cfg.norm_placement == "pre" else PostNormBlock
        self.blocks = nn.ModuleList(block(cfg) for _ in range(cfg.n_layer))
        # post-norm blocks already end in a norm; pre-norm needs one before the head
        self.ln_f = make_norm(cfg) if cfg.norm_placement == "pre" else nn.Identity()
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        if cfg.tie_weights:
            self.lm_head.weight = self.tok_emb.weight  # one matrix reads and writes tokens
        self.softcap = SoftCap(cfg.logit_softcap) if cfg.logit_softcap else nn.Identity()
        # zero tables, built last: every other weight takes the random numbers it takes without
        self.bigram = BigramEmbedding(cfg) if cfg.bigram else None
        self.value_embeds = ValueEmbeddings(cfg) if cfg.value_embed else None
        self.apply(self._init_weights)
        # GPT-2 scales the projections that write into the residual stream by 1/sqrt(2 n_layer),
        # which keeps its variance from growing with depth; redrawn in a second pass, in
        # nanoGPT's order, so the same seed gives nanoGPT's initial weights
        for module in self.modules():
            if getattr(module, "is_residual_projection", False):
                nn.init.normal_(module.weight, mean=0.0, std=0.02 / math.sqrt(2 * cfg.n_layer))
        if cfg.zero_init:  # zeroed after the draws, so every other weight is drawn as without
            self._zero_outputs()

    def _zero_outputs(self) -> None:
        """modded-nanogpt's init: each block starts as the identity (its proj writes zeros into
        the residual stream) and an untied head predicts the uniform distribution. A tied head
        is the token embedding, which must stay random, so it is left as drawn."""
        outputs = [m for m in self.modules() if getattr(m, "is_residual_projection", False)]
        if not self.config.tie_weights:
            outputs.append(self.lm_head)
        for module in outputs:
            nn.init.zeros_(module.weight)  # biases are zero already

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        """GPT-2 initialisation: every matrix N(0, 0.02), biases zero."""
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, (nn.Embedding, LearnedPositions)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(
        self,
        idx: torch.Tensor,
        targets: torch.Tensor | None = None,
        *,
        return_attn: bool = False,
        cache: KVCache | None = None,
        label_smoothing: float = 0.0,
    ) -> ModelOutput:
        hidden, attn = self.residual_stream(idx, cache=cache, return_attn=return_attn)
        logits = self.head(hidden[-1])  # (B, T, V)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)).float(),
                targets.reshape(-1),
                label_smoothing=label_smoothing,
            )
        return ModelOutput(logits, loss, attn if return_attn else None)

    def head(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits (B, T, V) from a residual stream (B, T, C): final norm, head, soft-cap."""
        return self.softcap(self.lm_head(self.ln_f(hidden)))

    def residual_stream(self, idx: torch.Tensor, *, cache: KVCache | None = None,
                        return_attn: bool = False) -> tuple[list[torch.Tensor], list]:
        """The residual stream as it enters the first block and as each block leaves it.

        Returns (hidden, attn): ``hidden`` holds n_layer + 1 tensors of shape (B, T, C), the
        last one what the final norm and the head read (``forward`` is this plus the head);
        ``attn`` one entry per layer, the weights when ``return_attn`` (else None each). The
        logit lens reads the earlier ones through the same norm and head.

        >>> from playground.config import ModelConfig
        >>> model = GPT(ModelConfig(vocab_size=10, block_size=8, n_layer=2, n_head=2, n_embd=8))
        >>> hidden, _ = model.residual_stream(torch.zeros(1, 5, dtype=torch.long))
        >>> len(hidden), tuple(hidden[-1].shape)
        (3, (1, 5, 8))
        """
        B, T = idx.shape
        start = cache.length if cache is not None else 0
        if start + T > self.config.block_size:
            raise ValueError(msg("This model reads at most {block_size} tokens at once "
                                 "(block_size); it was given {n}. Crop the input to the last "
                                 "{block_size} tokens.", block_size=self.config.block_size,
                                 n=start + T))
        x = self.tok_emb(idx) * self.emb_scale + self.pos_emb(start, T)  # (B, T, C)
        if self.bigram is not None:
            x = x + self.bigram(idx, cache.last_token if cache is not None else None)
        if cache is not None:
            cache.last_token = idx[:, -1:]
        x = self.drop(x)
        layer_caches = cache.layers if cache is not None else [None] * len(self.blocks)
        values = (self.value_embeds(idx) if self.value_embeds is not None
                  else [None] * len(self.blocks))
        hidden, attn = [x], []  # the tensors autograd keeps anyway: holding them costs nothing
        for block, layer_cache, value in zip(self.blocks, layer_caches, values):
            x, att = block(x, layer_cache, return_attn, value)
            hidden.append(x)
            attn.append(att)
        return hidden, attn

    def use_dropout_generator(self, generator: torch.Generator | None) -> None:
        """Draw every dropout mask from ``generator`` (on the model's device; None: PyTorch's
        global generator). The trainer passes its own, so each run's dropout is its alone."""
        for module in self.modules():
            if isinstance(module, Dropout):
                module.generator = generator

    def new_cache(self, batch_size: int = 1, max_len: int | None = None) -> KVCache:
        """An empty KV cache for up to ``max_len`` tokens (default: the whole context)."""
        cfg, param = self.config, self.tok_emb.weight
        max_len = max_len or cfg.block_size
        return KVCache([
            LayerKVCache(batch_size, cfg.n_head, max_len, cfg.head_size, param.device, param.dtype)
            for _ in range(cfg.n_layer)
        ])

    def num_params(self, non_embedding: bool = False) -> int:
        """Parameters counted once (a tied matrix once); optionally without position tables."""
        n = sum(p.numel() for p in self.parameters())
        if non_embedding and isinstance(self.pos_emb, LearnedPositions):
            n -= self.pos_emb.weight.numel()
        return n

    def configure_optimizer(self, weight_decay: float, lr: float, betas, device_type: str,
                            params=None):
        """AdamW with weight decay on matrices only: never on norms' gains or biases.

        ``params`` (default: every trainable weight) is the subset Muon leaves to AdamW
        (``playground.optim``).
        """
        params = [p for p in (self.parameters() if params is None else params) if p.requires_grad]
        groups = [
            {"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
        ]
        # one fused kernel for the whole update: on CPU too it is ~3x faster than the loop
        fused = device_type in ("cuda", "cpu")
        return torch.optim.AdamW(groups, lr=lr, betas=tuple(betas), fused=fused)


# ---------------------------------------------------------------------------------------------
# Sizes and costs, for the page and the benchmarks


def count_params(cfg: ModelConfig) -> int:
    """Parameter count of a config without building it on a device.

    >>> count_params(ModelConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128))
    804096
    """
    return _counts(cfg)[0]


def _counts(cfg: ModelConfig) -> tuple[int, int]:
    """(parameters, buffer values) of a config, from a model built on the meta device (no
    memory; about 15 ms, so remembered per config: every Start and every estimate asks)."""
    return _counts_of(dataclasses.astuple(cfg))


@functools.lru_cache(maxsize=256)
def _counts_of(fields: tuple) -> tuple[int, int]:
    with torch.device("meta"):  # shapes only: nothing is allocated
        model = GPT(ModelConfig(*fields))
    return model.num_params(), sum(b.numel() for b in model.buffers())


def flops_per_token(cfg: ModelConfig, non_embedding_params: int) -> float:
    """Training FLOPs per token, PaLM appendix B: 6N + 12 * L * H * Q * T."""
    return 6 * non_embedding_params + 12 * cfg.n_layer * cfg.n_head * cfg.head_size * cfg.block_size


def inference_memory(cfg: ModelConfig, batch_size: int = 1, bytes_per_value: int = 4) -> int:
    """Bytes a model of ``cfg`` holds to generate: its weights and buffers (the position
    table, RoPE's cos/sin in every layer), a KV cache over the whole context, and one forward
    pass's activations at the whole context. Buffers and the cache grow with block_size, not
    with the parameters: a small model with a long context can still need gigabytes.

    >>> shape = dict(vocab_size=65, n_layer=4, n_head=4, n_embd=128, pos="rope")
    >>> inference_memory(ModelConfig(block_size=64, **shape)) // 2**10  # KB
    3957
    >>> inference_memory(ModelConfig(block_size=65_536, **shape)) // 2**20  # MB
    851
    """
    held = sum(_counts(cfg))
    tokens = batch_size * cfg.block_size
    cache = 2 * cfg.n_layer * tokens * cfg.n_embd  # keys and values: (B, nh, T, hs) per layer
    activations = tokens * (8 * cfg.n_embd + 2 * cfg.hidden_size + cfg.vocab_size)  # one layer's
    return bytes_per_value * (held + cache + activations)


# the bytes each token of the corpus takes while it is encoded, split and measured (prepare_run):
# Tiny Shakespeare's 1.1M characters took +25 MB of resident memory there
DATA_BYTES_PER_TOKEN = 24


def estimate_memory(model_cfg: ModelConfig, train_cfg: TrainConfig, bytes_per_value: int = 4,
                    *, data_tokens: int = 0) -> int:
    """An upper estimate, in bytes, of the memory a whole training run needs, its bundle's
    save included; ``data_tokens`` (the corpus's length) adds the encoded text.

    Weights, gradients and AdamW's two moments take 4 values per parameter; Muon's matrices
    take 2 more (its momentum is one value, its Newton-Schulz stacks about three). The
    activations kept for the backward pass, with the backward pass's own gradients and the
    blocks the allocator keeps, take about (16 C + 1000) values per token and layer, and
    5 nh T more where dropout makes attention explicit (scores, masked, softmax, dropout mask
    and output; the fused kernel keeps no T x T matrix). Switches that keep extra copies add
    theirs: ReLU² one more hidden-wide tensor, QK-norm and RoPE the queries and keys before
    and after (4 C each).
    The logits add 3 V values per token (logits, softmax, gradient); the buffers and the KV
    cache of the evaluation samples are ``inference_memory``'s. Saving streams the tensors
    into the bundle from where they lie (``checkpoint.save_bundle``), so it adds no copy.
    The terms were fitted to the resident memory of six steps: plain models of width 128 to
    384, contexts of 64 and 256, with dropout and without (within 0.8-1.1 of it), then each
    switch alone at ``quick``'s size (45 MB plain, +5 MB each for ReLU², QK-norm, RoPE, Muon).
    """
    n = count_params(model_cfg)
    c = model_cfg.n_embd
    tokens = (train_cfg.batch_size // train_cfg.grad_accum) * model_cfg.block_size
    explicit_attention = model_cfg.dropout > 0
    per_token = (16 * c + 1000
                 + (5 * model_cfg.n_head * model_cfg.block_size if explicit_attention else 0)
                 + (model_cfg.hidden_size if model_cfg.activation == "relu2" else 0)
                 + (4 * c if model_cfg.qk_norm else 0) + (4 * c if model_cfg.pos == "rope" else 0))
    activations = model_cfg.n_layer * tokens * per_token + 3 * tokens * model_cfg.vocab_size
    # Muon's matrices: qkv and proj of attention, the MLP's two (SwiGLU's three) per block
    mlp_matrices = (3 if model_cfg.activation == "swiglu" else 2) * c * model_cfg.hidden_size
    muon = 2 * model_cfg.n_layer * (4 * c * c + mlp_matrices) if train_cfg.optimizer == "muon" else 0
    sampling = inference_memory(model_cfg, bytes_per_value=bytes_per_value) - bytes_per_value * n
    return (bytes_per_value * (4 * n + muon + activations) + sampling
            + DATA_BYTES_PER_TOKEN * data_tokens)
