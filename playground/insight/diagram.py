"""A diagram of the model a ``ModelConfig`` describes: its parts in order, shapes and sizes.

Built from the config alone, before anything is trained: the token embedding (scaled by
sqrt(n_embd) when asked), the positions (learned, sinusoidal, RoPE inside attention, or none),
one block drawn as the config orders it (pre-norm: norm, attention, add, norm, MLP, add;
post-norm: attention, add, norm, MLP, add, norm) and repeated ``n_layer`` times, the final
norm (pre-norm only) and the output head, tied to the embedding or not. Every part carries
its shape, its parameter count (by formula, not by building the model: the tests check the
sum against ``GPT.num_params``) and a plain-language note on what it does and why.

>>> from playground.config import ModelConfig
>>> cfg = ModelConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
>>> [part.key for part in model_parts(cfg)]
['tok_emb', 'pos', 'ln_1', 'attn', 'add_1', 'ln_2', 'mlp', 'add_2', 'ln_f', 'lm_head', 'softmax']
>>> total_params(cfg)
804096
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from playground.config import ModelConfig
from playground.i18n import Message, localize, msg

# the left edge of each kind of part: one colour each, readable on light and dark pages
COLOURS = {"embedding": "#2563eb", "positions": "#0891b2", "norm": "#6b7280",
           "attention": "#ea580c", "residual": "#9333ea", "mlp": "#16a34a", "head": "#db2777"}

ACTIVATION_NOTES = {
    "gelu": msg("GELU, a smooth ReLU that lets a little of the negative side through"),
    "relu": msg("ReLU, which keeps positive numbers and zeroes negative ones"),
    "relu2": msg("ReLU squared (Primer, the modded-nanogpt speedrun): ReLU, then squared"),
    "swiglu": msg("SwiGLU (PaLM, Llama): one layer opens a gate, silu(gate) x up, on another"),
}
ACTIVATION_NAMES = {"gelu": "GELU", "relu": "ReLU", "relu2": "ReLU²", "swiglu": "SwiGLU"}


@dataclass(frozen=True)
class Part:
    """One box of the diagram: what it is, its shape, its parameters and what it does."""

    key: str  # tok_emb, pos, ln_1, attn, add_1, ln_2, mlp, add_2, ln_f, lm_head, softmax
    kind: str  # a key of COLOURS
    name: Message | str  # a Message, or a name said alike in every language (RMSNorm)
    shape: str  # "T × 128 → T × 128": T is the number of tokens read (at most block_size)
    params: int  # of one copy; a part inside the block has n_layer copies
    note: Message  # what it does and why, in plain words
    in_block: bool = False


def _norm_params(cfg: ModelConfig) -> int:
    return cfg.n_embd * (2 if cfg.norm == "layernorm" and cfg.bias else 1)


def _norm_part(cfg: ModelConfig, key: str) -> Part:
    name = "LayerNorm" if cfg.norm == "layernorm" else "RMSNorm"
    how = (msg("LayerNorm subtracts the mean of the token's numbers and divides by their spread.")
           if cfg.norm == "layernorm" else
           msg("RMSNorm (Llama) divides the token's numbers by their root mean square, without "
               "centring them."))
    if key == "ln_f":
        return Part(key, "norm", msg("final {norm}", norm=name), f"T × {cfg.n_embd}",
                    _norm_params(cfg), msg("{how} Pre-norm blocks leave the residual stream as "
                                           "it is, so one last norm brings it to a steady size "
                                           "before the output head reads it.", how=how))
    if cfg.norm_placement == "pre":
        note = msg("{how} Pre-norm (GPT-2 and later): the norm sits inside the branch, before "
                   "the part that reads the vector, and the residual path around it stays "
                   "untouched. Deep stacks train stably this way.", how=how)
    else:
        note = msg("{how} Post-norm (the 2017 paper): the norm follows each residual addition, "
                   "so every block's output is normalised. Deep post-norm models need a "
                   "warmup and a small learning rate to train.", how=how)
    return Part(key, "norm", name, f"T × {cfg.n_embd}", _norm_params(cfg), note,
                in_block=True)


def _embedding_parts(cfg: ModelConfig) -> list[Part]:
    C, V = cfg.n_embd, cfg.vocab_size
    note = msg("Each token id picks one row of a table of {vocab} rows: a vector of {n_embd} "
               "numbers that training tunes, so that tokens used alike end up with similar "
               "rows.", vocab=f"{V:,}", n_embd=C)
    name = msg("token embedding")
    if cfg.scale_embedding:
        scale = f"{math.sqrt(C):.3g}"
        name = msg("token embedding × √{n_embd} = {scale}", n_embd=C, scale=scale)
        note = msg("{note} The rows are multiplied by √{n_embd} = {scale}, as in the 2017 paper: "
                   "the table starts with small numbers, and the scale keeps them from being "
                   "drowned by the position signal added next.", note=note, n_embd=C,
                   scale=scale)
    tok = Part("tok_emb", "embedding", name, f"T → T × {C}", V * C, note)
    last = cfg.block_size - 1
    pos = {
        "learned": (msg("learned positions"), cfg.block_size * C,
                    msg("One trained vector per position, 0 to {last}, added to the token's "
                        "vector, so the model can tell the first token from the fifth. It "
                        "cannot read past position {last}.", last=last)),
        "sinusoidal": (msg("sine and cosine positions (fixed)"), 0,
                       msg("A fixed pattern of sines and cosines of many wavelengths, added to "
                           "the token's vector: each position gets its own fingerprint, with "
                           "nothing to train.")),
        "rope": (msg("positions: RoPE, inside attention"), 0,
                 msg("Nothing is added here. RoPE (rotary positions) turns each head's queries "
                     "and keys by an angle that grows with the position, inside attention, so "
                     "an attention score depends on how far apart two tokens are.")),
        "none": (msg("no positions"), 0,
                 msg("No position signal at all: only the causal mask tells the tokens apart by "
                     "their order, and a model can still learn a little of it.")),
    }[cfg.pos]
    return [tok, Part("pos", "positions", pos[0], f"T × {C}", pos[1], pos[2])]


def _with_token_shift(cfg: ModelConfig, note: str) -> str:
    """A part's note, saying what the token shift does to what the part reads when it is on."""
    if not cfg.token_shift:
        return note
    return msg("{note} Token shift: in what it reads, the first half of each token's numbers "
               "are the previous token's.", note=note)


