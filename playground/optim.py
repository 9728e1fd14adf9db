"""The optimisers a run can use: AdamW for every weight, or Muon for the hidden matrices.

``TrainConfig.optimizer`` picks one. "adamw" is nanoGPT's recipe (``GPT.configure_optimizer``).
"muon" gives the 2-D weight matrices inside the blocks (attention ``qkv`` and ``proj``, the
MLP's matrices) to Muon (``torch.optim.Muon``'s rule, ``BatchedMuon``), which orthogonalises
each matrix's momentum before stepping, and everything else (the token embedding, a learned position table, the output head
even when untied, norms and biases) to AdamW, as Muon's authors prescribe. Each keeps its own
peak learning rate (``muon_lr`` and ``lr``); the warmup and cosine schedule scales both alike.

>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.model import GPT
>>> model = GPT(ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=2, n_embd=16))
>>> hidden = {id(p) for p in hidden_matrices(model)}
>>> [name for name, p in model.named_parameters() if id(p) in hidden]
['blocks.0.attn.qkv.weight', 'blocks.0.attn.proj.weight', 'blocks.0.mlp.fc.weight', 'blocks.0.mlp.proj.weight']
>>> opt = build_optimizer(model, TrainConfig(optimizer="muon", lr=1e-3, muon_lr=0.02), "cpu")
>>> set_lr(opt, 5e-4, TrainConfig(optimizer="muon", lr=1e-3, muon_lr=0.02))  # half the peak
>>> [group["lr"] for group in opt.muon.param_groups], opt.adamw.param_groups[0]["lr"]
([0.01], 0.0005)
"""

from __future__ import annotations

from typing import Any, Iterator

import contextlib
import functools
import math

import torch

from playground.config import ConfigError, TrainConfig
from playground.i18n import msg
from playground.runtime import compute


