"""Typed settings for the model and for training, and the named presets.

Every field has the same name in code, in the CLI (``--n_embd``) and in the page, so one
vocabulary runs through the project. Each config checks itself when built and raises a
``ConfigError`` whose message says what is wrong in plain words and what to do instead.

>>> cfg = ModelConfig(n_embd=96, n_head=4)
>>> cfg.head_size
24
>>> ModelConfig(n_embd=100, n_head=3)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
playground.config.ConfigError: The width n_embd=100 must divide evenly among the 3 attention heads ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from playground.i18n import msg

BIGRAM_MAX_ROWS = 16_384  # the bigram table's rows at most: 128 wide, 2M numbers
POSITIONS = ("learned", "sinusoidal", "rope", "none")
NORMS = ("layernorm", "rmsnorm")
NORM_PLACEMENTS = ("pre", "post")
ACTIVATIONS = ("gelu", "relu", "relu2", "swiglu")
DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("auto", "float32", "bfloat16", "float16")
RNG_STREAMS = ("separate", "nanogpt")
OPTIMIZERS = ("adamw", "muon")
# every setting that takes one of a few words: the CLI's choices and the page's menus
CHOICES: dict[str, tuple[str, ...]] = {
    "pos": POSITIONS, "norm": NORMS, "norm_placement": NORM_PLACEMENTS,
    "activation": ACTIVATIONS, "device": DEVICES, "dtype": DTYPES, "rng_stream": RNG_STREAMS,
    "optimizer": OPTIMIZERS,
}


class ConfigError(ValueError):
    """A setting that cannot work, with a message meant for a person."""


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(msg("{name} must be a whole number, got {value}.",
                              name=name, value=repr(value)))
    if not low <= value <= high:
        raise ConfigError(msg("{name} must be between {low} and {high}, got {value}.",
                              name=name, low=f"{low:,}", high=f"{high:,}",
                              value=f"{value:,}"))


def _check_float(name: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ConfigError(msg("{name} must be a number, got {value}.",
                              name=name, value=repr(value)))
    if not low <= value <= high:
        raise ConfigError(msg("{name} must be between {low} and {high}, got {value}.",
                              name=name, low=f"{low:g}", high=f"{high:g}",
                              value=f"{value:g}"))


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(msg("{name} must be one of {choices}; got {value}.",
                              name=name, choices=", ".join(choices),
                              value=repr(value)))


@dataclass
class ModelConfig:
    """The shape and the architecture variants of a decoder-only Transformer."""

    vocab_size: int = 65  # 65 distinct characters in Tiny Shakespeare
    block_size: int = 64  # context length: how many tokens the model sees at once
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128  # the width of every token's vector
    dropout: float = 0.0  # 0 for small data and short runs; 0.1-0.2 once a model overfits
    bias: bool = False  # nanoGPT: no biases is slightly better and faster
    pos: str = "learned"  # learned | sinusoidal | rope | none
    norm: str = "layernorm"  # layernorm | rmsnorm
    norm_placement: str = "pre"  # pre (GPT-2 and later) | post (the 2017 paper)
    activation: str = "gelu"  # gelu | relu | relu2 (squared ReLU, modded-nanogpt) | swiglu
    mlp_ratio: float = 4.0  # feed-forward width = mlp_ratio * n_embd (2/3 of it for swiglu)
    tie_weights: bool = True  # the output layer reuses the token embedding matrix
    scale_embedding: bool = False  # multiply token embeddings by sqrt(n_embd), as in the 2017 paper
    # RMSNorm (with a learned gain) of each head's queries and keys before RoPE and the dot
    # product, as in Qwen3 (OLMo-2 norms all heads together): the attention logits then
    # follow the gains, not the growing size of the query and key weights
    qk_norm: bool = False
    # zero the projections that write into the residual stream (attention and feed-forward
    # proj) and the output head, as modded-nanogpt does: every block starts as the identity and
    # the first prediction is uniform. A tied head is the token embedding, so it keeps its draw
    zero_init: bool = False
    # before attention and before the feed-forward layer, the first half of each position's
    # numbers are the previous position's (RWKV's token shift): a character model gets the
    # letter before for free instead of spending a head on it, with no weights added
    token_shift: bool = False
    # an embedding of each (previous token, token) pair added to the token's own embedding (the
    # bigram embedding of the modded-nanogpt speedrun): which two letters come in a row is most
    # of what a character model learns first, and here it is one table look-up. One row per
    # pair up to BIGRAM_MAX_ROWS rows (a character vocabulary's 65 x 65 fit), hashed beyond
    bigram: bool = False
    # a token embedding of its own per layer, added to the attention's values (modded-nanogpt's
    # value embeddings): every layer's heads can pass on which token sits where, not only what
    # the residual stream still says about it
    value_embed: bool = False
    # squash the logits smoothly into (-logit_softcap, logit_softcap) with cap * tanh(x / cap),
    # as Gemma 2 and modded-nanogpt do: a confident model cannot push them without bound. 0: off
    logit_softcap: float = 0.0
    rope_base: float = 10000.0
    norm_eps: float = 1e-5

    def __post_init__(self) -> None:
        _check_int("vocab_size", self.vocab_size, 2, 1_000_000)
        _check_int("block_size", self.block_size, 1, 65_536)
        _check_int("n_layer", self.n_layer, 1, 256)
        _check_int("n_head", self.n_head, 1, 256)
        _check_int("n_embd", self.n_embd, 1, 65_536)
        _check_float("dropout", self.dropout, 0.0, 0.9)
        _check_float("mlp_ratio", self.mlp_ratio, 0.25, 64.0)
        _check_float("rope_base", self.rope_base, 2.0, 1e9)
        _check_float("norm_eps", self.norm_eps, 1e-12, 1e-1)
        _check_float("logit_softcap", self.logit_softcap, 0.0, 1e4)
        _check_choice("pos", self.pos, POSITIONS)
        _check_choice("norm", self.norm, NORMS)
        _check_choice("norm_placement", self.norm_placement, NORM_PLACEMENTS)
        _check_choice("activation", self.activation, ACTIVATIONS)
        if self.n_embd % self.n_head:
            suggestion = max(self.n_head, round(self.n_embd / self.n_head) * self.n_head)
            raise ConfigError(msg("The width n_embd={n_embd} must divide evenly among the "
                                  "{n_head} attention heads (each head gets n_embd / n_head "
                                  "numbers). Try n_embd={suggestion} or a number of heads that "
                                  "divides {n_embd}.", n_embd=self.n_embd, n_head=self.n_head,
                                  suggestion=suggestion))
        if self.pos == "rope" and self.head_size % 2:
            raise ConfigError(msg("RoPE rotates the numbers of each head in pairs, so the head "
                                  "size (n_embd / n_head = {head_size}) must be even. Change "
                                  "n_embd or n_head, or pick another kind of position encoding.",
                                  head_size=self.head_size))

    @property
    def head_size(self) -> int:
        return self.n_embd // self.n_head

    @property
    def hidden_size(self) -> int:
        """Width of the feed-forward layer; SwiGLU's three matrices keep about the same count."""
        hidden = int(self.mlp_ratio * self.n_embd)
        return max(1, int(2 * hidden / 3)) if self.activation == "swiglu" else hidden

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelConfig":
        return _from_dict(cls, data)


