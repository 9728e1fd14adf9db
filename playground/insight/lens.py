"""One forward pass of a trained model, step by step, and the logit lens.

``forward_pass`` runs the model once on a prompt (through the explicit attention path) and
keeps, for every position: the token's embedding and the position signal added to it, each
layer's attention over the tokens up to it, and the **logit lens**: the residual stream read
out after the embedding and after each block through the model's own final norm and output
head, as if the model ended there. The last read-out is the model's real output. The
final logits stay cached, so temperature, top-k and top-p can reshape the next-token
distribution (``shaped_probs``, the sampler's own ``logits_to_probs``) without running the
model again. The figures are pure functions of that record.

>>> import torch
>>> from playground.config import ModelConfig
>>> from playground.model import GPT
>>> from playground.tokenizer import train_tokenizer
>>> tok = train_tokenizer("char", "hello world")
>>> model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=16, n_layer=2, n_head=2, n_embd=8))
>>> fp = forward_pass(model, tok, "hello", top_k=3)
>>> fp.lens_ids.shape, fp.attention.shape, fp.logits.shape
((3, 5, 3), (2, 2, 5, 5), (5, 8))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from playground.generate import logits_to_probs
from playground.i18n import msg, t
from playground.model import GPT
from playground.plots import TEMPLATE, display_token
from playground.runtime import compute

TOP_K = 5  # guesses the lens shows per layer


@dataclass(frozen=True)
class ForwardPass:
    """What one run of the model on a prompt showed, at every position (T tokens)."""

    tokens: list[str]  # display string of each token
    token_ids: list[int]
    token_vectors: np.ndarray  # (T, C) the embedding rows (times sqrt(n_embd) when scaled)
    position_vectors: np.ndarray | None  # (T, C) the positions added to them; None: RoPE or none
    attention: np.ndarray  # (L, nh, T, T) row = the token looking, column = looked at
    lens_ids: np.ndarray  # (L + 1, T, k) the top guesses read after the embedding and each block
    lens_probs: np.ndarray  # (L + 1, T, k) their probabilities
    next_probs: np.ndarray  # (L + 1, T) the chance each read-out gives the prompt's actual next
    #                         token (NaN at the last position: the prompt does not say)
    logits: np.ndarray  # (T, V) float32: the model's own next-token scores, for shaped_probs

    @property
    def n_layer(self) -> int:
        return self.attention.shape[0]


def logit_lens(model: GPT, hidden: list[torch.Tensor]) -> list[torch.Tensor]:
    """Each residual-stream tensor read through the final norm and the head: (B, T, V) each.

    The last one is the model's output itself (``forward`` reads the stream the same way).
    """
    return [model.head(h) for h in hidden]


@compute.routed
@torch.no_grad()
def forward_pass(model: GPT, tokenizer, text: str, top_k: int = TOP_K,
                 max_tokens: int | None = None) -> ForwardPass:
    """Run ``model`` once on ``text`` (cut to its first ``max_tokens`` tokens, at most the
    context) and keep every step of the way; the model's train/eval mode is restored after."""
    ids = tokenizer.encode(text) if text else []
    if not ids:
        raise ValueError(msg("Type a prompt: the forward pass needs at least one token."))
    ids = ids[:min(model.config.block_size, max_tokens or model.config.block_size)]
    was_training = model.training
    model.eval()
    try:
        device = model.tok_emb.weight.device
        idx = torch.tensor([ids], device=device)  # (1, T)
        hidden, attn = model.residual_stream(idx, return_attn=True)
        token_vectors = model.tok_emb(idx)[0] * model.emb_scale  # (T, C)
        positions = model.pos_emb(0, len(ids))  # (T, C), or 0.0 when nothing is added
        lens = torch.stack([logits[0] for logits in logit_lens(model, hidden)]).float()  # (L+1, T, V)
    finally:
        model.train(was_training)
    probs = lens.softmax(dim=-1)
    top = probs.topk(min(top_k, probs.size(-1)), dim=-1)  # (L + 1, T, k) each
    following = torch.tensor(ids[1:] + [0], device=probs.device)  # the prompt's next tokens
    next_probs = probs.gather(-1, following.expand(probs.size(0), -1)[..., None])[..., 0]
    next_probs[:, -1] = float("nan")
    return ForwardPass(
        tokens=tokenizer.token_strs(ids), token_ids=list(ids),
        token_vectors=token_vectors.float().cpu().numpy(),
        position_vectors=(positions.float().cpu().numpy()
                          if isinstance(positions, torch.Tensor) else None),
        attention=torch.stack([a[0] for a in attn]).float().cpu().numpy(),
        lens_ids=top.indices.cpu().numpy(), lens_probs=top.values.cpu().numpy(),
        next_probs=next_probs.cpu().numpy(), logits=lens[-1].cpu().numpy())