def hidden_matrices(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    """The 2-D weights inside the Transformer blocks: what Muon is made for.

    The embeddings and the head are matrices too, but they map tokens to vectors and back
    rather than vectors to vectors, and Muon's orthogonalised steps do not suit them.
    """
    return [p for p in model.blocks.parameters() if p.requires_grad and p.dim() == 2]


# Polar Express (Amsel, Chen, Goldstein, Persson and Musco, 2025, arXiv 2505.16932): a quintic
# X <- aX + (bA + cA²)X per iteration, each (a, b, c) the minimax-best for the interval of
# singular values the iterations before it leave, computed for five iterations from [1e-3, 1]
# with the paper's safety margin. The matrix is first divided by 1.02 times its norm, which
# keeps bf16 rounding from pushing a singular value past where the polynomials hold. These are
# the published numbers (modded-nanogpt's train_gpt.py, the paper's code's output).
POLAR_EXPRESS = (
    (8.156554524902461, -22.48329292557795, 15.878769915207462),
    (4.042929935166739, -2.808917465908714, 0.5000178451051316),
    (3.8916678022926607, -2.772484153217685, 0.5060648178503393),
    (3.285753657755655, -2.3681294933425376, 0.46449024233003106),
    (2.3465413258596377, -1.7097828382687081, 0.42323551169305323),
)
POLAR_EXPRESS_NORM_MARGIN = 1.02


class BatchedMuon(torch.optim.Muon):
    """``torch.optim.Muon`` with the Newton-Schulz iterations of same-shaped matrices batched.

    torch's Muon orthogonalises one matrix at a time: twelve small bf16 products a matrix, so a
    3-layer model's step makes 60 calls of a few microseconds' work each, and their overhead is
    most of Muon's cost on a CPU. Here the matrices of one shape (after turning each to be wide,
    as torch does) are stacked and iterated together (``baddbmm`` where torch has ``addmm``),
    in the number format ``newton_schulz_dtype`` measured faster on this machine for that
    shape: torch's bf16 where the CPU or GPU has bf16 units, float32 where bf16 is emulated
    (30x slower on an AVX2-only CPU). The step rule is bit for bit torch's and the state dict
    is torch's too (a run saved with either continues with the other); the iterations equal
    torch's within bf16's rounding in either format (tests). ``formats`` says which format each
    shape got, for the run's figures.

    >>> w = [torch.nn.Parameter(torch.randn(8, 4)) for _ in range(3)]
    >>> opt = BatchedMuon(w, lr=0.02)
    >>> for p in w: p.grad = torch.randn_like(p)
    >>> opt.step(); sorted(opt.state[w[0]])
    ['momentum_buffer']
    >>> list(opt.formats)           # (rows, columns) once turned wide: the format probed for it
    [(4, 8)]
    """

    def __init__(self, params, *, polar_express: bool = False, **kwargs):
        super().__init__(params, **kwargs)
        self.formats: dict[tuple[int, int], torch.dtype] = {}
        self.polar_express = polar_express  # POLAR_EXPRESS's coefficients, not torch's

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            self._init_group(group, params, grads, bufs)
            if not params:
                continue
            momentum = group["momentum"]
            torch._foreach_lerp_(bufs, grads, 1 - momentum)
            updates = ([g.lerp(b, momentum) for g, b in zip(grads, bufs)] if group["nesterov"]
                       else bufs)
            orthogonal = _orthogonalised(updates, group, self.formats,
                                         polar_express=self.polar_express)
            for param, update in zip(params, orthogonal):
                lr = _adjusted_lr(group["lr"], group["adjust_lr_fn"], param.shape)
                param.mul_(1 - group["lr"] * group["weight_decay"])
                param.add_(update, alpha=-lr)
        return loss


def _adjusted_lr(lr: float, rule: str | None, shape: torch.Size) -> float:
    """The step size torch's Muon takes for a matrix of ``shape`` (rows, columns): ``lr`` times
    sqrt(max(1, rows / columns)) by default ("original"), or 0.2 sqrt(max(rows, columns)) with
    "match_rms_adamw" (the rules its documentation gives)."""
    rows, cols = shape[:2]
    if rule == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr * math.sqrt(max(1, rows / cols))


def _orthogonalised(updates: list[torch.Tensor], group: dict[str, Any],
                    formats: dict[tuple[int, int], torch.dtype] | None = None,
                    dtype: torch.dtype | None = None, *,
                    polar_express: bool = False) -> list[torch.Tensor]:
    """torch's ``_zeropower_via_newtonschulz`` of each update, iterated a shape at a time.

    Each shape runs in ``dtype`` when given, else in the format ``newton_schulz_dtype``
    measured faster here; ``formats`` (when given) collects the format each shape used.
    ``polar_express`` iterates with ``POLAR_EXPRESS``'s coefficients instead of the group's.
    """
    margin = POLAR_EXPRESS_NORM_MARGIN if polar_express else 1.0
    by_shape: dict[tuple[int, int], list[int]] = {}
    for i, u in enumerate(updates):
        rows, cols = u.shape
        by_shape.setdefault((min(rows, cols), max(rows, cols)), []).append(i)
    out: list[torch.Tensor] = [torch.empty(0)] * len(updates)
    for shape, indices in by_shape.items():
        number = (dtype or _FIXED_FORMAT[0]
                  or newton_schulz_dtype(str(updates[indices[0]].device), *shape))
        if formats is not None:
            formats[shape] = number
        tall = [updates[i].size(0) > updates[i].size(1) for i in indices]
        wide = [updates[i].to(number).mT if t else updates[i].to(number)
                for i, t in zip(indices, tall)]
        # each scaled by its own norm, computed as torch does: a norm per row of the stack
        # sums in another order and can round the other way
        x = torch.stack([w / (w.norm() * margin).clamp(min=group["eps"])
                         for w in wide])  # (n, m, k)
        if polar_express:
            for coefficients in POLAR_EXPRESS:
                x = _newton_schulz(x, coefficients, 1)
        else:
            x = _newton_schulz(x, group["ns_coefficients"], group["ns_steps"])
        for i, t, y in zip(indices, tall, x.unbind(0)):
            out[i] = y.mT if t else y
    return out


def _newton_schulz(x: torch.Tensor, coefficients: tuple[float, float, float],
                   steps: int) -> torch.Tensor:
    """``steps`` quintic iterations X <- aX + (bA + cA²)X, A = XXᵀ, on a stack (n, m, k), m <= k."""
    a, b, c = coefficients
    for _ in range(steps):
        gram = torch.bmm(x, x.mT)  # (n, m, m)
        x = torch.baddbmm(x, torch.baddbmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x


_FIXED_FORMAT: list[torch.dtype | None] = [None]  # set by fixed_newton_schulz: no probe


@contextlib.contextmanager
def fixed_newton_schulz(number: torch.dtype) -> Iterator[None]:
    """Every Muon step inside the block iterates in ``number``, not the format the probe
    measured faster: the probe's choice depends on the machine (and on a near tie, on the
    moment), so a run that must give the same weights wherever it is repeated fixes it
    (``playground.ready``, whose shipped models are re-trained by a test).

    >>> with fixed_newton_schulz(torch.float32):
    ...     _orthogonalised([torch.randn(4, 8)], {"eps": 1e-7, "ns_coefficients": (3.4445,
    ...                     -4.775, 2.0315), "ns_steps": 5}, formats := {})[0].dtype, formats
    (torch.float32, {(4, 8): torch.float32})
    """
    before, _FIXED_FORMAT[0] = _FIXED_FORMAT[0], number
    try:
        yield
    finally:
        _FIXED_FORMAT[0] = before


# The probe's matrix is at most this many rows by four times as many columns: the ratio of the
# two formats' speeds is the kernels', and an emulated bf16 iteration on a 768 x 3072 matrix
# would take seconds on an AVX2-only CPU.
NS_PROBE_MAX_ROWS = 256
NS_PROBE_ROUNDS = 4  # each format's best time of up to this many, taken in turns
NS_PROBE_CLEAR = 2.0  # one format this many times faster after two rounds settles it
# bf16 must win by this much: where it wins it saves at most half the time, where it loses
# (emulated) it costs 30 times as much, so a near tie goes to float32, the more precise
NS_BF16_MARGIN = 1.2


@functools.lru_cache(maxsize=64)
@compute.routed
def newton_schulz_dtype(device: str, rows: int, cols: int) -> torch.dtype:
    """The faster number format for Newton-Schulz on a wide (rows, cols) matrix here: bfloat16
    (torch's choice) or float32, timed on one iteration of each, once per process, device and
    shape. bf16 must be ``NS_BF16_MARGIN`` times faster to win; a near tie goes to float32.

    Measured on two CPUs (one thread, a 128 x 512 stack): AMD EPYC with AVX512-BF16, bf16
    1.6-2.3x faster; the same CPU limited to AVX2, bf16 emulated and 25-35x slower.

    >>> newton_schulz_dtype("cpu", 8, 32) in (torch.bfloat16, torch.float32)
    True
    """
    from playground.runtime.device import timed_seconds

    place = torch.device(device)
    scale = min(1.0, NS_PROBE_MAX_ROWS / rows)
    m, k = max(1, round(rows * scale)), max(1, round(cols * scale))
    with torch.random.fork_rng(devices=[]):
        x = torch.randn(1, m, k, device=place)
    x = x / x.norm()
    coefficients = (3.4445, -4.775, 2.0315)  # torch's; any three time the same
    best = {torch.bfloat16: math.inf, torch.float32: math.inf}
    for number in best:  # the first run pays for allocation and kernel selection
        _newton_schulz(x.to(number), coefficients, 1)
    for round_ in range(NS_PROBE_ROUNDS):
        for number in best:
            y = x.to(number)
            seconds = timed_seconds(lambda y=y: _newton_schulz(y, coefficients, 1), place)
            best[number] = min(best[number], seconds)
        # settled early only by two clean rounds: one time can be a moment the process lost
        # its core, which makes the faster format look slower
        slow, fast = max(best.values()), min(best.values())
        if round_ >= 1 and slow > NS_PROBE_CLEAR * fast:
            break
    return (torch.bfloat16 if best[torch.bfloat16] * NS_BF16_MARGIN < best[torch.float32]
            else torch.float32)


def format_names(formats: dict[tuple[int, int], torch.dtype]) -> str:
    """The formats a Muon step used, for people: "bfloat16", "float32" or "128x384 float32, ...".

    >>> format_names({(128, 384): torch.float32, (128, 256): torch.float32})
    'float32'
    >>> format_names({})
    ''
    """
    names = {shape: str(number).removeprefix("torch.") for shape, number in formats.items()}
    if len(set(names.values())) <= 1:
        return next(iter(names.values()), "")
    return ", ".join(f"{m}x{k} {name}" for (m, k), name in sorted(names.items()))


class MuonAdamW:
    """Muon for the hidden matrices and AdamW for the rest, stepped as one optimiser.

    It has what the trainer and ``torch.amp.GradScaler`` use of an optimiser: ``param_groups``
    (AdamW's, then Muon's), ``step``, ``zero_grad``, ``state_dict`` and ``load_state_dict``.
    """

    def __init__(self, muon: BatchedMuon, adamw: torch.optim.AdamW):
        self.muon, self.adamw = muon, adamw

    @property
    def param_groups(self) -> list[dict[str, Any]]:
        return self.adamw.param_groups + self.muon.param_groups

    def step(self) -> None:
        self.adamw.step()
        self.muon.step()

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.adamw.zero_grad(set_to_none=set_to_none)
        self.muon.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict[str, Any]:
        return {"adamw": self.adamw.state_dict(), "muon": self.muon.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.adamw.load_state_dict(state["adamw"])
        self.muon.load_state_dict(state["muon"])


def build_optimizer(model: torch.nn.Module, config: TrainConfig,
                    device_type: str) -> torch.optim.AdamW | MuonAdamW:
    """The optimiser ``config.optimizer`` names, at the peak learning rates."""
    betas = (config.beta1, config.beta2)
    if config.optimizer == "adamw":
        return model.configure_optimizer(config.weight_decay, config.lr, betas, device_type)
    hidden = hidden_matrices(model)
    hidden_ids = {id(p) for p in hidden}
    rest = [p for p in model.parameters() if p.requires_grad and id(p) not in hidden_ids]
    muon = BatchedMuon(hidden, lr=config.muon_lr, weight_decay=config.weight_decay,
                       momentum=config.muon_momentum, polar_express=config.polar_express)
    adamw = model.configure_optimizer(config.weight_decay, config.lr, betas, device_type,
                                      params=rest)
    return MuonAdamW(muon, adamw)


def load_optimizer_state(optimizer: torch.optim.AdamW | MuonAdamW, state: dict[str, Any],
                         config: TrainConfig) -> None:
    """Continue from a saved ``state_dict()``, refusing one of the other optimiser in plain words.

    >>> from playground.model import GPT
    >>> from playground.config import ModelConfig
    >>> model = GPT(ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=2, n_embd=16))
    >>> saved = build_optimizer(model, TrainConfig(), "cpu").state_dict()
    >>> load_optimizer_state(build_optimizer(model, TrainConfig(optimizer="muon"), "cpu"), saved,
    ...                      TrainConfig(optimizer="muon"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    playground.config.ConfigError: This run was trained with optimizer=adamw, so it can only ...
    """
    saved = "muon" if state.keys() == {"adamw", "muon"} else "adamw"
    if saved != config.optimizer:
        raise ConfigError(msg("This run was trained with optimizer={saved}, so it can only "
                              "continue with it: set optimizer={saved}, or start a new run to try "
                              "optimizer={asked}.", saved=saved, asked=config.optimizer))
    optimizer.load_state_dict(state)


def set_lr(optimizer: torch.optim.AdamW | MuonAdamW, lr: float, config: TrainConfig) -> None:
    """Set this step's learning rate ``lr`` (from the schedule, ``train.lr_at``).

    AdamW's groups take ``lr`` itself; Muon's take ``muon_lr`` scaled by the same factor
    (``lr / config.lr``), so warmup and decay shape both alike.
    """
    muon_groups = optimizer.muon.param_groups if isinstance(optimizer, MuonAdamW) else []
    muon_lr = config.muon_lr * lr / config.lr
    for group in optimizer.param_groups:
        group["lr"] = muon_lr if any(group is g for g in muon_groups) else lr
