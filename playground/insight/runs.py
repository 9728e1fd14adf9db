"""Compare runs: every run of a session kept, the settings that differ, one-switch ablations.

A ``RunRecord`` holds what a finished (or stopped) run was: its settings, tokenizer, loss
history and final figures. ``settings_diff`` lists only the settings that differ between the
selected runs, so an overlay of their validation curves reads as "this setting's effect".
``one_change`` builds the configs of a new run equal to an old one but for one setting: same
seed, same data, so the difference between the curves is that setting alone.

Runs with different tokenizers do not compare per token (a BPE token carries several
characters); ``compare_unit`` then picks bits per character, which the evaluations record.

>>> from playground.config import ModelConfig, TrainConfig
>>> a = RunRecord.create("run 1", ModelConfig(pos="rope"), TrainConfig(), "char", history=[])
>>> b = RunRecord.create("run 2", ModelConfig(pos="none"), TrainConfig(lr=3e-3), "char", history=[])
>>> settings_diff([a, b])
[('pos', ['rope', 'none']), ('lr', [0.001, 0.003])]
>>> model_cfg, train_cfg = one_change(a, "pos", "sinusoidal")
>>> model_cfg.pos, train_cfg.seed == a.train_config["seed"]
('sinusoidal', True)
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.i18n import msg
from playground.insight.baselines import curve
from playground.train import EndRecord, EvalRecord, Record

MODEL_FIELDS = tuple(f.name for f in dataclasses.fields(ModelConfig))
TRAIN_FIELDS = tuple(f.name for f in dataclasses.fields(TrainConfig))
# each setting's type, from the dataclass annotations ("int", "float", "bool", "str")
FIELD_TYPES = {f.name: str(f.type) for c in (ModelConfig, TrainConfig) for f in dataclasses.fields(c)}
MAX_RUNS = 20  # runs a session keeps; the oldest go first (each holds only numbers, ~100 KB)
# The switches the page offers for "same run, one change" first (any field works).
ABLATIONS = ("pos", "norm_placement", "norm", "activation", "dropout", "bias", "tie_weights",
             "scale_embedding", "qk_norm", "zero_init", "token_shift", "bigram", "value_embed",
             "logit_softcap", "n_layer", "n_head", "n_embd", "block_size", "lr", "optimizer",
             "muon_lr", "polar_express", "seed")
_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True,
               "false": False, "no": False, "off": False, "0": False}


@dataclass
class RunRecord:
    """One run: settings as plain dicts (``ModelConfig.to_dict()``), history as its records."""

    name: str
    model_config: dict[str, Any]
    train_config: dict[str, Any]
    tokenizer_kind: str  # "char" | "bpe"
    history: list[Record]
    corpus_name: str = ""
    corpus_source: str = ""  # Corpus.source: bundled | hub | upload | paste
    n_params: int = 0

    @classmethod
    def create(cls, name: str, model_config: ModelConfig, train_config: TrainConfig,
               tokenizer_kind: str, history: Iterable[Record], *, corpus_name: str = "", corpus_source: str = "", n_params: int = 0) -> "RunRecord":
        """A record from typed configs; the history is copied (its records are frozen), so the
        run can go on growing."""
        return cls(name, model_config.to_dict(), train_config.to_dict(), tokenizer_kind,
                   list(history), corpus_name, corpus_source, n_params)

    @property
    def vocab_size(self) -> int:
        return self.model_config["vocab_size"]

    def settings(self) -> dict[str, Any]:
        """Every setting of the run in one flat dict: data first, then model, then training."""
        return {"corpus": self.corpus_name, "tokenizer": self.tokenizer_kind,
                **self.model_config, **self.train_config}

    def _last_eval(self) -> EvalRecord | None:
        return next((r for r in reversed(self.history) if isinstance(r, EvalRecord)), None)

    @property
    def final_val_loss(self) -> float | None:
        last = self._last_eval()
        return last.val_loss if last else None

    @property
    def final_val_bpc(self) -> float | None:
        last = self._last_eval()
        return last.val_bpc if last else None

    @property
    def final_accuracy(self) -> float | None:
        """A toy task's held-out accuracy at the last evaluation (None for other text)."""
        last = self._last_eval()
        return last.accuracy if last else None

    @property
    def steps(self) -> int:
        return max((r.step for r in self.history), default=0)

    @property
    def seconds(self) -> float:
        return max((r.elapsed for r in self.history if not isinstance(r, EndRecord)), default=0.0)

    def summary(self) -> dict[str, Any]:
        """The final figures, for a table row."""
        return {"name": self.name, "val_loss": self.final_val_loss, "val_bpc": self.final_val_bpc,
                "accuracy": self.final_accuracy, "steps": self.steps, "seconds": self.seconds, "params": self.n_params}