def shaped_probs(logits: np.ndarray, temperature: float = 1.0, top_k: int = 0,
                 top_p: float = 1.0) -> np.ndarray:
    """The distribution the sampler would draw from: the generator's own ``logits_to_probs``.

    >>> shaped_probs(np.array([2.0, 1.0, 0.0]), temperature=0.5).round(3).tolist()
    [0.867, 0.117, 0.016]
    """
    probs = logits_to_probs(torch.as_tensor(np.asarray(logits, dtype=np.float32)),
                            temperature=float(temperature), top_k=int(top_k) or None,
                            top_p=float(top_p))
    return probs.double().numpy()


def _clamp(position: int, fp: ForwardPass) -> int:
    return min(max(int(position), 0), len(fp.tokens) - 1)


def _token_ticks(tokens: list[str]) -> dict:
    positions = list(range(len(tokens)))
    return dict(tickmode="array", tickvals=positions,
                ticktext=[display_token(tok, 8) for tok in tokens], tickfont=dict(size=12))


def vector_figure(fp: ForwardPass, position: int, lang: str = "en") -> go.Figure:
    """The token's vector as heat strips: its embedding row, the position added, the sum
    that enters the first block (one strip when nothing is added)."""
    p = _clamp(position, fp)
    rows, names = [fp.token_vectors[p]], [t("token embedding", lang)]
    if fp.position_vectors is not None:
        rows += [fp.position_vectors[p], fp.token_vectors[p] + fp.position_vectors[p]]
        names += [t("+ position {position}", lang, position=p), t("= into block 1", lang)]
    z = np.stack(rows)
    bound = float(np.abs(z).max()) or 1.0
    fig = go.Figure(go.Heatmap(
        z=z, y=list(range(len(rows))), colorscale="RdBu", zmid=0.0, zmin=-bound, zmax=bound,
        hovertemplate=t("number {dimension}: {value}", lang, dimension="%{x}",
                        value="%{z:.3f}") + "<extra></extra>",
        colorbar=dict(thickness=10)))
    # Gradio's Plot raises a titled figure's top margin to 100 px when it shows its label: at
    # 90 + 36 px a one-strip figure (RoPE, no position added) had no room left and Plotly drew
    # nothing ("Something went wrong with axis scaling")
    fig.update_layout(
        template=TEMPLATE, height=140 + 36 * len(rows), margin=dict(l=130, r=10, t=36, b=30),
        title=dict(text=t("“{token}”: {n} numbers", lang, token=display_token(fp.tokens[p], 16),
                          n=z.shape[1]), font=dict(size=13)),
        yaxis=dict(tickmode="array", tickvals=list(range(len(rows))), ticktext=names,
                   autorange="reversed"))
    return fig


def attention_row_figure(fp: ForwardPass, position: int, lang: str = "en") -> go.Figure:
    """Where the token at ``position`` looks: one row per layer and head, one column per token
    up to it (the causal mask hides the rest)."""
    p = _clamp(position, fp)
    L, nh = fp.attention.shape[:2]
    z = fp.attention[:, :, p, : p + 1].reshape(L * nh, p + 1)  # (L * nh, p + 1)
    names = [t("layer {layer} · head {head}", lang, layer=layer, head=head)
             for layer in range(L) for head in range(nh)]
    labels = [display_token(tok, 16) for tok in fp.tokens[: p + 1]]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(p + 1)), y=list(range(L * nh)), colorscale="Viridis", zmin=0.0,
        zmax=float(z.max()) if z.size else 1.0, customdata=[labels] * (L * nh),
        hovertemplate=t("looks at “{target}”: weight {value}", lang, target="%{customdata}",
                        value="%{z:.3f}") + "<extra></extra>",
        colorbar=dict(thickness=10)))
    fig.update_layout(
        template=TEMPLATE, height=min(900, 110 + 22 * L * nh),
        margin=dict(l=120, r=10, t=36, b=60),
        title=dict(text=t("Where “{token}” looks, in each layer and head", lang,
                          token=display_token(fp.tokens[p], 16)), font=dict(size=13)),
        # single characters read upright; longer tokens need the slant to fit
        xaxis=dict(tickangle=0 if max(map(len, labels)) <= 2 else -60,
                   **_token_ticks(fp.tokens[: p + 1])),
        yaxis=dict(tickmode="array", tickvals=list(range(L * nh)), ticktext=names,
                   autorange="reversed", tickfont=dict(size=11)))
    return fig


