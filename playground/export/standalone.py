"""Generate text with a model trained in Transformer Playground, in one file you can read.

    pip install torch safetensors
    python generate_standalone.py model.zip --prompt "ROMEO:" --max_new_tokens 300

The bundle (``model.zip``) holds the weights (``model.safetensors``), the settings
(``model_config.json``) and the tokenizer (``tokenizer.json``). This file rebuilds the same
decoder-only Transformer from PyTorch primitives, loads the weights, and samples one token
at a time. It needs only torch and safetensors: the byte-level BPE tokenizer is written out
here too. Nothing in the bundle is ever unpickled, so a bundle cannot run code.

Reading order: the tokenizers, the model (norms, positions, attention, feed-forward, block,
the whole), sampling, and ``main``.

Shapes: B = batch, T = tokens, C = n_embd, nh = n_head, hs = head size (C / nh), V = vocab.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import struct
import sys
import unicodedata
import zipfile
from types import SimpleNamespace

import safetensors.torch
import torch
import torch.nn as nn
import torch.nn.functional as F

# =============================================================================================
# Tokenizers: text <-> token ids


class CharTokenizer:
    """One token per character of the training text's alphabet."""

    def __init__(self, chars: list[str]):
        self.chars = chars
        self.index = {c: i for i, c in enumerate(chars)}

    def encode(self, text: str) -> list[int]:
        unknown = sorted(set(text) - self.index.keys())
        if unknown:
            raise ValueError(f"The model never saw these characters: {unknown[:10]}")
        return [self.index[c] for c in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.chars[i] for i in ids)


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (' ' becomes 'Ġ')."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in keep}
    for n, b in enumerate(b for b in range(256) if b not in mapping):
        mapping[b] = chr(256 + n)
    return mapping


# The characters of Unicode's White_Space property: what \s means to the tokenizer's regex.
WHITE_SPACE = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def char_class(c: str) -> str:
    """'L' letter, 'N' number, 'S' white space, 'O' anything else (the regex's classes)."""
    if c in WHITE_SPACE:
        return "S"
    category = unicodedata.category(c)[0]
    return category if category in "LN" else "O"


def split_words(text: str) -> list[str]:
    """Cut text where GPT-2's pre-tokenizer does; BPE never merges across these cuts.

    The regex is  's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
    (written out here as a scanner, because Python's re has no \\p{L}). Letters and numbers
    come from Python's Unicode tables, so a character newer than them may split differently.
    """
    words, i, n = [], 0, len(text)
    while i < n:
        contraction = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if contraction:
            end = i + len(contraction)
        else:
            # " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": one optional space, then a run of one class
            start = i + 1 if text[i] == " " and i + 1 < n and char_class(text[i + 1]) != "S" else i
            cls = char_class(text[start])
            end = start
            if cls != "S":
                while end < n and char_class(text[end]) == cls:
                    end += 1
            else:  # a run of white space: keep its last character for the next word
                while end < n and char_class(text[end]) == "S":
                    end += 1
                if end < n and end - i > 1:
                    end -= 1
        words.append(text[i:end])
        i = end
    return words


