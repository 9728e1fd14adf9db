"""Typed settings for the model and for training, and the named presets.

Every field has the same name in code, in the CLI (``--n_embd``) and in the page, so one
vocabulary runs through the project, and carries its label and one-line help in English and
Chinese (``setting_text``), which the page, the CLI's ``--help`` and docs/SETTINGS.md show.
Each config checks itself when built and raises a ``ConfigError`` whose message says what is
wrong in plain words and what to do instead.

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


def _setting(default: Any, label: str, info: str, label_zh: str, info_zh: str) -> Any:
    """A config field with its label and its one-line help, in English then in Chinese: the
    page's Advanced settings, the CLI's ``--help`` and docs/SETTINGS.md all read them here."""
    return field(default=default, metadata={"en": (label, info), "zh-CN": (label_zh, info_zh)})


@dataclass
class ModelConfig:
    """The shape and the architecture variants of a decoder-only Transformer."""

    # 65 distinct characters in Tiny Shakespeare
    vocab_size: int = _setting(
        65, "vocabulary size (vocab_size)",
        "How many different tokens the model knows; set by the tokenizer.",
        "词表大小 (vocab_size)", "模型认识多少种不同的词元；由分词器决定。")
    block_size: int = _setting(
        64, "context length (block_size)",
        "Context length: how many tokens the model reads at once.",
        "上下文长度 (block_size)", "上下文长度：模型一次读入多少个词元。")
    n_layer: int = _setting(
        4, "layers (n_layer)", "Number of Transformer blocks stacked on top of each other.",
        "层数 (n_layer)", "堆叠在一起的 Transformer 块的数量。")
    n_head: int = _setting(
        4, "attention heads (n_head)",
        "Attention heads per block; n_embd must divide evenly among them.",
        "注意力头数 (n_head)", "每个块的注意力头数；n_embd 必须能被它整除。")
    n_embd: int = _setting(
        128, "width (n_embd)", "Width: the length of each token's vector inside the model.",
        "宽度 (n_embd)", "宽度：模型内部每个词元向量的长度。")
    # 0 for small data and short runs; 0.1-0.2 once a model overfits
    dropout: float = _setting(
        0.0, "dropout",
        "While training, randomly switch off this share of the model's numbers so it cannot lean "
        "on any one of them; helps against overfitting.",
        "丢弃率 (dropout)",
        "训练时随机关掉这一比例的数值，让模型不能只依赖其中某一个；有助于防止过拟合。")
    # nanoGPT: no biases is slightly better and faster
    bias: bool = _setting(
        False, "bias", "Give linear layers and norms a bias term (nanoGPT leaves it out).",
        "偏置 (bias)", "给线性层和归一化层加上偏置项（nanoGPT 不用）。")
    pos: str = _setting(
        "learned", "position encoding (pos)",
        "How the model knows token order: learned table, fixed sines, RoPE rotation, or none.",
        "位置编码 (pos)", "模型如何知道词元的顺序：可学习的表、固定的正弦、RoPE 旋转，或者不用。")
    norm: str = _setting(
        "layernorm", "normalisation (norm)",
        "LayerNorm (GPT-2) or RMSNorm (Llama): keeps the numbers in a healthy range.",
        "归一化 (norm)", "LayerNorm（GPT-2）或 RMSNorm（Llama）：让数值保持在合适的范围内。")
    norm_placement: str = _setting(
        "pre", "norm placement (norm_placement)",
        "Normalise before each sub-layer (pre, modern) or after it (post, 2017 paper).",
        "归一化位置 (norm_placement)",
        "在每个子层之前归一化（pre，现代做法）或之后（post，2017 年论文）。")
    activation: str = _setting(
        "gelu", "activation",
        "The feed-forward non-linearity: GELU (GPT-2), ReLU (2017), ReLU² (relu2: ReLU squared, "
        "the modded-nanogpt speedrun), SwiGLU (Llama).",
        "激活函数 (activation)",
        "前馈层的非线性函数：GELU（GPT-2）、ReLU（2017）、ReLU²（relu2：ReLU 的平方，"
        "modded-nanogpt 速通所用）、SwiGLU（Llama）。")
    # feed-forward width = mlp_ratio * n_embd (2/3 of it for swiglu)
    mlp_ratio: float = _setting(
        4.0, "feed-forward ratio (mlp_ratio)",
        "The feed-forward layer is this many times wider than n_embd.",
        "前馈层倍数 (mlp_ratio)", "前馈层的宽度是 n_embd 的这么多倍。")
    tie_weights: bool = _setting(
        True, "tie input and output embeddings (tie_weights)",
        "The output layer reuses the input embedding matrix (fewer parameters).",
        "输入输出嵌入共享 (tie_weights)", "输出层复用输入的嵌入矩阵（参数更少）。")
    scale_embedding: bool = _setting(
        False, "scale embeddings (scale_embedding)",
        "Multiply token embeddings by sqrt(n_embd), as the 2017 paper did.",
        "缩放嵌入 (scale_embedding)", "像 2017 年论文那样，把词元嵌入乘以 sqrt(n_embd)。")
    # RMSNorm with a learned gain, before RoPE; per head as Qwen3 (OLMo-2 norms all heads at once)
    qk_norm: bool = _setting(
        False, "normalise queries and keys (qk_norm)",
        "RMS-normalise each head's queries and keys before attention (Qwen3); keeps attention "
        "scores from growing with the weights.",
        "归一化查询和键 (qk_norm)",
        "在注意力之前，对每个头的查询和键做 RMS 归一化（Qwen3）；让注意力分数不随权重变大而膨胀。")
    # the attention and feed-forward proj and the head; a tied head (the embedding) keeps its draw
    zero_init: bool = _setting(
        False, "zero-initialised outputs (zero_init)",
        "Start every block's output projection at zero, and the output layer too when it is not "
        "tied (modded-nanogpt): each block starts by passing its input through.",
        "输出层零初始化 (zero_init)",
        "把每个块的输出投影初始化为零，输出层未共享时也置零（modded-nanogpt）："
        "每个块一开始只是把输入原样传下去。")
    # a character model gets the letter before for free, not by spending a head on it
    token_shift: bool = _setting(
        False, "look at the previous token (token_shift)",
        "Before attention and the MLP, half of each token's numbers are replaced by the token "
        "before's (RWKV's token shift). No new weights, cheap, and a character model learns "
        "faster with it.",
        "看一眼前一个词元 (token_shift)",
        "在注意力和 MLP 之前，把每个词元的一半数字换成前一个词元的（RWKV 的 token shift）。"
        "不增加权重，代价很小，字符级模型学得更快。")
    # one row per pair up to BIGRAM_MAX_ROWS rows (65 characters' 65 x 65 fit), hashed beyond
    bigram: bool = _setting(
        False, "embed each pair of tokens (bigram)",
        "Add a learned vector for each (previous token, token) pair to the token's embedding "
        "(modded-nanogpt). Which two letters come in a row is looked up, not learned by "
        "attention first.",
        "嵌入相邻两个词元 (bigram)",
        "为每一对（前一个词元，当前词元）学一个向量，加到词元嵌入上（modded-nanogpt）。"
        "哪两个字母相连直接查表得到，不必先靠注意力学会。")
    value_embed: bool = _setting(
        False, "value embeddings (value_embed)",
        "Each layer gets its own token embedding, added to its attention values "
        "(modded-nanogpt): heads can pass on which token sits where.",
        "值嵌入 (value_embed)",
        "每一层有自己的词元嵌入，加到该层注意力的值（value）上（modded-nanogpt）："
        "注意力头能直接传递每个位置是哪个词元。")
    logit_softcap: float = _setting(
        0.0, "logit soft-cap (logit_softcap)",
        "Squash the output scores into ±cap with cap·tanh(x/cap), as Gemma 2 does, so a "
        "confident model cannot push them without bound. 0: off.",
        "输出分数软上限 (logit_softcap)",
        "用 cap·tanh(x/cap) 把输出分数压到 ±cap 以内（同 Gemma 2），"
        "让过于自信的模型无法把分数无限推高。0 表示关闭。")
    rope_base: float = _setting(
        10000.0, "RoPE base (rope_base)",
        "RoPE's base frequency; larger values suit longer contexts.",
        "RoPE 基数 (rope_base)", "RoPE 的基础频率；越大越适合更长的上下文。")
    norm_eps: float = _setting(
        1e-5, "norm epsilon (norm_eps)",
        "A tiny number added inside the norm so it never divides by zero.",
        "归一化 epsilon (norm_eps)", "加在归一化里的一个极小的数，避免除以零。")

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

    max_steps: int = _setting(
        2000, "training steps (max_steps)",
        "How many optimiser steps to train for (the run's length).",
        "训练步数 (max_steps)", "训练多少个优化步（运行的长度）。")
    # the global batch, whatever the process count
    batch_size: int = _setting(
        12, "batch size (batch_size)",
        "Sequences per step; bigger is smoother but slower per step.",
        "批大小 (batch_size)", "每步的序列数；越大越平稳，但每步越慢。")
    # micro-steps per optimiser step; batch_size is split among them
    grad_accum: int = _setting(
        1, "gradient accumulation (grad_accum)",
        "Split each batch into this many smaller passes to save memory.",
        "梯度累积 (grad_accum)", "把每个批次分成这么多个小批次依次计算，以节省内存。")
    lr: float = _setting(
        1e-3, "learning rate (lr)", "Peak learning rate: how big a step the optimiser takes.",
        "学习率 (lr)", "峰值学习率：优化器每一步迈多大。")
    # about lr / 10, per Chinchilla
    min_lr: float = _setting(
        1e-4, "final learning rate (min_lr)",
        "The learning rate decays to this by the end (cosine schedule).",
        "最终学习率 (min_lr)", "学习率在结束时衰减到这个值（余弦调度）。")
    warmup_steps: int = _setting(
        100, "warmup steps (warmup_steps)",
        "Steps over which the learning rate ramps up from zero (warmup).",
        "预热步数 (warmup_steps)", "学习率从零逐渐升高所用的步数（预热）。")
    lr_decay_steps: int = _setting(
        0, "decay steps (lr_decay_steps)",
        "Steps over which it decays; 0 means over the whole run.",
        "衰减步数 (lr_decay_steps)", "学习率衰减所用的步数；0 表示整个运行。")
    # applied to matrices only, never to norms, biases or embeddings' gains
    weight_decay: float = _setting(
        0.1, "weight decay (weight_decay)",
        "Pulls the weights gently towards zero so they stay small (a regulariser).",
        "权重衰减 (weight_decay)", "把权重轻轻拉向零，让它们保持较小（一种正则化）。")
    beta1: float = _setting(
        0.9, "beta1",
        "How much each step keeps going the way the last ones went (AdamW's momentum).",
        "beta1", "每一步在多大程度上延续前几步的方向（AdamW 的动量）。")
    # 0.99 instead of 0.999: each step sees few tokens
    beta2: float = _setting(
        0.99, "beta2",
        "How long the optimiser remembers how large the gradients were (AdamW's second-moment "
        "decay).",
        "beta2", "优化器记住梯度有多大的时间有多长（AdamW 的二阶矩衰减）。")
    grad_clip: float = _setting(
        1.0, "gradient clipping (grad_clip)",
        "Caps how big one step can be, so one bad batch cannot blow the model up (the gradient "
        "norm's limit); 0 turns it off.",
        "梯度裁剪 (grad_clip)",
        "限制单步能有多大，避免一个坏批次把模型搞崩（梯度范数的上限）；0 表示关闭。")
    optimizer: str = _setting(
        "adamw", "optimiser (optimizer)",
        "adamw: AdamW for every weight (nanoGPT). muon: Muon for the blocks' weight matrices, "
        "AdamW for embeddings, head and norms; often learns faster per step.",
        "优化器 (optimizer)",
        "adamw：所有权重都用 AdamW（nanoGPT）。muon：块里的权重矩阵用 Muon，嵌入、"
        "输出层和归一化用 AdamW；每步往往学得更快。")
    # Muon steps by an orthogonalised direction of fixed size: another unit than AdamW's lr
    muon_lr: float = _setting(
        0.02, "Muon learning rate (muon_lr)",
        "Muon's peak learning rate, for the blocks' matrices; about 10x AdamW's. Warmup and "
        "decay scale it like lr.",
        "Muon 学习率 (muon_lr)",
        "Muon 的峰值学习率，用于块里的矩阵；约为 AdamW 的 10 倍。预热和衰减像 lr 一样缩放它。")
    # Nesterov momentum; AdamW keeps beta1 and beta2
    muon_momentum: float = _setting(
        0.95, "Muon momentum (muon_momentum)",
        "How much of the past gradients Muon's steps follow.",
        "Muon 动量 (muon_momentum)", "Muon 的每一步在多大程度上沿用过去的梯度。")
    # Amsel et al., 2025: per iteration the best coefficients for the singular values left
    polar_express: bool = _setting(
        False, "Polar Express for Muon (polar_express)",
        "Muon's five Newton-Schulz iterations each with their own coefficients (Polar Express, "
        "2025) instead of one set for all: a step closer to orthogonal at the same cost.",
        "Muon 使用 Polar Express (polar_express)",
        "Muon 的五次 Newton-Schulz 迭代各用自己的系数（Polar Express，2025），"
        "而不是五次都用同一组：代价相同，结果更接近正交。")
    label_smoothing: float = _setting(
        0.0, "label smoothing (label_smoothing)",
        "Makes the model a little less sure of itself: this share of each right answer is spread "
        "over all tokens.",
        "标签平滑 (label_smoothing)",
        "让模型不要太自信：把每个正确答案的这一部分概率平均分给所有词元。")
    eval_interval: int = _setting(
        250, "evaluation interval (eval_interval)",
        "Measure train and validation loss every this many steps.",
        "评估间隔 (eval_interval)", "每隔这么多步测量一次训练损失和验证损失。")
    eval_iters: int = _setting(
        20, "evaluation batches (eval_iters)",
        "Batches averaged per measurement; more is steadier but slower.",
        "评估批次数 (eval_iters)", "每次测量平均多少个批次；越多越稳定，但越慢。")
    first_eval_iters: int = _setting(
        0, "batches at step 0 (first_eval_iters)",
        "Batches for the evaluation before training only; 0: as many as every other. An "
        "untrained model's loss is the same on any batch, so a few save time.",
        "第 0 步评估的批次数 (first_eval_iters)",
        "只用于训练开始前那次评估的批次数；0 表示与其他评估相同。"
        "未训练的模型在任何批次上的损失都差不多，少用几批可以省时间。")
    sample_tokens: int = _setting(
        0, "sample length (sample_tokens)",
        "Tokens of sample text written at each evaluation (0: none).",
        "样本长度 (sample_tokens)", "每次评估时写出的样本文本的词元数（0：不写）。")
    # the text's end is held out, as in nanoGPT
    val_fraction: float = _setting(
        0.1, "validation share (val_fraction)",
        "Share of the text held out (its end) to measure validation loss.",
        "验证集比例 (val_fraction)", "留出文本的这一比例（文本末尾）用来测量验证损失。")
    seed: int = _setting(
        1337, "seed", "Random seed: the same seed and settings repeat the same run.",
        "随机种子 (seed)", "随机种子：相同的种子和设置会重复相同的运行。")
    # nanogpt: initial weights, first batch, then each evaluation after the next step's batch
    rng_stream: str = _setting(
        "separate", "random stream (rng_stream)",
        "The random order of the batches. separate: the same batches whatever the model (fair "
        "comparisons); nanogpt: nanoGPT's order, to reproduce its numbers.",
        "随机数流 (rng_stream)",
        "批次的随机顺序。separate：无论模型如何都用相同的批次（对比公平）；nanogpt：按 nanoGPT "
        "的顺序，复现它的数字。")
    # auto picks CUDA, then Apple MPS, then CPU
    device: str = _setting(
        "auto", "device", "Where to train: auto picks a GPU when there is one, else the CPU.",
        "设备 (device)", "在哪里训练：auto 有 GPU 时用 GPU，否则用 CPU。")
    dtype: str = _setting(
        "auto", "number format (dtype)",
        "How many digits each number keeps: auto uses the faster 16-bit bfloat16 where the "
        "hardware is quick at it, else 32-bit float32.",
        "数值格式 (dtype)",
        "每个数保留多少位：auto 在硬件擅长时用更快的 16 位 bfloat16，否则用 32 位 float32。")
    compile: bool = _setting(
        False, "compile",
        "Compile the model (torch.compile): faster steps after a slow start of ~30 s or more.",
        "编译 (compile)", "编译模型（torch.compile）：经过约 30 秒或更久的慢启动后每步更快。")
    threads: int = _setting(
        0, "CPU threads (threads)", "CPU threads for PyTorch; 0 lets PyTorch decide.",
        "CPU 线程数 (threads)", "PyTorch 使用的 CPU 线程数；0 表示由 PyTorch 决定。")

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


# every setting with its texts (each ModelConfig and TrainConfig field), in the order of the code;
# playground.settings.SETTINGS is the page's widgets, the vocabulary size left to the tokenizer
SETTING_FIELDS: dict[str, dataclasses.Field] = {
    f.name: f for cls in (ModelConfig, TrainConfig) for f in dataclasses.fields(cls)}


def setting_text(name: str, lang: str = "en") -> tuple[str, str]:
    """A setting's label and its one-line help in ``lang`` ("en" or "zh-CN").

    >>> setting_text("n_layer")
    ('layers (n_layer)', 'Number of Transformer blocks stacked on top of each other.')
    >>> setting_text("n_layer", "zh-CN")[0]
    '层数 (n_layer)'
    """
    return SETTING_FIELDS[name].metadata[lang]


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