def lens_figure(fp: ForwardPass, position: int, tokenizer, lang: str = "en") -> go.Figure:
    """The logit lens at ``position``: the top guesses for the next token read out after the
    embedding and after each block (the last row is the model's output), and the chance each
    gives the token that really comes next in the prompt."""
    p = _clamp(position, fp)
    rows = fp.lens_probs.shape[0]
    # layers numbered from 0, as the attention rows and the Attention tab number them
    names = [t("embedding", lang)] + [t("after layer {n}", lang, n=n) for n in range(rows - 1)]
    names[-1] = t("after layer {n} (output)", lang, n=rows - 2)
    probs = fp.lens_probs[:, p]  # (L + 1, k)
    labels = [[display_token(tokenizer.token_str(int(i)), 10) for i in row]
              for row in fp.lens_ids[:, p]]
    has_next = p + 1 < len(fp.tokens)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.8, 0.2], horizontal_spacing=0.03,
                        subplot_titles=[t("top guesses", lang),
                                        t("“{token}”<br>comes next", lang,
                                          token=display_token(fp.tokens[p + 1], 10))
                                        if has_next else t("next token<br>unknown", lang)])
    fig.add_trace(go.Heatmap(
        z=probs, text=labels, texttemplate="%{text}", textfont=dict(size=13),
        x=list(range(1, probs.shape[1] + 1)), y=list(range(rows)), colorscale="Blues",
        zmin=0.0, zmax=1.0, showscale=False,
        hovertemplate=t("“{token}”: {value}", lang, token="%{text}",
                        value="%{z:.1%}") + "<extra></extra>"), row=1, col=1)
    nxt = fp.next_probs[:, p][:, None]  # (L + 1, 1)
    fig.add_trace(go.Heatmap(
        z=np.nan_to_num(nxt), text=[[f"{v:.0%}" if math.isfinite(v) else "–"] for v in nxt[:, 0]],
        texttemplate="%{text}", x=[0], y=list(range(rows)), colorscale="Greens", zmin=0.0,
        zmax=1.0, showscale=False, hoverinfo="skip"), row=1, col=2)
    fig.update_annotations(font_size=12)  # the column titles: the narrow one in two lines,
    # else on a phone it runs into the first
    fig.update_yaxes(tickmode="array", tickvals=list(range(rows)), ticktext=names,
                     autorange="reversed", tickfont=dict(size=11), row=1, col=1)
    fig.update_yaxes(showticklabels=False, autorange="reversed", row=1, col=2)
    fig.update_xaxes(title_text=t("rank", lang), dtick=1, row=1, col=1)
    fig.update_xaxes(showticklabels=False, row=1, col=2)
    fig.update_layout(template=TEMPLATE, height=110 + 44 * rows,
                      margin=dict(l=120, r=10, t=60, b=40))
    return fig


def distribution_figure(logits: np.ndarray, tokenizer, temperature: float = 1.0, top_k: int = 0,
                        top_p: float = 1.0, n: int = 10, lang: str = "en") -> go.Figure:
    """The next-token distribution as the model gives it (temperature 1) and as the sampler
    would draw from it after temperature, top-k and top-p: the ``n`` likeliest tokens."""
    raw = shaped_probs(logits)
    shaped = shaped_probs(logits, temperature, top_k, top_p)
    order = np.lexsort((-raw, -shaped))[:n]  # by the reshaped chance, then the model's own
    labels = [display_token(tokenizer.token_str(int(i)), 12) for i in order]
    kept = int((shaped > 0).sum())
    rows = list(range(len(order)))
    fig = go.Figure([
        go.Bar(x=raw[order], y=rows, orientation="h", name=t("the model (temperature 1)", lang),
               marker=dict(color="#9ca3af"), customdata=labels,
               hovertemplate="“%{customdata}”: %{x:.1%}<extra></extra>"),
        go.Bar(x=shaped[order], y=rows, orientation="h", name=t("what sampling draws from", lang),
               marker=dict(color="#2563eb"), customdata=labels, text=[f"{v:.0%}" for v in shaped[order]],
               textposition="outside", hovertemplate="“%{customdata}”: %{x:.1%}<extra></extra>"),
    ])
    fig.update_layout(
        template=TEMPLATE, barmode="group", height=120 + 34 * len(order),
        margin=dict(l=80, r=30, t=60, b=40),
        title=dict(text=t("{kept} of {vocab} tokens can be drawn", lang, kept=f"{kept:,}",
                          vocab=f"{len(raw):,}"), font=dict(size=13)),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
        xaxis=dict(title=dict(text=t("probability", lang)), range=[0, 1.1], tickformat=".0%"),
        yaxis=dict(tickmode="array", tickvals=rows, ticktext=labels, autorange="reversed",
                   tickfont=dict(size=13)))
    return fig


def forward_summary(fp: ForwardPass, position: int, tokenizer, lang: str = "en") -> str:
    """One line on the pass at ``position``: its token and the likeliest next one."""
    p = min(max(int(position), 0), len(fp.tokens) - 1)
    guess = int(fp.lens_ids[-1, p, 0])
    return t("**{n} tokens.** Position {position} is “{token}”; the model's likeliest next token "
             "is “{guess}” ({p}). Each row of the lens reads the vector after one more layer.",
             lang, n=len(fp.tokens), position=p, token=display_token(fp.tokens[p], 16),
             guess=display_token(tokenizer.token_str(guess), 16),
             p=f"{fp.lens_probs[-1, p, 0]:.0%}")