class BPETokenizer:
    """Byte-level BPE: text -> UTF-8 bytes -> merges applied in the order they were learned."""

    def __init__(self, spec: dict):
        model = spec["model"]
        if (model.get("type") != "BPE" or model.get("ignore_merges") or model.get("dropout")
                or (spec.get("pre_tokenizer") or {}).get("type") != "ByteLevel"
                or (spec.get("pre_tokenizer") or {}).get("add_prefix_space")
                or not (spec.get("pre_tokenizer") or {}).get("use_regex", True)):
            raise ValueError("This tokenizer is not the byte-level BPE this script knows.")
        self.vocab: dict[str, int] = model["vocab"]
        self.tokens = {i: s for s, i in self.vocab.items()}
        # [left, right] pairs in the order learned: earlier = merged first
        self.rank = {tuple(pair): r for r, pair in enumerate(model["merges"])}
        self.byte_char = bytes_to_unicode()
        self.char_byte = {c: b for b, c in self.byte_char.items()}

    def bpe(self, word: str) -> list[str]:
        """Merge the word's symbols, lowest-ranked pair first, until no learned merge applies."""
        symbols = list(word)
        while len(symbols) > 1:
            pairs = [(self.rank.get((a, b), math.inf), a, b) for a, b in zip(symbols, symbols[1:])]
            best, a, b = min(pairs)
            if best == math.inf:
                break
            merged, i = [], 0
            while i < len(symbols):  # every occurrence of (a, b), left to right
                if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                    merged.append(a + b)
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            symbols = merged
        return symbols

    def encode(self, text: str) -> list[int]:
        ids = []
        for word in split_words(text):
            chars = "".join(self.byte_char[b] for b in word.encode("utf-8"))
            ids += [self.vocab[s] for s in self.bpe(chars)]
        return ids

    def decode(self, ids: list[int]) -> str:
        data = bytes(self.char_byte[c] for i in ids for c in self.tokens[i])
        return data.decode("utf-8", errors="replace")


def load_tokenizer(spec: dict):
    if spec.get("kind") == "char":
        return CharTokenizer(spec["chars"])
    if spec.get("kind") == "bpe":
        return BPETokenizer(spec["tokenizer"])
    raise ValueError(f"Unknown tokenizer kind {spec.get('kind')!r}.")


# =============================================================================================
# The model: the same modules and parameter names as Transformer Playground's model.py


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (PyTorch's own cannot drop just the bias)."""

    def __init__(self, n_embd: int, bias: bool, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n_embd))
        self.bias = nn.Parameter(torch.zeros(n_embd)) if bias else None
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)


class RMSNorm(nn.Module):
    """Root-mean-square norm (Llama): rescale only, computed in float32."""

    def __init__(self, n_embd: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n_embd))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.type_as(x) * self.weight


def make_norm(cfg) -> nn.Module:
    return RMSNorm(cfg.n_embd, cfg.norm_eps) if cfg.norm == "rmsnorm" else LayerNorm(cfg.n_embd, cfg.bias, cfg.norm_eps)


class LearnedPositions(nn.Module):
    """One trained vector per position, added to the token embeddings (GPT-2)."""

    def __init__(self, cfg):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(cfg.block_size, cfg.n_embd))

    def forward(self, T: int):
        return self.weight[:T]  # (T, C)