@dataclass
class TrainConfig:
    """How to train: optimiser, schedule, evaluation, device and precision."""

    max_steps: int = 2000
    batch_size: int = 12  # sequences per step (the global batch, whatever the process count)
    grad_accum: int = 1  # micro-steps per optimiser step; batch_size is split among them
    lr: float = 1e-3  # peak learning rate, reached after the warmup
    min_lr: float = 1e-4  # the cosine decay ends here (about lr / 10, per Chinchilla)
    warmup_steps: int = 100
    lr_decay_steps: int = 0  # 0 means decay over the whole run (max_steps)
    weight_decay: float = 0.1  # applied to matrices only, never to norms, biases or embeddings' gains
    beta1: float = 0.9
    beta2: float = 0.99  # 0.99 instead of 0.999: each step sees few tokens
    grad_clip: float = 1.0  # 0 turns clipping off
    # adamw: AdamW for every weight (nanoGPT). muon: Muon for the 2-D matrices inside the
    # blocks (attention and feed-forward), AdamW at lr for the embeddings, head, norms, biases
    optimizer: str = "adamw"
    # Muon's peak learning rate: Muon steps each matrix by an orthogonalised direction of fixed
    # size, so its rate is a different unit from AdamW's and ~10x larger; the schedule scales
    # it by the same factor as lr (warmup, cosine to min_lr / lr of it)
    muon_lr: float = 0.02
    muon_momentum: float = 0.95  # Muon's momentum (Nesterov); AdamW keeps beta1 and beta2
    # Newton-Schulz with the Polar Express coefficients (Amsel et al., 2025: one set per
    # iteration, each the best for the spread of singular values left), not torch's one set
    # for every iteration: the same five iterations come closer to an orthogonal step
    polar_express: bool = False
    label_smoothing: float = 0.0
    eval_interval: int = 250  # steps between evaluations of train and validation loss
    eval_iters: int = 20  # batches averaged per evaluation
    # batches of the evaluation at step 0 only (0: eval_iters, like every other): a new model's
    # loss is about ln(vocab_size) on any batch, so a few measure it as well as many
    first_eval_iters: int = 0
    sample_tokens: int = 0  # tokens of sample text generated at each evaluation (0: none)
    val_fraction: float = 0.1  # the last 10% of the text is held out, as in nanoGPT
    seed: int = 1337
    # separate: batches and evaluations draw from their own seeded streams, so a change to the
    # model or to the evaluations never changes which batches a run sees (for comparisons);
    # nanogpt: one stream in nanoGPT's order (initial weights, first batch, then each
    # evaluation after the next step's batch), so a nanoGPT recipe gives nanoGPT's numbers
    rng_stream: str = "separate"
    device: str = "auto"  # auto picks CUDA, then Apple MPS, then CPU
    dtype: str = "auto"  # auto: bfloat16 where the hardware is fast at it, else float32
    compile: bool = False  # torch.compile: faster steps after a warm-up of ~30 s on CPU
    threads: int = 0  # CPU threads; 0 lets PyTorch decide

    def __post_init__(self) -> None:
        _check_int("max_steps", self.max_steps, 1, 10_000_000)
        _check_int("batch_size", self.batch_size, 1, 65_536)
        _check_int("grad_accum", self.grad_accum, 1, 65_536)
        _check_float("lr", self.lr, 1e-8, 10.0)
        _check_float("min_lr", self.min_lr, 0.0, 10.0)
        _check_int("warmup_steps", self.warmup_steps, 0, 10_000_000)
        _check_int("lr_decay_steps", self.lr_decay_steps, 0, 10_000_000)
        _check_float("weight_decay", self.weight_decay, 0.0, 10.0)
        _check_float("beta1", self.beta1, 0.0, 0.9999)
        _check_float("beta2", self.beta2, 0.0, 0.99999)
        _check_float("grad_clip", self.grad_clip, 0.0, 1e6)
        _check_choice("optimizer", self.optimizer, OPTIMIZERS)
        _check_float("muon_lr", self.muon_lr, 1e-8, 10.0)
        _check_float("muon_momentum", self.muon_momentum, 0.0, 0.9999)
        _check_float("label_smoothing", self.label_smoothing, 0.0, 0.9)
        _check_int("eval_interval", self.eval_interval, 1, 10_000_000)
        _check_int("eval_iters", self.eval_iters, 1, 10_000)
        _check_int("first_eval_iters", self.first_eval_iters, 0, 10_000)
        _check_int("sample_tokens", self.sample_tokens, 0, SAMPLE_RANGES["max_new_tokens"][1])
        _check_float("val_fraction", self.val_fraction, 0.01, 0.5)
        _check_int("seed", self.seed, 0, 2**63 - 1)
        _check_choice("rng_stream", self.rng_stream, RNG_STREAMS)
        _check_choice("device", self.device, DEVICES)
        _check_choice("dtype", self.dtype, DTYPES)
        _check_int("threads", self.threads, 0, 1024)
        if self.min_lr > self.lr:
            raise ConfigError(msg("min_lr ({min_lr}) is where the learning rate ends, so it "
                                  "cannot be above the peak lr ({lr}).", min_lr=f"{self.min_lr:g}",
                                  lr=f"{self.lr:g}"))
        if self.batch_size % self.grad_accum:
            raise ConfigError(msg("batch_size={batch_size} must split evenly into "
                                  "grad_accum={grad_accum} micro-batches.",
                                  batch_size=self.batch_size,
                                  grad_accum=self.grad_accum))

    @property
    def decay_steps(self) -> int:
        return self.lr_decay_steps or self.max_steps

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainConfig":
        return _from_dict(cls, data)


