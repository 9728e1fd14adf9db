"""The training coach: plain-language notes about a run, from its records, when they apply.

Each rule reads the history (the training records ``Trainer.history`` holds) and, when it
sees a problem, writes a ``Note``: what was seen, with the numbers, and what to try. The
rules follow the advice of karpathy/char-rnn's README ("Monitoring validation loss vs.
training loss") and of nanoGPT's issue tracker (NaN losses, deep models stuck near ln V,
overfitting on Tiny Shakespeare):

=================  ==========================================================================
``nan``            the loss became NaN or infinite (or the run ended with reason "nan")
``spike``          a step's loss jumped far above the median of the steps just before it
``grad_spike``     a step's gradient norm jumped far above the median of the steps before it
                   (``StepRecord.grad_norm``, measured before clipping): often the warning
                   that comes just before the loss jumps
``rising``         the training loss trends upwards after the warmup
``not_learning``   after a reasonable number of steps the loss is still near ln V
``unigram``        the loss sits at the corpus's unigram entropy and does not move
``overfitting``    the validation loss rose from its best while the training loss fell
``params``         far more parameters than training tokens
=================  ==========================================================================

A healthy run gets no warning but a ``progress_note`` instead: how far the validation loss
came, and what to try next (train longer while it still falls; a bigger model or Muon once it
levels off). ``loss_meaning`` says in one sentence what a loss means for the text the model
writes. The texts come from ``playground.i18n`` in the language asked for.

>>> from playground.train import StepRecord
>>> def steps(loss):
...     return [StepRecord(s, 64 * s, loss(s), 1e-3, 900.0, s / 10) for s in range(1, 301)]
>>> healthy = steps(lambda s: 4.2 - s / 200)
>>> coach_notes(healthy, vocab_size=65, n_params=10_000, train_tokens=1_000_000)
[]
>>> stuck = steps(lambda s: 4.15)
>>> [note.kind for note in coach_notes(stuck, vocab_size=65, n_params=10_000, train_tokens=1_000_000)]
['not_learning']
>>> loss_meaning(1.62, vocab_size=65, shakespeare_char=True)
'At 1.62 it has learned the shape of a play and most words come out right; the sentences do not make sense yet.'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from playground.config import ModelConfig, TrainConfig
from playground.i18n import Message, localize, msg
from playground.insight.health import clipped
from playground.train import EndRecord, EvalRecord, Record, StepRecord

WINDOW = 50  # steps behind the "recent median" of the spike and trend rules
SPIKE_RATIO = 1.5  # a spike is a loss this many times the recent median ...
SPIKE_MIN_JUMP = 0.5  # ... and at least this many nats above it
# A gradient norm this many times the recent median. A healthy run stays well under it: the
# tiny preset's 600 steps on Tiny Shakespeare peaked at 2.2x (measured). The norm moves most
# in the first steps, so the rule reads only steps after the warmup.
GRAD_SPIKE_RATIO = 4.0
RISE_MIN = 0.1  # nats the recent median must rise above its best before "rising" shows
NOT_LEARNING_MIN_STEPS = 200
NOT_LEARNING_SHARE = 0.9  # "near ln V": the loss is still above this share of ln V
UNIGRAM_MIN_STEPS = 500
UNIGRAM_TOLERANCE = 0.05  # within 5% of the unigram entropy ...
PLATEAU_CHANGE = 0.02  # ... and moved less than 2% over the last two windows
OVERFIT_MIN_RISE = 0.02  # nats of validation rise that are more than evaluation noise
PARAMS_PER_TOKEN = 10.0  # nanoGPT's baby GPT has ~10 per token on Tiny Shakespeare and overfits

# Notes come out in this order: the most urgent first.
KINDS = ("nan", "spike", "grad_spike", "rising", "not_learning", "unigram", "overfitting", "params")


@dataclass(frozen=True)
class Note:
    kind: str  # one of KINDS
    seen: str  # what happened, with the numbers
    advice: str  # what to try, one or more sentences
    values: dict[str, str] = field(default_factory=dict, compare=False)  # the numbers, formatted
    tips: tuple[str, ...] = ()  # the ids of the tips behind ``advice``

    def text(self) -> str:
        return f"{self.seen} {self.advice}"


def coach_notes(
    history: Iterable[Record],
    *,
    vocab_size: int,
    n_params: int,
    train_tokens: int,
    config: TrainConfig | None = None,
    model_config: ModelConfig | None = None,
    unigram: float | None = None,
    lang: str = "en",
) -> list[Note]:
    """The notes that apply to a run now, most urgent first; [] for a healthy run.

    ``history``: the run's records so far (``train.Record``). ``train_tokens``:
    the number of tokens in the training split. ``config`` and ``model_config`` tailor the
    advice (a missing one counts as the defaults); ``unigram`` is the unigram entropy of the
    training tokens, for the "unigram" rule (left out when None).
    """
    config = config or TrainConfig()
    model_config = model_config or ModelConfig(vocab_size=max(2, vocab_size))
    records = list(history)
    steps = [r for r in records if isinstance(r, StepRecord)]
    evals = [r for r in records if isinstance(r, EvalRecord)]
    ends = [r for r in records if isinstance(r, EndRecord)]
    found: list[tuple[str, Message, list[Tip]]] = []  # (kind, what was seen, what to try)

    nan = _nan(steps, evals, ends)
    if nan is not None:
        found.append(("nan", msg("The loss became {value} at step {step}: the numbers overflowed "
                                 "and the run stopped.",
                                 **nan), _stability_tips(config, include_dtype=True)))
    else:  # after a NaN, spikes, trends and plateaus say nothing more
        spike = _spike(steps)
        if spike is not None:
            found.append(("spike", msg("At step {step} the training loss jumped to {loss}, far "
                                       "above the {median} it had just been at.", **spike),
                          _stability_tips(config, include_dtype=False)))
        grad_spike = _grad_spike(steps, config)
        if grad_spike is not None:
            found.append(("grad_spike", _grad_spike_seen(grad_spike, config),
                          _stability_tips(config, include_dtype=False)))
        rising = _rising(steps, config)
        if rising is not None:
            found.append(("rising", msg("The training loss is going up: {recent} over the last "
                                        "{window} steps, against {earlier} before.", **rising),
                          _stability_tips(config, include_dtype=False)))
        stuck = _not_learning(steps, evals, vocab_size, config)
        plateau = None if stuck is not None or unigram is None else _unigram_plateau(
            steps, unigram, config)
        if stuck is not None:
            found.append(("not_learning", msg("After {steps} steps the loss is still {loss}, "
                                              "close to {uniform} (ln {vocab}), the loss of a "
                                              "uniform guess: the model has not learned yet.",
                                              **stuck),
                          _not_learning_tips(config, model_config)))
        elif plateau is not None:
            found.append(("unigram", msg("After {steps} steps the loss has stayed near {loss}, "
                                         "the unigram entropy of the corpus ({unigram}): the "
                                         "model knows how common each token is but does not use "
                                         "the context yet.", **plateau),
                          _not_learning_tips(config, model_config)))
    overfit = _overfitting(evals)
    if overfit is not None:
        found.append(("overfitting", msg("The validation loss rose from {val_best} (step "
                                         "{best_step}) to {val_last} while the training loss fell "
                                         "to {train_last}: the model is memorising the training "
                                         "text (overfitting).",
                                         **overfit),
                      _overfitting_tips(overfit, config, model_config)))
    if train_tokens > 0 and n_params > PARAMS_PER_TOKEN * train_tokens:
        values = {"params": f"{n_params:,}", "tokens": f"{train_tokens:,}",
                  "ratio": f"{n_params / train_tokens:,.1f}"}
        found.append(("params", msg("The model has {params} parameters for {tokens} training "
                                    "tokens, {ratio} parameters per token: it can memorise the "
                                    "text rather than learn from it.",
                                    **values), [("coach_tip_smaller", msg(
            "Use a smaller model (fewer layers or a smaller "
            "n_embd).")), ("coach_tip_more_data", msg(
            "Train on more text.")),
                                         *_dropout_tip(model_config)]))

    return [_note(kind, values, tips, lang) for kind, values, tips in found]


# --- healthy runs: progress, and what the loss means ---------------------------------------

STILL_FALLING = 0.01  # the last evaluation is this share below the one before: still learning


def _shakespeare_level(loss: float, value: str) -> Message:
    """What the samples of character-level Tiny Shakespeare runs read like at ``loss`` (from
    the presets' runs, and nanoGPT's README for 1.47)."""
    if loss < 1.5:
        return msg("At {loss} it is as good as nanoGPT's big GPU model (1.47): real words in "
                   "Shakespeare-like lines.", loss=value)
    if loss < 1.7:
        return msg("At {loss} it has learned the shape of a play and most words come out right; "
                   "the sentences do not make sense yet.", loss=value)
    if loss < 2.0:
        return msg("At {loss} it has learned the shape of a play: speakers' names, real words "
                   "and phrases that almost read.", loss=value)
    if loss < 2.5:
        return msg("At {loss} it writes short real words and the layout of a play (names, line "
                   "breaks), among many made-up words.", loss=value)
    if loss < 3.0:
        return msg("At {loss} it has learned spaces, line breaks and common letter pairs: "
                   "word-sized chunks, but hardly a real word.", loss=value)
    return msg("At {loss} it knows which letters are common and little else: its text is letter "
               "soup.", loss=value)


def loss_meaning(loss: float, *, vocab_size: int, unigram: float | None = None,
                 shakespeare_char: bool = False, lang: str = "en") -> str:
    """One plain sentence on what a (validation) loss means for the text the model writes.

    On character-level Tiny Shakespeare (``shakespeare_char``) the sentence says what its
    samples read like at that loss; elsewhere, where it stands between a random guess
    (ln ``vocab_size``) and knowing only the token frequencies (``unigram``).

    >>> loss_meaning(4.1, vocab_size=65)
    'At 4.10 it still guesses nearly at random: its text is noise.'
    >>> loss_meaning(2.9, vocab_size=512, unigram=5.8)
    'At 2.90 it uses the context: well below the 5.80 of knowing only how common each token is.'
    """
    if not _finite(loss):
        return localize(msg("The loss is not a number: the run broke down, so there is no text "
                            "to speak of."), lang)
    value = f"{loss:.2f}"  # two decimals are all a sentence needs
    if loss >= NOT_LEARNING_SHARE * math.log(max(2, vocab_size)):
        return localize(msg("At {loss} it still guesses nearly at random: its text is noise.",
                            loss=value), lang)
    if unigram is not None and loss >= unigram - UNIGRAM_TOLERANCE * unigram:
        return localize(msg("At {loss} it knows only how common each token is: the right "
                            "pieces in the wrong order.", loss=value), lang)
    if shakespeare_char:
        return localize(_shakespeare_level(loss, value), lang)
    if unigram is not None:
        return localize(msg("At {loss} it uses the context: well below the {unigram} of knowing "
                            "only how common each token is.", loss=value,
                            unigram=f"{unigram:.2f}"), lang)
    return localize(msg("At {loss} it has learned something beyond a random guess; lower is "
                        "better.", loss=value), lang)


def progress_note(history: Iterable[Record], *, config: TrainConfig | None = None,
                  lang: str = "en") -> Note | None:
    """For a run with nothing to warn about: how far it came, and what to try next.

    None before the first step.

    >>> from playground.train import EvalRecord
    >>> run = [EvalRecord(0, 0, 4.2, 4.2, 6.1, 6.1, 0.1), EvalRecord(300, 9, 2.0, 2.1, 2.9, 3.0, 9.0),
    ...        EvalRecord(600, 9, 1.8, 1.9, 2.6, 2.7, 18.0)]
    >>> note = progress_note(run, config=TrainConfig(max_steps=600))
    >>> note.kind, note.seen
    ('progress', 'The validation loss fell from 4.200 to 1.900 in 600 steps and was still falling at the end.')
    """
    config = config or TrainConfig()
    records = list(history)
    steps = [r for r in records if isinstance(r, StepRecord) and _finite(r.loss)]
    evals = [r for r in records if isinstance(r, EvalRecord) and _finite(r.val_loss)]
    last_step = max([r.step for r in steps + evals], default=0)
    if last_step == 0:
        return None
    tips: list[Tip]
    if len(evals) >= 2 and evals[-1].step > evals[0].step:
        first, before, last = evals[0], evals[-2], evals[-1]
        falling = before.val_loss - last.val_loss > STILL_FALLING * last.val_loss
        values = {"first": _fmt(first.val_loss), "last": _fmt(last.val_loss),
                  "steps": f"{last.step - first.step:,}"}
        if falling:
            seen = msg("The validation loss fell from {first} to {last} in {steps} steps and was "
                       "still falling at the end.", **values)
            tips = [("coach_tip_continue", msg("Train longer: tick 'Continue training' and raise "
                                               "max_steps to {more}.",
                                               more=f"{2 * max(config.max_steps, last.step):,}"))]
        else:
            seen = msg("The validation loss fell from {first} to {last} in {steps} steps and has "
                       "levelled off.", **values)
            tips = [("coach_tip_bigger", msg("A bigger model (more layers, a larger n_embd) or "
                                             "more text would take it lower."))]
        if config.optimizer == "adamw":
            tips.append(("coach_tip_muon", msg("Or try optimizer=muon: it often learns faster "
                                               "per step.")))
    else:
        start = steps[0].loss if steps else evals[0].train_loss
        now = _recent_loss(steps, evals)
        seen = msg("The training loss went from {first} to {last} in {steps} steps.",
                   first=_fmt(start), last=_fmt(now[1] if now else start), steps=f"{last_step:,}")
        next_eval = (last_step // config.eval_interval + 1) * config.eval_interval
        tips = [("coach_tip_next_eval", msg("The validation loss, measured on text the model "
                                            "never trains on, comes at step {step}.",
                                            step=f"{min(next_eval, config.max_steps):,}"))]
    clipped = _mostly_clipped(steps, config)
    if clipped is not None:
        tips.append(("coach_tip_clipped", msg(
            "{clipped} of {steps} steps had their gradients clipped (norm about {norm}, just over "
            "grad_clip {clip}; the red marks under 'How training is going'): normal for this "
            "recipe. Clipping only shortens a step, and the loss still fell.", **clipped)))
    return _note("progress", seen, tips, lang)


MOSTLY_CLIPPED = 0.9  # this share of the steps clipped, ...
CLIPPED_NEAR = 2.0  # ... with their median norm within this factor of grad_clip: normal


def _mostly_clipped(steps: Sequence[StepRecord], config: TrainConfig) -> dict[str, Any] | None:
    """Values for the note on a healthy run whose gradients sat just over ``grad_clip`` almost
    every step (Muon's runs do: a norm of about 1.3 against 1.0), so that the marks on the
    gradient plot do not read as a warning; None otherwise (a norm far over the clip is left
    to the spike rules)."""
    measured = [r for r in steps if _finite(r.grad_norm)]
    if config.grad_clip <= 0 or len(measured) < 10:
        return None
    over = len(clipped(measured, config.grad_clip))  # as the gradient plot marks them
    median = float(np.median([r.grad_norm for r in measured]))
    if over < MOSTLY_CLIPPED * len(measured) or median > CLIPPED_NEAR * config.grad_clip:
        return None
    return {"clipped": f"{over:,}", "steps": f"{len(measured):,}", "norm": f"{median:.2g}",
            "clip": f"{config.grad_clip:g}"}


# --- reading the records ------------------------------------------------------------------

def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def _losses(steps: Sequence[StepRecord]) -> np.ndarray:
    """The finite step losses in order: (n,)."""
    return np.array([r.loss for r in steps if _finite(r.loss)], dtype=np.float64)


def _recent_loss(steps, evals) -> tuple[int, float] | None:
    """(last step, a steady estimate of the current training loss), or None before any."""
    losses = _losses(steps)
    if losses.size:
        return steps[-1].step, float(np.median(losses[-20:]))
    finite = [e for e in evals if _finite(e.train_loss)]
    return (finite[-1].step, float(finite[-1].train_loss)) if finite else None


def _fmt(x: float) -> str:
    return f"{x:.3f}"


# --- the rules ----------------------------------------------------------------------------

def _nan(steps, evals, ends) -> dict[str, Any] | None:
    for r in steps:
        if not _finite(r.loss):
            return {"step": f"{r.step:,}", "value": _nonfinite_name(r.loss)}
    for r in evals:
        if not _finite(r.val_loss) or not _finite(r.train_loss):
            return {"step": f"{r.step:,}", "value": "NaN"}
    if ends and ends[-1].reason == "nan":
        return {"step": f"{ends[-1].step:,}", "value": "NaN"}
    return None


def _nonfinite_name(x: Any) -> str:
    return "infinity" if isinstance(x, float) and math.isinf(x) else "NaN"


def _spike(steps) -> dict[str, Any] | None:
    """The latest step whose loss jumped far above the median of the WINDOW steps before it."""
    finite = [r for r in steps if _finite(r.loss)]
    if len(finite) <= 20:
        return None
    losses = np.array([r.loss for r in finite])
    window = min(WINDOW, len(losses) - 1)
    medians = np.median(np.lib.stride_tricks.sliding_window_view(losses[:-1], window), axis=1)
    current = losses[window:]  # (n - window,): each loss after a full window
    jumps = (current > SPIKE_RATIO * medians) & (current - medians > SPIKE_MIN_JUMP)
    if not jumps.any():
        return None
    i = int(np.flatnonzero(jumps)[-1])
    return {"step": f"{finite[i + window].step:,}", "loss": _fmt(current[i]),
            "median": _fmt(medians[i])}


def _grad_spike(steps, config: TrainConfig) -> dict[str, Any] | None:
    """The latest step after the warmup whose gradient norm jumped to GRAD_SPIKE_RATIO times
    the median of the WINDOW steps before it (steps whose norm is not a finite number are
    left out: None where it was not measured)."""
    measured = [r for r in steps if _finite(r.grad_norm) and r.step > config.warmup_steps]
    if len(measured) <= 20:
        return None
    norms = np.array([r.grad_norm for r in measured])
    window = min(WINDOW, len(norms) - 1)
    medians = np.median(np.lib.stride_tricks.sliding_window_view(norms[:-1], window), axis=1)
    current = norms[window:]  # (n - window,): each norm after a full window
    jumps = current > GRAD_SPIKE_RATIO * medians
    if not jumps.any():
        return None
    i = int(np.flatnonzero(jumps)[-1])
    return {"step": f"{measured[i + window].step:,}", "norm": f"{current[i]:.3g}",
            "median": f"{medians[i]:.3g}", "ratio": f"{current[i] / medians[i]:.0f}",
            "clipped": bool(config.grad_clip > 0 and current[i] > config.grad_clip)}


def _grad_spike_seen(values: dict[str, Any], config: TrainConfig) -> Message:
    said = {k: v for k, v in values.items() if k != "clipped"}
    if values["clipped"]:
        return msg("At step {step} the gradient norm jumped to {norm}, {ratio} times the {median} "
                   "of the steps just before: one batch pulled hard on the weights. Clipping "
                   "held that step to {clip}, but such spikes often come just before the loss "
                   "jumps.", clip=f"{config.grad_clip:g}", **said)
    return msg("At step {step} the gradient norm jumped to {norm}, {ratio} times the {median} of "
               "the steps just before: one batch pulled hard on the weights, and such spikes "
               "often come just before the loss jumps.", **said)


def _rising(steps, config: TrainConfig) -> dict[str, Any] | None:
    """Training loss trending up after the warmup: recent median well above its best."""
    after = [r for r in steps if _finite(r.loss) and r.step > config.warmup_steps]
    if len(after) < 3 * WINDOW:
        return None
    losses = np.array([r.loss for r in after])
    medians = np.median(np.lib.stride_tricks.sliding_window_view(losses, WINDOW), axis=1)
    best, recent = float(medians[:-WINDOW].min()), float(medians[-1])
    if recent - best < max(RISE_MIN, 0.05 * best):
        return None
    return {"recent": _fmt(recent), "earlier": _fmt(best), "window": f"{WINDOW}"}


def _not_learning(steps, evals, vocab_size: int, config: TrainConfig) -> dict[str, Any] | None:
    current = _recent_loss(steps, evals)
    if current is None or vocab_size < 2:
        return None
    step, loss = current
    uniform = math.log(vocab_size)
    if step < max(NOT_LEARNING_MIN_STEPS, config.warmup_steps + 100):
        return None
    if loss <= NOT_LEARNING_SHARE * uniform:
        return None
    return {"steps": f"{step:,}", "loss": _fmt(loss), "uniform": _fmt(uniform),
            "vocab": f"{vocab_size:,}"}


def _unigram_plateau(steps, unigram: float, config: TrainConfig) -> dict[str, Any] | None:
    losses = _losses(steps)
    if (losses.size < 2 * WINDOW or not steps
            or steps[-1].step < max(UNIGRAM_MIN_STEPS, config.warmup_steps + 100)):
        return None
    recent, before = float(np.median(losses[-WINDOW:])), float(np.median(losses[-2 * WINDOW:-WINDOW]))
    if abs(recent - unigram) > UNIGRAM_TOLERANCE * unigram:
        return None
    if abs(recent - before) > PLATEAU_CHANGE * before:
        return None
    return {"steps": f"{steps[-1].step:,}", "loss": _fmt(recent), "unigram": _fmt(unigram)}


def _overfitting(evals) -> dict[str, Any] | None:
    """Validation loss risen from its best (two or more evaluations ago) while training fell."""
    finite = [e for e in evals if _finite(e.val_loss) and _finite(e.train_loss)]
    if len(finite) < 3:
        return None
    best_i = min(range(len(finite)), key=lambda i: finite[i].val_loss)
    best, last = finite[best_i], finite[-1]
    if best_i > len(finite) - 3:  # the best is one of the last two: not a trend yet
        return None
    if last.val_loss - best.val_loss < max(OVERFIT_MIN_RISE, 0.01 * best.val_loss):
        return None
    if last.train_loss >= best.train_loss:  # both rising is not overfitting
        return None
    return {"val_best": _fmt(best.val_loss), "best_step": f"{best.step:,}",
            "val_last": _fmt(last.val_loss), "train_last": _fmt(last.train_loss)}


# --- advice -------------------------------------------------------------------------------

Tip = tuple[str, Message]  # (the tip's id, as Note.tips lists it; what it says)


def _stability_tips(config: TrainConfig, include_dtype: bool) -> list[Tip]:
    tips: list[Tip] = [("coach_tip_lower_lr", msg("Lower the learning rate, for example to "
                                                  "lr={lr}.", lr=f"{config.lr / 3:.2g}"))]
    if config.warmup_steps < 100:
        tips.append(("coach_tip_warmup", msg("Use a longer warmup (warmup_steps={warmup}).",
                                             warmup=f"{max(100, 2 * config.warmup_steps)}")))
    if config.grad_clip == 0:
        tips.append(("coach_tip_grad_clip", msg("Turn gradient clipping on (grad_clip=1.0).")))
    if include_dtype and config.dtype != "float32":
        tips.append(("coach_tip_float32", msg("Train in float32 (dtype=float32): {dtype} has a "
                                              "smaller range.", dtype=config.dtype)))
    return tips


def _not_learning_tips(config: TrainConfig, model_config: ModelConfig) -> list[Tip]:
    tips: list[Tip] = []
    if config.lr < 3e-4:
        tips.append(("coach_tip_raise_lr", msg("Raise the learning rate, for example to lr={lr}.",
                                               lr=f"{min(1e-3, config.lr * 3):.2g}")))
    elif config.lr > 3e-3:
        tips.append(("coach_tip_lower_lr", msg("Lower the learning rate, for example to lr={lr}.",
                                               lr=f"{config.lr / 3:.2g}")))
    if model_config.norm_placement == "post" and model_config.n_layer > 4:
        tips.append(("coach_tip_pre_norm", msg("Deep post-norm models are hard to train: use "
                                               "norm_placement=pre.")))
    if model_config.n_layer > 6:
        tips.append(("coach_tip_shallower", msg("Start with fewer layers (n_layer={n_layer}) and "
                                                "add them once it learns.", n_layer="4")))
    tips.append(("coach_tip_wait", msg("Give it more steps: a loss that sits here for a while "
                                       "often drops suddenly once attention finds a pattern.")))
    return tips


def _dropout_tip(model_config: ModelConfig) -> list[Tip]:
    dropout = 0.2 if model_config.dropout < 0.2 else min(0.5, model_config.dropout + 0.1)
    return [("coach_tip_dropout", msg("Add dropout (dropout={dropout}).", dropout=f"{dropout:g}"))]


def _overfitting_tips(values, config: TrainConfig, model_config: ModelConfig) -> list[Tip]:
    tips: list[Tip] = [("coach_tip_stop_early", msg("Keep the model from step {best_step}, where "
                                                    "the validation loss was lowest: stop there "
                                                    "next time.", best_step=values["best_step"])),
                       ("coach_tip_more_data", msg("Train on more "
                                                   "text.")), *_dropout_tip(model_config),
                       ("coach_tip_smaller", msg("Use a smaller model (fewer layers or a smaller "
                                                 "n_embd)."))]
    if config.weight_decay < 0.1:
        tips.append(("coach_tip_weight_decay", msg("Raise weight decay "
                                                   "(weight_decay={weight_decay}).",
                                                   weight_decay="0.1")))
    return tips


def _note(kind: str, seen: Message, tips: list[Tip], lang: str) -> Note:
    advice = " ".join(localize(said, lang) for _, said in tips)
    return Note(kind, localize(seen, lang), advice, dict(seen.values),
                tuple(tip for tip, _ in tips))