def _attention_part(cfg: ModelConfig) -> Part:
    C, hs = cfg.n_embd, cfg.head_size
    params = 4 * C * C + (4 * C if cfg.bias else 0) + (2 * hs if cfg.qk_norm else 0)
    note = msg("Each token asks a question (its query); every token up to it offers a key and a "
               "value. The token takes a mix of the values, weighted by how well its query "
               "matches each key. {n_head} heads do this side by side, each on {head_size} "
               "numbers, and a last layer mixes their answers. The scores are divided by "
               "√{head_size} so that they do not grow with the head size and saturate the "
               "softmax. A causal mask hides the later tokens, so the model cannot peek at the "
               "token it must predict.", n_head=cfg.n_head, head_size=hs)
    if cfg.qk_norm:
        note = msg("{note} QK-norm (Qwen3): each head's queries and keys are RMS-normed first, so "
                   "the scores follow learned gains.", note=note)
    if cfg.pos == "rope":
        note = msg("{note} RoPE rotates the queries and keys by their positions before they "
                   "meet.", note=note)
    note = _with_token_shift(cfg, note)
    name = msg("attention: {n_head} heads × {head_size}", n_head=cfg.n_head, head_size=hs)
    return Part("attn", "attention", name, f"T × {C} → T × {C}", params, note, in_block=True)


def _mlp_part(cfg: ModelConfig) -> Part:
    C, H = cfg.n_embd, cfg.hidden_size
    if cfg.activation == "swiglu":
        params, widths = 3 * C * H + (2 * H + C if cfg.bias else 0), f"{C} → 2 × {H} → {C}"
    else:
        params, widths = 2 * C * H + (H + C if cfg.bias else 0), f"{C} → {H} → {C}"
    note = msg("Works on each token on its own: widens its vector to {hidden} numbers "
               "({ratio} × n_embd), applies {activation}, and projects it back to {n_embd}. "
               "Much of what the model knows is stored in these weights.", hidden=H,
               ratio=f"{cfg.mlp_ratio:g}" + (" × 2/3" if cfg.activation == "swiglu" else ""),
               activation=ACTIVATION_NOTES[cfg.activation], n_embd=C)
    note = _with_token_shift(cfg, note)
    name = msg("MLP: {activation}, {widths}", activation=ACTIVATION_NAMES[cfg.activation],
               widths=widths)
    return Part("mlp", "mlp", name, f"T × {C} → T × {C}", params, note, in_block=True)


def _residual_part(cfg: ModelConfig, key: str) -> Part:
    return Part(key, "residual", msg("+ add the input back (residual)"), f"T × {cfg.n_embd}", 0,
                msg("Adds what the part computed to what went into it. Each part only has to "
                    "learn a correction, and the gradients flow straight down the stack."),
                in_block=True)