@dataclass
class RunLog:
    """The runs of one session, oldest first, named "run 1", "run 2", ... unless named.

    >>> log = RunLog()
    >>> log.add(RunRecord.create("", ModelConfig(), TrainConfig(), "char", [])).name
    'run 1'
    >>> log.names()
    ['run 1']
    """

    runs: list[RunRecord] = field(default_factory=list)
    counter: int = 0  # runs ever added, so names stay unique after old ones are dropped
    max_runs: int = MAX_RUNS

    def add(self, run: RunRecord) -> RunRecord:
        self.counter += 1
        if not run.name or run.name in self.names():
            base = run.name or "run"
            run.name = f"{base} {self.counter}"
        self.runs.append(run)
        del self.runs[: max(0, len(self.runs) - self.max_runs)]
        return run

    def names(self) -> list[str]:
        return [r.name for r in self.runs]

    def get(self, names: Sequence[str]) -> list[RunRecord]:
        """The runs with these names, in the order given; an unknown name is an error."""
        by_name = {r.name: r for r in self.runs}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise ConfigError(msg("No run is called {names}; the runs of this session are {runs}.",
                                  names=", ".join(map(repr, missing)),
                                  runs=", ".join(self.names()) or msg("none yet")))
        return [by_name[n] for n in names]


def settings_diff(runs: Sequence[RunRecord]) -> list[tuple[str, list[Any]]]:
    """(setting, [value in each run]) for every setting whose values are not all equal."""
    all_settings = [r.settings() for r in runs]
    keys: list[str] = []
    for s in all_settings:
        keys += [k for k in s if k not in keys]
    rows = []
    for key in keys:
        values = [s.get(key) for s in all_settings]
        if any(not _same(v, values[0]) for v in values[1:]):
            rows.append((key, values))
    return rows


