"""Shareable settings: the page's settings as a short, readable link, and back.

A link carries the corpus choice, the tokenizer, every model and training setting and the
sampling settings, as a plain query string that a person can read and edit (as the
TensorFlow Playground does)::

    ?v=1&n_layer=2&pos=rope&lr=0.003&prompt=JULIET%3A

Only values that differ from the defaults of the link's format version are written, so a
link stays short; ``v`` is that version, and the defaults of each version are frozen here,
so an old link keeps its meaning when the app's defaults change. Uploaded or pasted text is
never part of a link (it may be private and is often megabytes); a link says only that the
run used the reader's own text.

Reading a link is defensive: it is size-capped, every value is parsed as the type of its
setting (nothing is ever evaluated), checked by ``ModelConfig`` and ``TrainConfig`` like any
setting from the page, and unknown keys are ignored and listed.

>>> query = encode_settings({"n_layer": 2, "pos": "rope", "prompt": "JULIET:"})
>>> query
'v=1&n_layer=2&pos=rope&prompt=JULIET%3A'
>>> shared = decode_settings("https://example.org/?" + query + "&colour=blue")
>>> shared.settings["n_layer"], shared.settings["n_head"], shared.ignored
(2, 4, ['colour'])
>>> decode_settings("?v=1&n_layer=lots")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
playground.export.links.ShareError: The link's setting n_layer must be a whole number, got 'lots'.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from playground.config import SAMPLE_RANGES, ConfigError, ModelConfig, TrainConfig
from playground.i18n import Message, msg
from playground.tokenizer import KINDS as TOKENIZER_KINDS

VERSION = 1
MAX_QUERY_CHARS = 8_000  # browsers and servers accept ~8 KB of URL; a longer link is not ours
MAX_FIELDS = 100  # about 60 settings exist
MAX_PROMPT_CHARS = 2_000
CORPUS_CHOICES = ("bundled", "hub", "upload", "paste")  # Corpus.source
OWN_TEXT = ("upload", "paste")  # corpus choices whose text a link cannot carry
TOKENIZER_CHOICES = TOKENIZER_KINDS

# The defaults of format version 1, frozen: a v=1 link always means these plus its values.
# (ModelConfig's vocab_size is not shared: it follows the tokenizer.)
DEFAULTS_V1: dict[str, Any] = {
    "corpus": "bundled", "tokenizer": "char", "vocab_size": 512,
    "block_size": 64, "n_layer": 4, "n_head": 4, "n_embd": 128, "dropout": 0.0, "bias": False,
    "pos": "learned", "norm": "layernorm", "norm_placement": "pre", "activation": "gelu",
    "mlp_ratio": 4.0, "tie_weights": True, "scale_embedding": False, "rope_base": 10000.0,
    "norm_eps": 1e-05, "qk_norm": False, "zero_init": False, "token_shift": False,  # added later
    "bigram": False, "value_embed": False, "logit_softcap": 0.0, "polar_express": False,  # later
    "first_eval_iters": 0,  # added later
    "max_steps": 2000, "batch_size": 12, "grad_accum": 1, "lr": 0.001, "min_lr": 0.0001,
    "warmup_steps": 100, "lr_decay_steps": 0, "weight_decay": 0.1, "beta1": 0.9, "beta2": 0.99,
    "grad_clip": 1.0, "optimizer": "adamw", "muon_lr": 0.02, "muon_momentum": 0.95,  # added later
    "label_smoothing": 0.0, "eval_interval": 250, "eval_iters": 20,
    "sample_tokens": 0, "val_fraction": 0.1, "seed": 1337, "rng_stream": "separate", "device": "auto", "dtype": "auto",
    "compile": False, "threads": 0,
    "prompt": "ROMEO:", "max_new_tokens": 300, "temperature": 0.8, "top_k": 0, "top_p": 1.0,
    "sample_seed": 0,
}
DEFAULTS = {1: DEFAULTS_V1}

MODEL_KEYS = tuple(f.name for f in dataclasses.fields(ModelConfig) if f.name != "vocab_size")
TRAIN_KEYS = tuple(f.name for f in dataclasses.fields(TrainConfig))
SAMPLING_KEYS = ("prompt", "max_new_tokens", "temperature", "top_k", "top_p", "sample_seed")
DATA_KEYS = ("corpus", "tokenizer", "vocab_size")
KEYS = DATA_KEYS + MODEL_KEYS + TRAIN_KEYS + SAMPLING_KEYS  # the order links are written in


class ShareError(ValueError):
    """A link whose settings cannot be used, with a message meant for a person (a
    ``Message``, which ``i18n.error_text`` says again in the page's language)."""


@dataclass(frozen=True)
class SharedSettings:
    """What a link restores: every setting (defaults filled in), and what it left out."""

    settings: dict[str, Any]
    ignored: list[str] = field(default_factory=list)  # unknown keys in the link
    needs_own_text: bool = False  # the run used uploaded or pasted text, not in the link

    @property
    def train_config(self) -> TrainConfig:
        return TrainConfig(**{k: self.settings[k] for k in TRAIN_KEYS})

    def model_config(self, vocab_size: int) -> ModelConfig:
        """The model settings with the vocabulary size of the tokenizer the reader trains."""
        return ModelConfig(vocab_size=vocab_size, **{k: self.settings[k] for k in MODEL_KEYS})

    @property
    def sampling(self) -> dict[str, Any]:
        return {k: self.settings[k] for k in SAMPLING_KEYS}


def _kind(key: str) -> str:
    """The type of a setting: "bool", "int", "float" or "str"."""
    return type(DEFAULTS_V1[key]).__name__


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same float
    return str(value)


def _parse(key: str, text: str) -> Any:
    """A link's text as the type of setting ``key``; never evaluates anything."""
    kind = _kind(key)
    if kind == "str":
        return text
    if kind == "bool":
        words = {"1": True, "true": True, "0": False, "false": False}
        if text.strip().lower() not in words:
            raise ShareError(msg("The link's setting {setting} must be 1 or 0 (on or off), got "
                                 "{value}.", setting=key, value=repr(text[:40])))
        return words[text.strip().lower()]
    if kind == "int" and len(text) <= 40:
        try:  # int() first: a seed above 2**53 must not pass through a float
            return int(text)
        except ValueError:
            pass
    try:
        number = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        number = math.nan
    if kind == "int":  # "4.0" or "1e3", as a number widget may write them
        if not math.isfinite(number) or number != int(number) or abs(number) > 2**53:
            raise ShareError(msg("The link's setting {setting} must be a whole number, got "
                                 "{value}.", setting=key, value=repr(text[:40])))
        return int(number)
    if not math.isfinite(number):
        raise ShareError(msg("The link's setting {setting} must be a number, got {value}.",
                             setting=key, value=repr(text[:40])))
    return number


def _check(settings: dict[str, Any]) -> None:
    """Check every setting as the page would; raise ShareError with the reason."""
    if settings["corpus"] not in CORPUS_CHOICES:
        raise ShareError(msg("The link's corpus must be one of {choices}, got {value}.",
                             choices=", ".join(CORPUS_CHOICES),
                             value=repr(str(settings["corpus"])[:40])))
    if settings["tokenizer"] not in TOKENIZER_CHOICES:
        raise ShareError(msg("The link's tokenizer must be char or bpe, got {value}.",
                             value=repr(str(settings["tokenizer"])[:40])))
    if not 256 <= settings["vocab_size"] <= 16_384:
        raise ShareError(msg("The link's BPE vocab_size must be from 256 to 16,384, got {value}.",
                             value=f"{settings['vocab_size']:,}"))
    if len(settings["prompt"]) > MAX_PROMPT_CHARS:
        raise ShareError(msg("The link's prompt is longer than {max_chars} characters.",
                             max_chars=f"{MAX_PROMPT_CHARS:,}"))
    # the sampling settings' own ranges (the link calls the sampling seed sample_seed)
    ranges = {("sample_seed" if key == "seed" else key): r for key, r in SAMPLE_RANGES.items()}
    for key, (low, high) in ranges.items():
        if not low <= settings[key] <= high:
            raise ShareError(msg("The link's setting {setting} must be between {low} and {high}, "
                                 "got {value}.", setting=key, low=f"{low:g}", high=f"{high:g}",
                                 value=f"{settings[key]:g}"))
    try:
        SharedSettings(settings).train_config  # noqa: B018 (building the config validates it)
        SharedSettings(settings).model_config(vocab_size=256)
    except (ConfigError, TypeError) as exc:
        said = exc.args[0] if len(exc.args) == 1 else None  # a ConfigError's Message stays one
        reason = said if isinstance(said, Message) else str(exc)
        raise ShareError(msg("The link's settings cannot be used: {reason}",
                             reason=reason)) from None


def encode_settings(settings: Mapping[str, Any]) -> str:
    """The query string (without "?") for ``settings``: a dict of any of ``KEYS``.

    Settings left out take their defaults; values equal to the defaults are not written.
    Raises ``ShareError`` for an unknown key or a value the page could not use, so a link
    is never made of settings that fail when opened.
    """
    unknown = sorted(set(settings) - set(KEYS))
    if unknown:
        raise ShareError(msg("These are not settings a link can carry: {keys}.",
                             keys=", ".join(unknown)))
    full = {**DEFAULTS_V1, **{key: _normalise(key, value) for key, value in settings.items()}}
    _check(full)
    pairs = [("v", str(VERSION))] + [(k, _format(full[k])) for k in KEYS if full[k] != DEFAULTS_V1[k]]
    return urlencode(pairs)


def _normalise(key: str, value: Any) -> Any:
    """A page value as its setting's type, exactly as a link would read it back (a number
    widget's 4.0 for n_layer becomes 4)."""
    if _kind(key) == "str":
        if not isinstance(value, str):
            raise ShareError(msg("The setting {setting} must be text, got {value}.",
                                 setting=key, value=repr(value)))
        return value
    if isinstance(value, bool) and _kind(key) != "bool":
        raise ShareError(msg("The setting {setting} must be a number, got {value}.",
                             setting=key, value=repr(value)))
    return _parse(key, value if isinstance(value, str) else _format(value))


def share_url(base_url: str, settings: Mapping[str, Any]) -> str:
    """``base_url`` (the page's address) with the settings' query string.

    >>> share_url("https://example.org/app/?old=1", {"lr": 0.003})
    'https://example.org/app/?v=1&lr=0.003'
    """
    base = base_url.split("?", 1)[0].split("#", 1)[0]
    return f"{base}?{encode_settings(settings)}"


def decode_settings(query: str | Mapping[str, Any]) -> SharedSettings:
    """The settings a link restores, from the whole link, its query string, or a mapping
    (Gradio's ``request.query_params``). Raises ``ShareError`` saying what is wrong."""
    pairs = _pairs(query)
    values: dict[str, str] = {}
    for key, value in pairs:
        if key in values:
            raise ShareError(msg("The link gives the setting {setting} twice; keep one.",
                                 setting=key[:40]))
        values[key] = value
    version_text = values.pop("v", str(VERSION))
    if version_text not in {str(v) for v in DEFAULTS}:
        raise ShareError(msg("This link's format ({version}) is unknown here: it was made by "
                             "another version of the app. Open it there, or update this one.",
                             version=repr(version_text[:10])))
    settings = dict(DEFAULTS[int(version_text)])
    ignored = []
    for key, text in values.items():
        if key in settings:
            settings[key] = _parse(key, text)
        else:
            ignored.append(key[:40])
    _check(settings)
    return SharedSettings(settings, ignored, settings["corpus"] in OWN_TEXT)


def _pairs(query: str | Mapping[str, Any]) -> list[tuple[str, str]]:
    if isinstance(query, Mapping):
        if len(query) > MAX_FIELDS:
            raise ShareError(msg("The link holds more than {n} settings; it is not a link to "
                                 "these settings.", n=MAX_FIELDS))
        pairs = [(str(k), str(v)) for k, v in query.items()]
        if sum(len(k) + len(v) for k, v in pairs) > MAX_QUERY_CHARS:
            raise ShareError(msg("The link is longer than {n} characters; it is not a link to "
                                 "these settings.", n=f"{MAX_QUERY_CHARS:,}"))
        return pairs
    if not isinstance(query, str):
        raise ShareError(msg("A link is text, got {type}.", type=type(query).__name__))
    if len(query) > MAX_QUERY_CHARS:
        raise ShareError(msg("The link is longer than {n} characters; it is not a link to these "
                             "settings.", n=f"{MAX_QUERY_CHARS:,}"))
    if "://" in query or query.startswith("/"):
        query = urlsplit(query).query
    query = query.lstrip("?").split("#", 1)[0]
    try:
        return parse_qsl(query, keep_blank_values=True, max_num_fields=MAX_FIELDS,
                         errors="strict")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ShareError(msg("The link cannot be read ({reason}).", reason=str(exc)[:80])) from None