# the sampling settings' ranges: SampleConfig checks them, the page's sliders span them
SAMPLE_RANGES: dict[str, tuple[float, float]] = {
    "max_new_tokens": (1, 2_000), "temperature": (0.0, 2.0), "top_k": (0, 200),
    "top_p": (0.05, 1.0), "seed": (0, 2**63 - 1),
}


@dataclass(frozen=True)
class SampleConfig:
    """How to write text with a trained model: length, temperature and the two filters.

    ``top_k`` 0 and ``top_p`` 1.0 switch those filters off; ``seed`` None draws a new text
    each time (the page's seed 0 means the same).

    >>> SampleConfig(temperature=0.0).temperature   # 0 is greedy: always the likeliest token
    0.0
    >>> SampleConfig(max_new_tokens=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    playground.config.ConfigError: max_new_tokens must be between 1 and 2,000, got 0.
    """

    max_new_tokens: int = 300
    temperature: float = 0.8  # below 1 sharpens the distribution, above 1 flattens it
    top_k: int = 0  # sample among the k likeliest tokens (0: all)
    top_p: float = 1.0  # sample among the likeliest tokens holding this much probability
    seed: int | None = None

    def __post_init__(self) -> None:
        r = SAMPLE_RANGES
        _check_int("max_new_tokens", self.max_new_tokens, *r["max_new_tokens"])
        _check_float("temperature", self.temperature, *r["temperature"])
        _check_int("top_k", self.top_k, *r["top_k"])
        _check_float("top_p", self.top_p, *r["top_p"])
        if self.seed is not None:
            _check_int("seed", self.seed, *r["seed"])

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _from_dict(cls, data: dict[str, Any]):
    """Build a config from a dict, refusing unknown keys with a clear message."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(msg("Unknown {config} settings: {names}.",
                              config=cls.__name__, names=", ".join(unknown)))
    return cls(**data)


@dataclass(frozen=True)
class Preset:
    """A named starting point: a model, a training recipe and a one-line description."""

    name: str
    description: str
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    # what a run of it reaches on Tiny Shakespeare at character level (measured, see
    # docs/PERFORMANCE.md), and a sample written by such a run, so the page can show
    # what that loss looks like before anything is trained
    expected_val_loss: float | None = None
    looks_like: str = ""
    gpu_recipe: bool = False  # sized for a GPU: on a CPU it takes hours


_TINY_MODEL = ModelConfig(block_size=64, n_layer=2, n_head=4, n_embd=64, pos="rope")
_TINY_TRAIN = TrainConfig(max_steps=600, batch_size=16, lr=3e-3, min_lr=3e-4, warmup_steps=30,
                          eval_interval=100, eval_iters=10, sample_tokens=120)

# The speedrun's switches, each kept where it paid: the measurements behind every value here
# are in docs/PERFORMANCE.md, "Why the presets are as they are".
_SPEEDRUN_MODEL = ModelConfig(block_size=32, n_layer=2, n_head=4, n_embd=128, dropout=0.0,
                              pos="rope", activation="relu2", qk_norm=True, mlp_ratio=2.0,
                              token_shift=True)
_SPEEDRUN_TRAIN = TrainConfig(max_steps=180, batch_size=32, lr=4e-3, min_lr=4e-4, warmup_steps=5,
                              beta2=0.99, optimizer="muon", muon_lr=0.02, muon_momentum=0.8,
                              eval_interval=180, eval_iters=50, first_eval_iters=5,
                              sample_tokens=200, dtype="float32")

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset(
            "quick",
            "3 layers with RoPE, squared ReLU, QK-norm, a token shift and the Muon optimizer "
            "for 1100 steps: Shakespeare-shaped text (val loss about 1.59), with a sample at "
            "every evaluation.",
            # the speedrun's switches on 3 layers at context 64 (docs/PERFORMANCE.md, "Why the
            # presets are as they are")
            dataclasses.replace(_SPEEDRUN_MODEL, block_size=64, n_layer=3, mlp_ratio=4.0,
                                token_shift=True),
            dataclasses.replace(_SPEEDRUN_TRAIN, max_steps=1100, batch_size=16,
                                eval_interval=300, eval_iters=10),
            expected_val_loss=1.59,
            # written by this preset at its last evaluation (val 1.579), temperature 0.8
            looks_like="COMINIUS:\nThen, Eiven rolours. Now thou art son, and with him,\n"
                       "Which as a monstaims of fair grace,\nEre he disserves to any Bohemoff "
                       "and my sorrow",
        ),
        Preset(
            "cpu-speedrun",
            "The fastest way to val loss 1.88 on a CPU: 180 steps of 2 layers with RoPE, "
            "squared ReLU, QK-norm, a token shift and the Muon optimizer.",
            # 1.859 on 50 batches, 1.853 on 200 (seed 1 at 180 steps: 1.865)
            _SPEEDRUN_MODEL, _SPEEDRUN_TRAIN, expected_val_loss=1.86,
            # written by this preset at its last evaluation (val 1.859), temperature 0.8
            looks_like="COMINIUS:\nThen, Ey learn our geath and\nthough this powing in with to "
                       "been alngentmes, sir;",
        ),
        Preset(
            "tiny",
            "A very small model that trains in about a minute on a laptop CPU.",
            _TINY_MODEL, _TINY_TRAIN, expected_val_loss=2.0,
            # written by this preset (val 1.994), temperature 0.8
            looks_like="Them parn the wont as be the lrothere;\nHing my promin will likhtilt, lord "
                       "the deppest he lovest\nThee a drer nond thou meme hace spess,",
        ),
        Preset(
            "nanogpt-cpu",
            "nanoGPT's CPU recipe for Tiny Shakespeare: 4 layers, 128 wide, 2000 steps.",
            ModelConfig(block_size=64, n_layer=4, n_head=4, n_embd=128, dropout=0.0),
            TrainConfig(max_steps=2000, batch_size=12, lr=1e-3, min_lr=1e-4, warmup_steps=100,
                        beta2=0.99, eval_interval=250, eval_iters=20, rng_stream="nanogpt"),
            expected_val_loss=1.886,  # nanoGPT's own README figure, which the preset reproduces
        ),
        Preset(
            "nanogpt-gpu",
            "nanoGPT's GPU recipe for Tiny Shakespeare: 6 layers, 384 wide, context 256.",
            ModelConfig(block_size=256, n_layer=6, n_head=6, n_embd=384, dropout=0.2),
            TrainConfig(max_steps=5000, batch_size=64, lr=1e-3, min_lr=1e-4, warmup_steps=100,
                        beta2=0.99, eval_interval=250, eval_iters=200, rng_stream="nanogpt"),
            expected_val_loss=1.4697, gpu_recipe=True,  # nanoGPT's README: 1.4697 on an A100
        ),
        Preset(
            "gpu-speedrun",
            "nanoGPT's GPU model with the speedrun's switches (RoPE, squared ReLU, QK-norm, "
            "zero-init, Muon): aimed at val loss 1.47 in under 30 seconds on a big GPU.",
            ModelConfig(block_size=256, n_layer=6, n_head=6, n_embd=384, dropout=0.1, pos="rope",
                        activation="relu2", qk_norm=True, zero_init=True),
            TrainConfig(max_steps=2000, batch_size=64, lr=4e-3, min_lr=4e-4, warmup_steps=50,
                        beta2=0.99, optimizer="muon", muon_lr=0.02, eval_interval=250,
                        eval_iters=200),
            expected_val_loss=1.47, gpu_recipe=True,  # a target: not yet run on a GPU
        ),
    ]
}


DEFAULT_PRESET = "quick"  # the page's first run (`python -m playground train --preset quick`)


def replace(config, **changes):
    """A copy of a config with some fields changed (and checked again)."""
    return dataclasses.replace(config, **changes)