class SinusoidalPositions(nn.Module):
    """The fixed sine/cosine table of "Attention Is All You Need"."""

    def __init__(self, cfg):
        super().__init__()
        pos = torch.arange(cfg.block_size, dtype=torch.float32)[:, None]
        i = torch.arange(0, cfg.n_embd, 2, dtype=torch.float32)
        angle = pos / torch.pow(10000.0, i / cfg.n_embd)  # (block_size, ceil(C/2))
        table = torch.zeros(cfg.block_size, cfg.n_embd)
        table[:, 0::2] = torch.sin(angle)
        table[:, 1::2] = torch.cos(angle[:, : cfg.n_embd // 2])
        self.register_buffer("table", table, persistent=False)

    def forward(self, T: int):
        return self.table[:T]  # (T, C)


class NoPositions(nn.Module):
    """No position signal: the causal mask alone tells tokens apart by order."""

    def forward(self, T: int):
        return 0.0


class Rotary(nn.Module):
    """RoPE: rotate each head's query and key halves by position-dependent angles."""

    def __init__(self, cfg):
        super().__init__()
        hs = cfg.n_embd // cfg.n_head
        inv_freq = 1.0 / (cfg.rope_base ** (torch.arange(0, hs, 2, dtype=torch.float32) / hs))
        angle = torch.outer(torch.arange(cfg.block_size, dtype=torch.float32), inv_freq)
        angle = torch.cat([angle, angle], dim=-1)  # (block_size, hs)
        self.register_buffer("cos", angle.cos(), persistent=False)
        self.register_buffer("sin", angle.sin(), persistent=False)

    def forward(self, x):
        T = x.size(-2)
        x1, x2 = x.chunk(2, dim=-1)
        rotated = torch.cat([-x2, x1], dim=-1)
        return (x * self.cos[:T] + rotated * self.sin[:T]).type_as(x)  # (B, nh, T, hs)


class CausalSelfAttention(nn.Module):
    """Multi-head attention where each token sees only itself and earlier tokens."""

    def __init__(self, cfg):
        super().__init__()
        self.n_head, self.head_size = cfg.n_head, cfg.n_embd // cfg.n_head
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=cfg.bias)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd, bias=cfg.bias)
        self.rotary = Rotary(cfg) if cfg.pos == "rope" else None
        # QK-norm (Qwen3): each head's queries and keys RMS-normed before RoPE
        self.q_norm = RMSNorm(self.head_size, cfg.norm_eps) if cfg.qk_norm else nn.Identity()
        self.k_norm = RMSNorm(self.head_size, cfg.norm_eps) if cfg.qk_norm else nn.Identity()

    def forward(self, x, value=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # 3 x (B, T, C)
        if value is not None:  # this layer's value embedding of each token
            v = v + value
        q, k, v = (t.view(B, T, self.n_head, self.head_size).transpose(1, 2) for t in (q, k, v))
        q, k = self.q_norm(q), self.k_norm(k)  # (B, nh, T, hs)
        if self.rotary is not None:
            q, k = self.rotary(q), self.rotary(k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # heads side by side again
        return self.proj(y)


class SquaredReLU(nn.Module):
    """relu(x)², the activation of Primer and the modded-nanogpt speedrun."""

    def forward(self, x):
        return F.relu(x).square()


class MLP(nn.Module):
    """Widen, apply GELU, ReLU or ReLU², project back."""

    def __init__(self, cfg, hidden: int):
        super().__init__()
        self.fc = nn.Linear(cfg.n_embd, hidden, bias=cfg.bias)
        self.act = {"gelu": nn.GELU, "relu": nn.ReLU, "relu2": SquaredReLU}[cfg.activation]()
        self.proj = nn.Linear(hidden, cfg.n_embd, bias=cfg.bias)

    def forward(self, x):
        return self.proj(self.act(self.fc(x)))


class SwiGLU(nn.Module):
    """Gated feed-forward (PaLM, Llama): silu(gate(x)) * up(x), projected back."""

    def __init__(self, cfg, hidden: int):
        super().__init__()
        self.gate = nn.Linear(cfg.n_embd, hidden, bias=cfg.bias)
        self.up = nn.Linear(cfg.n_embd, hidden, bias=cfg.bias)
        self.proj = nn.Linear(hidden, cfg.n_embd, bias=cfg.bias)

    def forward(self, x):
        return self.proj(F.silu(self.gate(x)) * self.up(x))


def hidden_size(cfg) -> int:
    """Width of the feed-forward layer; SwiGLU's three matrices get 2/3 of it (same count)."""
    hidden = int(cfg.mlp_ratio * cfg.n_embd)
    return max(1, int(2 * hidden / 3)) if cfg.activation == "swiglu" else hidden


class TokenShift(nn.Module):
    """The first half of each position's numbers replaced by the previous position's (RWKV's
    token shift); the first position gets zeros there."""

    def forward(self, x):
        half = x.size(-1) // 2
        return torch.cat([F.pad(x[..., :half], (0, 0, 1, -1)), x[..., half:]], dim=-1)


class PreNormBlock(nn.Module):
    """x + f(norm(x)): the norm sits inside the residual branch (GPT-2 and later)."""

    def __init__(self, cfg):
        super().__init__()
        self.ln_1, self.attn = make_norm(cfg), CausalSelfAttention(cfg)
        self.ln_2 = make_norm(cfg)
        mlp = SwiGLU if cfg.activation == "swiglu" else MLP
        self.mlp = mlp(cfg, hidden_size(cfg))
        self.shift_1 = TokenShift() if cfg.token_shift else nn.Identity()
        self.shift_2 = TokenShift() if cfg.token_shift else nn.Identity()

    def forward(self, x, value=None):
        x = x + self.attn(self.shift_1(self.ln_1(x)), value)
        return x + self.mlp(self.shift_2(self.ln_2(x)))


class PostNormBlock(PreNormBlock):
    """norm(x + f(x)): the norm follows each residual sum (the 2017 paper)."""

    def forward(self, x, value=None):
        x = self.ln_1(x + self.attn(self.shift_1(x), value))
        return self.ln_2(x + self.mlp(self.shift_2(x)))


class BigramEmbedding(nn.Module):
    """A vector per (previous token, token) pair: row p * V + t (modulo the rows when V² is
    more); the first position, with no token before it, takes the last row, which is zero."""

    def __init__(self, cfg):
        super().__init__()
        self.vocab_size = cfg.vocab_size
        self.rows = min(cfg.vocab_size ** 2, 16_384)
        self.weight = nn.Parameter(torch.zeros(self.rows + 1, cfg.n_embd))

    def forward(self, idx):
        before = F.pad(idx[:, :-1], (1, 0), value=-1)  # (B, T): the token before each
        rows = ((before * self.vocab_size + idx) % self.rows).masked_fill(before < 0, self.rows)
        return self.weight[rows]  # (B, T, C)


class ValueEmbeddings(nn.Module):
    """One token embedding per layer, added to that layer's attention values."""

    def __init__(self, cfg):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(cfg.n_layer, cfg.vocab_size, cfg.n_embd))

    def forward(self, idx):
        return [table[idx] for table in self.weight]  # n_layer x (B, T, C)


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = {"learned": LearnedPositions, "sinusoidal": SinusoidalPositions}.get(
            cfg.pos, lambda _: NoPositions())(cfg)
        self.emb_scale = math.sqrt(cfg.n_embd) if cfg.scale_embedding else 1.0
        block = PreNormBlock if cfg.norm_placement == "pre" else PostNormBlock
        self.blocks = nn.ModuleList(block(cfg) for _ in range(cfg.n_layer))
        # post-norm blocks already end in a norm; pre-norm needs one before the head
        self.ln_f = make_norm(cfg) if cfg.norm_placement == "pre" else nn.Identity()
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        if cfg.tie_weights:
            self.lm_head.weight = self.tok_emb.weight
        # settings newer than some bundles: an older bundle's config lacks them (off)
        self.softcap = getattr(cfg, "logit_softcap", 0.0)
        self.bigram = BigramEmbedding(cfg) if getattr(cfg, "bigram", False) else None
        self.value_embeds = ValueEmbeddings(cfg) if getattr(cfg, "value_embed", False) else None

    def forward(self, idx):
        T = idx.size(1)
        x = self.tok_emb(idx) * self.emb_scale + self.pos_emb(T)  # (B, T, C)
        if self.bigram is not None:
            x = x + self.bigram(idx)
        values = self.value_embeds(idx) if self.value_embeds is not None else [None] * len(self.blocks)
        for block, value in zip(self.blocks, values):
            x = block(x, value)
        logits = self.lm_head(self.ln_f(x))  # (B, T, V)
        if self.softcap:  # cap * tanh(x / cap): never beyond ±cap (Gemma 2)
            logits = self.softcap * torch.tanh(logits / self.softcap)
        return logits


# =============================================================================================
# Loading a bundle: JSON and safetensors read from the zip in memory

FORMAT_VERSION = 2  # the bundle format this script reads (every model setting in model_config.json)


def load_bundle(path: str, device: str = "cpu"):
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("meta.json"))
        if meta.get("format") != "transformer-playground-bundle":
            raise ValueError(f"{path} is not a Transformer Playground bundle.")
        if meta.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"{path} is bundle format {meta.get('format_version')}; this script reads format "
                f"{FORMAT_VERSION}. Load it in Transformer Playground and save it again (python -m "
                f"playground upgrade {path}), or take the script that came with it.")
        # every setting the model was built with (zero_init says only how training began)
        cfg = SimpleNamespace(**json.loads(zf.read("model_config.json")))
        tokenizer = load_tokenizer(json.loads(zf.read("tokenizer.json")))
        weights = zf.read("model.safetensors")
    tensors = safetensors.torch.load(weights)
    # A tied matrix is stored once; the metadata maps the left-out name to the kept one.
    (header_len,) = struct.unpack("<Q", weights[:8])
    metadata = json.loads(weights[8 : 8 + header_len]).get("__metadata__") or {}
    for left_out, kept in metadata.items():
        if left_out not in tensors and kept in tensors:
            tensors[left_out] = tensors[kept]
    model = GPT(cfg)
    model.load_state_dict(tensors, strict=True)
    return model.to(device).eval(), tokenizer