def _head_parts(cfg: ModelConfig) -> list[Part]:
    C, V = cfg.n_embd, cfg.vocab_size
    if cfg.tie_weights:
        head = Part("lm_head", "head", msg("output head (tied to the token embedding)"),
                    f"T × {C} → T × {V:,}", 0,
                    msg("Turns the last vector into one score (a logit) for each of the "
                        "{vocab} tokens. Tied: it reuses the token embedding table, so a "
                        "token's input and output vectors are the same and {saved} parameters "
                        "are saved.", vocab=f"{V:,}", saved=f"{V * C:,}"))
    else:
        head = Part("lm_head", "head", msg("output head"), f"T × {C} → T × {V:,}", V * C,
                    msg("Turns the last vector into one score (a logit) for each of the {vocab} "
                        "tokens, with a table of its own ({vocab} × {n_embd}), apart from the "
                        "token embedding.", vocab=f"{V:,}", n_embd=C))
    softmax = Part("softmax", "head", msg("softmax: next-token probabilities"),
                   f"T × {V:,}", 0,
                   msg("Turns the scores into probabilities for the next token, which add up to "
                       "1. Sampling draws one; temperature, top-k and top-p reshape them first "
                       "(try them in the forward pass below)."))
    return [head, softmax]


def model_parts(cfg: ModelConfig) -> list[Part]:
    """The parts in the order a token's vector passes them; the block's parts once."""
    if cfg.norm_placement == "pre":
        block = [_norm_part(cfg, "ln_1"), _attention_part(cfg), _residual_part(cfg, "add_1"),
                 _norm_part(cfg, "ln_2"), _mlp_part(cfg), _residual_part(cfg, "add_2")]
        final = [_norm_part(cfg, "ln_f")]
    else:  # post-norm blocks end in a norm already: none before the head
        block = [_attention_part(cfg), _residual_part(cfg, "add_1"), _norm_part(cfg, "ln_1"),
                 _mlp_part(cfg), _residual_part(cfg, "add_2"), _norm_part(cfg, "ln_2")]
        final = []
    return [*_embedding_parts(cfg), *block, *final, *_head_parts(cfg)]


def total_params(cfg: ModelConfig) -> int:
    """The parameters of every part, a block's counted ``n_layer`` times (a tied matrix once).

    >>> total_params(ModelConfig(vocab_size=10, block_size=8, n_layer=1, n_head=2, n_embd=8))
    936
    """
    return sum(p.params * (cfg.n_layer if p.in_block else 1) for p in model_parts(cfg))


def _part_html(part: Part, lang: str) -> str:
    params = localize(msg("{n} parameters", n=f"{part.params:,}"), lang) if part.params else ""
    note = html.escape(localize(part.note, lang))
    # <details>: a click (or a tap on a phone) opens the note; the title shows it on hover too
    return (f'<details class="diagram-part" data-part="{part.key}" style="border:1px solid '
            f'var(--border-color-primary, #d1d5db); border-left:5px solid {COLOURS[part.kind]}; '
            f'border-radius:6px; margin:2px 0; padding:4px 8px;">'
            f'<summary title="{note}" style="cursor:pointer;"><b>{html.escape(localize(part.name, lang))}</b>'
            f' <code style="font-size:0.85em;">{html.escape(part.shape)}</code>'
            f' <span style="opacity:0.75; font-size:0.85em;">{params}</span></summary>'
            f'<p style="margin:4px 0 2px 0; font-size:0.9em;">{note}</p></details>')


ARROW = '<div aria-hidden="true" style="text-align:center; opacity:0.6; line-height:1.1;">↓</div>'


def diagram_html(cfg: ModelConfig, lang: str = "en") -> str:
    """The diagram as HTML the page shows: one box per part, the block framed once with its
    count, the total at the end. Colours come from the page's theme, so it reads in dark mode.

    >>> page = diagram_html(ModelConfig(vocab_size=10, block_size=8, n_layer=3, n_head=2, n_embd=8))
    >>> page.count('class="diagram-part"'), "× 3" in page, "2,504" in page
    (11, True, True)
    """
    parts = model_parts(cfg)
    before = [p for p in parts if p.key in ("tok_emb", "pos")]
    block = [p for p in parts if p.in_block]
    after = [p for p in parts if not p.in_block and p not in before]
    per_block = sum(p.params for p in block)
    placement = msg("pre-norm") if cfg.norm_placement == "pre" else msg("post-norm")
    header = localize(msg("Block × {n_layer} ({placement}), {params} parameters each",
                          n_layer=cfg.n_layer, placement=placement, params=f"{per_block:,}"),
                      lang)
    body = ARROW.join(_part_html(p, lang) for p in block)
    framed = (f'<div class="diagram-block" style="border:2px dashed var(--border-color-primary, '
              f'#9ca3af); border-radius:8px; padding:6px; margin:2px 0;">'
              f'<div style="font-weight:600; margin-bottom:4px;">{html.escape(header)}</div>'
              f'{body}</div>')
    total = localize(msg("{params} parameters in all (a tied matrix counted once).",
                         params=f"{total_params(cfg):,}"), lang)
    pieces = [*(_part_html(p, lang) for p in before), framed, *(_part_html(p, lang) for p in after)]
    return (f'<div class="model-diagram" style="max-width:640px; margin:0 auto; '
            f'color:var(--body-text-color, inherit);">{ARROW.join(pieces)}'
            f'<p style="margin-top:6px;"><b>{html.escape(total)}</b></p></div>')
