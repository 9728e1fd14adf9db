"""The training tab's settings as one typed object, and handlers that take them by name.

The page holds one widget per setting, in the order of ``SETTINGS`` (the fields of
``ModelConfig`` but its vocabulary size, then those of ``TrainConfig``). A handler receives
them as one ``PageSettings``; ``takes_settings`` gives it the signature Gradio and
``gradio_client`` see: one parameter per setting, named as the config field and defaulting
to the page's default preset, so an API user can write
``client.predict(n_layer=4, max_steps=500, api_name="/train_model")``.

>>> @takes_settings
... def steps(session, settings: PageSettings) -> int:
...     return settings.values["max_steps"]
>>> steps(None, max_steps=500), steps(None) == PRESETS[DEFAULT_PRESET].train.max_steps
(500, True)
>>> list(inspect.signature(steps).parameters)[:4]
['session', 'block_size', 'n_layer', 'n_head']
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from playground.config import DEFAULT_PRESET, PRESETS, ConfigError, ModelConfig, TrainConfig
from playground.i18n import msg

MODEL_SETTINGS = ("block_size", "n_layer", "n_head", "n_embd", "mlp_ratio", "pos", "norm",
                  "norm_placement", "activation", "dropout", "bias", "tie_weights",
                  "scale_embedding", "qk_norm", "zero_init", "token_shift", "bigram",
                  "value_embed", "logit_softcap", "rope_base", "norm_eps")
TRAIN_SETTINGS = tuple(f.name for f in dataclasses.fields(TrainConfig))
SETTINGS = MODEL_SETTINGS + TRAIN_SETTINGS


def _typed(name: str, value: Any, default: Any) -> Any:
    """A widget value with the type of the config field (Number widgets give floats)."""
    if value is None or value == "":
        raise ConfigError(msg("{name} is empty: type a value.", name=name))
    if isinstance(default, bool):
        return bool(value)
    if isinstance(default, int) and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(default, float) and isinstance(value, int):
        return float(value)
    return value


@dataclass(frozen=True)
class PageSettings:
    """Every training-tab setting by name, as the widgets hold them.

    Nothing is checked until ``configs`` builds the two typed configs, so the configs' own
    checks word every error (and the settings summary can show it instead of failing).

    >>> s = PageSettings.preset("tiny")
    >>> model, train = s.configs(vocab_size=65)
    >>> model.n_layer, train.max_steps, len(s.as_list()) == len(SETTINGS)
    (2, 600, True)
    """

    values: Mapping[str, Any]

    @classmethod
    def from_configs(cls, model: ModelConfig, train: TrainConfig) -> PageSettings:
        return cls({**{f: getattr(model, f) for f in MODEL_SETTINGS},
                    **{f: getattr(train, f) for f in TRAIN_SETTINGS}})

    @classmethod
    def preset(cls, name: str) -> PageSettings:
        if name not in PRESETS:
            raise ConfigError(msg("Unknown preset {name}: choose one of {choices}.",
                                  name=repr(name),
                                  choices=", ".join(PRESETS)))
        return cls.from_configs(PRESETS[name].model, PRESETS[name].train)

    @classmethod
    def from_list(cls, values: Sequence[Any]) -> PageSettings:
        """The settings from widget values in ``SETTINGS`` order."""
        if len(values) != len(SETTINGS):
            raise ConfigError(msg("Expected {expected} settings, got {got}.",
                                  expected=len(SETTINGS), got=len(values)))
        return cls(dict(zip(SETTINGS, values)))

    def as_list(self) -> list[Any]:
        """The values in ``SETTINGS`` order: what the widgets take."""
        return [self.values[name] for name in SETTINGS]

    def configs(self, vocab_size: int) -> tuple[ModelConfig, TrainConfig]:
        """(ModelConfig, TrainConfig) for a tokenizer of ``vocab_size``; errors are ConfigError."""
        defaults = {**ModelConfig().to_dict(), **TrainConfig().to_dict()}
        typed = {name: _typed(name, self.values[name], defaults[name]) for name in SETTINGS}
        model = ModelConfig(vocab_size=vocab_size, **{k: typed[k] for k in MODEL_SETTINGS})
        train = TrainConfig(**{k: typed[k] for k in TRAIN_SETTINGS})
        return model, train


DEFAULTS = PageSettings.preset(DEFAULT_PRESET)  # the widgets start here


def takes_settings(fn: Callable) -> Callable:
    """``fn(..., settings: PageSettings, ...)`` as a handler taking one parameter per setting.

    The parameter ``settings`` is replaced, in place, by the settings in ``SETTINGS`` order
    (each defaulting to ``DEFAULTS``); Gradio passes the widgets' values to them by position,
    Python callers by position or by name. Gradio names the API's parameters after this
    signature (``inspect.signature`` reads ``__signature__``). Generators stay generators,
    so Gradio still streams them.
    """
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    at = [p.name for p in params].index("settings")
    spread = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=value,
                                annotation=type(value))
              for name, value in DEFAULTS.values.items()]
    before, after = params[:at], params[at + 1:]
    outer = signature.replace(parameters=[*before, *spread, *after])

    def call(args: tuple, kwargs: dict) -> tuple[list, dict]:
        bound = outer.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        settings = PageSettings({name: given[name] for name in SETTINGS})
        return ([given[p.name] for p in before] + [settings],
                {p.name: given[p.name] for p in after})

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            positional, keywords = call(args, kwargs)
            yield from fn(*positional, **keywords)
    else:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            positional, keywords = call(args, kwargs)
            return fn(*positional, **keywords)
    wrapper.__signature__ = outer
    wrapper.__annotations__ = {p.name: p.annotation for p in outer.parameters.values()
                               if p.annotation is not inspect.Parameter.empty}
    if outer.return_annotation is not inspect.Signature.empty:
        wrapper.__annotations__["return"] = outer.return_annotation
    return wrapper