# =============================================================================================
# Sampling


def logits_to_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """Probabilities to sample from; temperature 0 puts all mass on the likeliest token."""
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
        outside = sorted_probs.cumsum(0) - sorted_probs >= top_p  # keep the smallest set reaching top_p
        sorted_probs[outside] = 0.0
        probs = torch.zeros_like(probs).scatter(0, order, sorted_probs)
        probs = probs / probs.sum()
    return probs


def prompt_ids(tokenizer, prompt: str) -> list[int]:
    """The prompt's tokens; an empty prompt starts from a newline (or token 0)."""
    ids = tokenizer.encode(prompt) if prompt else []
    if not ids:
        try:
            ids = tokenizer.encode("\n")
        except ValueError:
            ids = []
        ids = ids or [0]
    return ids


@torch.no_grad()
def generate(model, tokenizer, prompt="", max_new_tokens=200, temperature=1.0, top_k=None,
             top_p=None, seed=None):
    """Yield the text of each new token. The model reads at most block_size tokens; when the
    window is full it slides by a quarter, keeping the last three quarters of the context."""
    device = next(model.parameters()).device
    block_size = model.config.block_size
    keep = block_size - max(1, block_size // 4)
    # no seed: a fresh draw from the OS (torch's own generator starts from the same seed in
    # every new process, so each run of this script would write the same "random" text)
    generator = torch.Generator().manual_seed(
        seed if seed is not None else int.from_bytes(os.urandom(8), "little") >> 1)
    ids = prompt_ids(tokenizer, prompt)
    start = max(0, len(ids) - block_size)  # a long prompt is cropped to the context
    generated, emitted = [], ""
    for i in range(max_new_tokens):
        if len(ids) - start > block_size:
            start = len(ids) - keep
        logits = model(torch.tensor([ids[start:]], device=device))[0, -1]
        probs = logits_to_probs(logits.cpu(), temperature, top_k, top_p)
        token = int(torch.multinomial(probs, 1, generator=generator))
        ids.append(token)
        generated.append(token)
        text = tokenizer.decode(generated)
        if text.endswith("\ufffd") and i < max_new_tokens - 1:
            continue  # half a multi-byte character: wait for the rest of its bytes
        yield text[len(emitted):]
        emitted = text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Generate text with a Transformer Playground bundle.")
    parser.add_argument("bundle", help="the model .zip saved by Transformer Playground")
    parser.add_argument("--prompt", default="", help="text to continue (default: start afresh)")
    parser.add_argument("--max_new_tokens", type=int, default=200)
    parser.add_argument("--temperature", type=float, default=0.8, help="0 takes the likeliest token")
    parser.add_argument("--top_k", type=int, default=None, help="sample among the k likeliest tokens")
    parser.add_argument("--top_p", type=float, default=None, help="sample among the likeliest tokens reaching p")
    parser.add_argument("--seed", type=int, default=None, help="a number repeats the same text")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or mps")
    args = parser.parse_args(argv)

    try:
        model, tokenizer = load_bundle(args.bundle, args.device)
        prompt_ids(tokenizer, args.prompt)  # a prompt it cannot encode fails here, before any output
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(args.prompt)
    for text in generate(model, tokenizer, args.prompt, args.max_new_tokens, args.temperature,
                         args.top_k, args.top_p, args.seed):
        sys.stdout.write(text)
        sys.stdout.flush()
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