def _same(a: Any, b: Any) -> bool:
    """Equal settings; True and 1 are not the same setting, NaN equals NaN."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def compare_unit(runs: Sequence[RunRecord]) -> str:
    """"loss" when all runs share one tokenizer, else "bpc" (bits per character).

    >>> a = RunRecord.create("a", ModelConfig(vocab_size=65), TrainConfig(), "char", [])
    >>> b = RunRecord.create("b", ModelConfig(vocab_size=512), TrainConfig(), "bpe", [])
    >>> compare_unit([a, a]), compare_unit([a, b])
    ('loss', 'bpc')
    """
    tokenizers = {(r.tokenizer_kind, r.vocab_size, r.corpus_name) for r in runs}
    return "loss" if len(tokenizers) <= 1 else "bpc"


def val_curves(runs: Sequence[RunRecord], unit: str | None = None,
               axis: str = "step") -> list[tuple[str, list[float], list[float]]]:
    """(run name, xs, validation values) per run, in ``unit`` ("loss" or "bpc"; default:
    ``compare_unit``) against ``axis`` ("step", "tokens" or "elapsed")."""
    unit = unit or compare_unit(runs)
    if unit not in ("loss", "bpc"):
        raise ValueError(f"unit must be 'loss' or 'bpc', got {unit!r}.")
    field = "val_bpc" if unit == "bpc" else "val_loss"
    return [(run.name, *curve(run.history, field, axis)) for run in runs]


def accuracy_curves(runs: Sequence[RunRecord], axis: str = "step"):
    """(run name, xs, held-out accuracies) of the runs on a toy task (``playground.tasks``)."""
    return [(run.name, *curve(run.history, "accuracy", axis)) for run in runs
            if run.final_accuracy is not None]


def one_change(run: RunRecord, setting: str, value: Any) -> tuple[ModelConfig, TrainConfig]:
    """The configs of ``run`` with ``setting`` set to ``value``: same seed, same everything else.

    ``value`` may be the page's text ("rope", "0.1", "true"); it is turned into the setting's
    type and checked by the configs. Raises ``ConfigError`` for an unknown setting, one that
    cannot change alone (vocab_size follows the tokenizer), a value that cannot be used, or
    the value the run already has.
    """
    if setting == "vocab_size":
        raise ConfigError(msg("vocab_size follows the tokenizer: train another tokenizer to "
                              "change it."))
    if setting in MODEL_FIELDS:
        cls, current = ModelConfig, run.model_config
    elif setting in TRAIN_FIELDS:
        cls, current = TrainConfig, run.train_config
    else:
        raise ConfigError(msg("There is no setting called {setting}; pick one of {choices} (or "
                              "any model or training setting).", setting=repr(setting),
                              choices=", ".join(ABLATIONS)))
    new_value = coerce(setting, value)
    if _same(new_value, current[setting]):
        raise ConfigError(msg("This run already has {setting}={value}; pick another value to see "
                              "its effect.", setting=setting, value=repr(current[setting])))
    model_dict, train_dict = dict(run.model_config), dict(run.train_config)
    (model_dict if cls is ModelConfig else train_dict)[setting] = new_value
    return ModelConfig.from_dict(model_dict), TrainConfig.from_dict(train_dict)


def coerce(setting: str, value: Any) -> Any:
    """``value`` as the type of ``setting`` (from the config dataclasses), from text or numbers.

    >>> coerce("dropout", "0.1"), coerce("bias", "true"), coerce("n_layer", 6.0), coerce("pos", " rope")
    (0.1, True, 6, 'rope')
    """
    kind = FIELD_TYPES[setting]
    if kind == "bool":
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in _BOOL_WORDS:
            return _BOOL_WORDS[word]
        raise ConfigError(msg("{setting} is on or off (true or false), got {value}.",
                              setting=setting, value=repr(value)))
    if kind in ("int", "float"):
        try:
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise ValueError
            number = float(value) if isinstance(value, str) else value
            if not math.isfinite(number):
                raise ValueError
        except (TypeError, ValueError):
            key = ("{setting} must be a whole number, got {value}."
                   if kind == "int" else
                   "{setting} must be a number, got {value}.")
            raise ConfigError(msg(key, setting=setting, value=repr(value))) from None
        if kind == "float":
            return float(number)
        if number != int(number):
            raise ConfigError(msg("{setting} must be a whole number, got {value}.",
                                  setting=setting, value=repr(value)))
        return int(number)
    return value.strip() if isinstance(value, str) else value


def alternatives(run: RunRecord, setting: str) -> list[Any]:
    """The other values a choice or on/off setting can take (for the page's value list).

    >>> run = RunRecord.create("a", ModelConfig(pos="rope"), TrainConfig(), "char", [])
    >>> alternatives(run, "pos"), alternatives(run, "bias")
    (['learned', 'sinusoidal', 'none'], [True])
    """
    from playground import config as cfg

    current = run.settings().get(setting)
    if setting in cfg.CHOICES:  # every setting that takes one of a few words
        return [c for c in cfg.CHOICES[setting] if c != current]
    if isinstance(current, bool):
        return [not current]
    return []
