"""What the page says about settings, presets and a run under way, in the visitor's language.

Pure functions from configs, estimates and the trainer's records to Markdown lines (Gradio
is not imported here): the training tab, the Inside tab's stepping and the server's return
of a session all write a run's progress with them, and tests read them without a page.

>>> clock(95), clock(3725)
('1:35', '1:02:05')
>>> eval_line(EvalProgress(0, 120, 400), 95.0)
'**Evaluating** the model at step 0: 120 / 400 batches · about 1:35 left'
"""

from __future__ import annotations

import statistics
from typing import Sequence

from playground import estimate, runs
from playground.config import DEFAULT_PRESET, PRESETS, ModelConfig, TrainConfig
from playground.i18n import localize, normalize_language, sentences, t
from playground.i18n.labels import ZH_CN as LABELS_ZH_CN
from playground.insight.coach import loss_meaning
from playground.model import count_params, estimate_memory
from playground.runtime import fairshare, hosting, zerogpu
from playground.runtime.device import describe_device, pick_device
from playground.runtime.files import human_bytes
from playground.settings import PageSettings
from playground.train import EndRecord, EvalProgress, EvalRecord, StepRecord
from playground.trained import TrainedModel

DEFAULT_VOCAB = 65  # Tiny Shakespeare's characters: the estimate before any tokenizer exists


def settings_summary(model_cfg: ModelConfig, train_cfg: TrainConfig, lang: str = "en", *,
                     tokenizer_trained: bool = True) -> str:
    """Markdown: parameter count, memory to train, tokens per step and steps."""
    key = ("**{params} parameters** · about **{memory}** of memory to train · {tokens} tokens per "
           "step · {steps} steps."
           if tokenizer_trained else
           "**{params} parameters** (vocabulary {vocab} until you train a tokenizer) · about "
           "**{memory}** of memory to train · {tokens} tokens per step · {steps} steps.")
    return t(key, lang, params=f"{count_params(model_cfg):,}", vocab=DEFAULT_VOCAB,
             memory=human_bytes(estimate_memory(model_cfg, train_cfg)),
             tokens=f"{train_cfg.batch_size * model_cfg.block_size:,}",
             steps=f"{train_cfg.max_steps:,}")


def device_line(lang: str = "en") -> str:
    if hosting.current().on_zero_gpu:
        return t("**Device:** ZeroGPU: a GPU is attached for each stretch of training.", lang)
    try:
        return t("**Device:** {device}", lang,
                 device=localize(describe_device(pick_device("auto")), lang))
    except Exception:  # a broken driver must not stop the page from loading
        return t("**Device:** unknown (PyTorch could not describe it).", lang)


def estimate_text(model_cfg: ModelConfig, train_cfg: TrainConfig, lang: str = "en", *,
                  gpu_recipe: bool = False, timing: estimate.Estimate | None = None) -> str:
    """About how long a run of these configs takes here, with a warning when that is long or
    when a GPU recipe would run on a CPU; "" when it cannot be known. On ZeroGPU: what the
    run costs of the visitor's daily GPU quota (``zerogpu.quota_line``)."""
    if hosting.current().on_zero_gpu:
        return localize(zerogpu.quota_line(model_cfg, train_cfg), lang)
    timing = timing or runs.estimate_here(model_cfg, train_cfg)
    if timing is None:
        return ""
    took = estimate.duration_text(timing.seconds, lang)
    if gpu_recipe and runs.on_cpu(train_cfg):
        return t("⚠️ **A GPU recipe:** on this machine's CPU it would take about {time}. Pick a "
                 "CPU preset here ({preset}, for one), or run it on a machine with a GPU.",
                 lang, time=took, preset=DEFAULT_PRESET)
    limit = estimate.long_run_limit()
    if timing.seconds > limit:
        return t("⚠️ **About {time}** on this machine: longer than {limit}. Lower the training "
                 "steps (max_steps, under Advanced) or pick a smaller preset; Stop keeps the "
                 "model trained so far.", lang, time=took, limit=estimate.duration_text(limit, lang))
    return t("**About {time}** on this machine.", lang, time=took)


def _preset_configs(name: str, vocab_size: int) -> tuple[ModelConfig, TrainConfig]:
    return PageSettings.preset(name).configs(vocab_size)


def preset_choices(lang: str = "en", vocab_size: int = DEFAULT_VOCAB,
                   timed: bool = True) -> list[tuple[str, str]]:
    """The preset menu: each preset's name, its estimated time here (when ``timed``) and the
    validation loss it reaches.

    >>> preset_choices(timed=False)[0][1] == DEFAULT_PRESET
    True
    """
    choices = []
    for name, preset in PRESETS.items():
        parts = [name]
        timing = runs.estimate_here(*_preset_configs(name, vocab_size)) if timed else None
        if timing is not None:
            took = estimate.duration_text(timing.seconds, lang)
            parts.append(t("a GPU recipe: about {time} here", lang, time=took)
                         if preset.gpu_recipe and runs.on_cpu(preset.train) else
                         t("about {time} here", lang, time=took))
        if preset.expected_val_loss is not None:
            parts.append(t("loss {loss}", lang, loss=f"{preset.expected_val_loss:.2f}"))
        choices.append((" · ".join(parts), name))
    return choices


def clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def status_line(rec: StepRecord, cfg: TrainConfig, block_size: int, last_eval: EvalRecord | None,
                lang: str = "en", left: float | None = None) -> str:
    """One line of progress: step, speed, elapsed and time left, latest losses.

    ``left`` is the estimate's seconds left (evaluations included); without it, the steps
    left at the latest speed."""
    if left is None:
        per_step = cfg.batch_size * block_size / rec.tokens_per_s if rec.tokens_per_s > 0 else 0.0
        left = (cfg.max_steps - rec.step) * per_step
    line = t("**Training:** step {step} / {max_steps} · {tokens_per_s} tokens/s · elapsed "
             "{elapsed} · about {left} left · train loss {loss}",
             lang, step=f"{rec.step:,}", max_steps=f"{cfg.max_steps:,}",
             tokens_per_s=f"{rec.tokens_per_s:,.0f}", elapsed=clock(rec.elapsed),
             left=clock(left), loss=f"{rec.loss:.3f}")
    if last_eval is not None:
        line += " · " + t("validation loss {val_loss} (step {step})",
                          lang, val_loss=f"{last_eval.val_loss:.3f}",
                          step=f"{last_eval.step:,}")
    return line


def waiting_line(waiting: fairshare.Waiting, started: bool, lang: str = "en") -> str:
    """The status line while the run waits for its turn on the shared machine.

    >>> waiting_line(fairshare.Waiting(ahead=3, runs=5), False)
    '**Waiting for a turn:** 3 jobs ahead of yours. Runs here take turns of a fraction of a second, so yours starts soon.'
    >>> waiting_line(fairshare.Waiting(ahead=1, runs=1), True)
    "**Waiting for a turn:** another visitor's job is computing; yours goes on in a moment."
    """
    if started and waiting.runs > 1:
        return t("**Waiting for a turn:** {runs} runs share this machine, taking turns; yours "
                 "goes on in a moment.", lang, runs=f"{waiting.runs:,}")
    if started:
        return t("**Waiting for a turn:** another visitor's job is computing; yours goes on in "
                 "a moment.", lang)
    if waiting.ahead == 1:
        return t("**Waiting for a turn:** 1 job ahead of yours. Runs here take turns of a "
                 "fraction of a second, so yours starts soon.", lang)
    return t("**Waiting for a turn:** {ahead} jobs ahead of yours. Runs here take turns of a "
             "fraction of a second, so yours starts soon.", lang, ahead=f"{waiting.ahead:,}")


def eval_line(progress: EvalProgress, left: float | None, lang: str = "en") -> str:
    """The status line while an evaluation runs: how many of its batches are done.

    >>> eval_line(EvalProgress(0, 120, 400), 95.0)
    '**Evaluating** the model at step 0: 120 / 400 batches · about 1:35 left'
    """
    line = t("**Evaluating** the model at step {step}: {done} / {total} batches", lang,
             step=f"{progress.step:,}", done=f"{progress.done:,}", total=f"{progress.total:,}")
    if left is not None:
        line += " · " + t("about {left} left", lang, left=clock(left))
    return line


def no_samples_note(cfg: TrainConfig, lang: str) -> str:
    """What the samples box says before a run that writes none."""
    if cfg.sample_tokens:
        return ""
    return t("This run writes no samples while it trains (sample length, sample_tokens, is 0 "
             "under Advanced). The Generate tab writes with the model once it is trained.",
             lang) + "\n\n"


def sample_entry(rec: EvalRecord, lang: str = "en") -> str:
    head = t("── step {step} · validation loss {val_loss} ──",
             lang, step=f"{rec.step:,}", val_loss=f"{rec.val_loss:.3f}")
    return f"{head}\n{rec.sample}\n\n"


def recent_train_loss(steps: Sequence[StepRecord]) -> float:
    """The training loss now: the mean of the last few steps (one step's loss is noisy)."""
    return statistics.fmean(r.loss for r in steps[-10:])


def latest_loss(history: Sequence) -> tuple[str, float] | None:
    """("val", loss) when an evaluation came after the last step, else ("train", recent)."""
    steps = [r for r in history if isinstance(r, StepRecord)]
    evals = [r for r in history if isinstance(r, EvalRecord)]
    if evals and (not steps or evals[-1].step >= steps[-1].step):
        return "val", evals[-1].val_loss
    return ("train", recent_train_loss(steps)) if steps else None


def end_status(end: EndRecord | None, last_eval: EvalRecord | None, lang: str = "en", *,
               steps: Sequence = (), meaning: str = "") -> str:
    """The run's last status line: how it ended (the trainer's own words), its latest loss
    (the validation loss when an evaluation came after the last step of ``steps``, else the
    recent training loss), ``meaning`` (what that loss means for the text), what to do next."""
    head = {"done": "Done.", "stopped": "Stopped."}.get(
        end.reason if end else "", "Problem:")
    said = localize(end.message, lang) if end else t("The run ended.", lang)
    parts = [said]
    step_records = [r for r in steps if isinstance(r, StepRecord)]
    last_step = step_records[-1].step if step_records else 0
    if last_eval is not None and last_eval.step >= last_step:
        parts.append(t("Last validation loss {val_loss} at step {step} ({val_bpc} bits per "
                           "character).", lang, val_loss=f"{last_eval.val_loss:.3f}",
                           step=f"{last_eval.step:,}", val_bpc=f"{last_eval.val_bpc:.2f}"))
    elif step_records:
        values = dict(loss=f"{recent_train_loss(step_records):.3f}", step=f"{last_step:,}")
        parts.append(t("Recent training loss {loss} at step {step}.", lang, **values)
                         if last_eval is None else
                         t("Recent training loss {loss} at step {step} (no evaluation since step "
                           "{eval_step}).", lang, eval_step=f"{last_eval.step:,}", **values))
    if meaning:
        parts.append(meaning)
    parts.append(t("The model is ready: try the Generate and Attention tabs, or download it "
                       "below.", lang))
    return f"**{t(head, lang)}** " + sentences(parts, lang)


def preset_key(name: str) -> str:
    """The message id of a preset's menu entry, "name: description" (in playground.i18n).

    >>> preset_key("nanogpt-cpu")
    'page_preset_nanogpt_cpu'
    """
    return "page_preset_" + name.replace("-", "_")


def preset_description(name: str, lang: str) -> str:
    """A preset's description in ``lang``: the Chinese of the preset menu's label, else the
    preset's own English (always current)."""
    if normalize_language(lang) == "zh-CN" and preset_key(name) in LABELS_ZH_CN:
        said = LABELS_ZH_CN[preset_key(name)]
        for prefix in (f"{name}：", f"{name}: "):
            said = said.removeprefix(prefix)
        return said
    return PRESETS[name].description


def preset_card(name: str | None, lang: str = "en") -> str:
    """Markdown under the preset menu: what the chosen preset is, the loss it reaches and
    what its text looks like at that loss; or that the settings are one's own."""
    if name is None:
        return t("**Your own settings.** They match no preset now; the estimate above is for "
                 "them. Pick a preset to start again from one.", lang)
    preset = PRESETS[name]
    lines = [f"**{name}**: {preset_description(name, lang)}"]
    if preset.expected_val_loss is not None:
        meaning = loss_meaning(preset.expected_val_loss, vocab_size=DEFAULT_VOCAB,
                               shakespeare_char=True, lang=lang)
        lines.append(t("On Tiny Shakespeare it reaches a validation loss of about **{loss}**. "
                       "{meaning}", lang, loss=f"{preset.expected_val_loss:.2f}",
                       meaning=meaning))
    if preset.looks_like:
        lines.append(t("What its text looks like there:", lang) + "\n\n```text\n"
                     + preset.looks_like.replace("```", "'''") + "\n```")
    return "\n\n".join(lines)


# --- the Inside tab's Step ×k ---------------------------------------------------------------

def model_step_line(trained: TrainedModel | None, lang: str = "en") -> str:
    """Where a model is: its step of max_steps, or what Step ×1 would start."""
    if trained is None:
        return t("No model yet: Step ×1 starts one with the training tab's settings (its first "
                 "press also measures the loss before any training).", lang)
    if trained.ready_made:
        return t("This is the ready-made model (the {preset} preset, trained before you came): "
                 "Step ×1 starts a model of your own with the training tab's settings (its first "
                 "press also measures the loss before any training).", lang,
                 preset=trained.ready_made)
    state = trained.trainer_state
    return t("**Step {step}** of {max_steps}: each press trains that many more steps.", lang,
             step=f"{int(state['step']) if state else 0:,}",
             max_steps=f"{trained.train_config.max_steps:,}")


def stepping_line(rec: StepRecord, run: runs.Run, steps: int, lang: str) -> str:
    start = run.trained.trainer_state["step"] if run.trained.trainer_state else 0
    return t("**Stepping:** step {step} of {max_steps} ({done} / {steps} of this press) · "
             "training loss {loss}", lang, step=f"{rec.step:,}",
             max_steps=f"{run.train_config.max_steps:,}", done=f"{rec.step - start:,}",
             steps=f"{steps:,}", loss=f"{rec.loss:.3f}")


def stepped_line(done: runs.Finished, lang: str) -> str:
    """The status after a press: the step reached, how long it took, the latest losses (of
    the press's last step, and of the run's last evaluation), and how the press ended when
    that was not as asked (stopped, NaN, out of memory)."""
    end, max_steps = done.end, done.trained.train_config.max_steps
    if end is not None and end.reason != "done":
        head = t("Stopped.", lang) if end.reason == "stopped" else t("Problem:", lang)
        return f"**{head}** " + localize(end.message, lang)
    evals = [r for r in done.trained.history if isinstance(r, EvalRecord)]
    line = t("**Step {step}** of {max_steps}: {done} more in {seconds} s.", lang,
             step=f"{done.step:,}", max_steps=f"{max_steps:,}",
             done=f"{done.step - done.start_step:,}", seconds=f"{done.seconds:.1f}")
    said = []
    if done.last_step is not None:
        said.append(t("Training loss {loss}.", lang, loss=f"{done.last_step.loss:.3f}"))
    if evals:
        said.append(t("Validation loss {val_loss} at step {eval_step}.", lang,
                      val_loss=f"{evals[-1].val_loss:.3f}", eval_step=f"{evals[-1].step:,}"))
    if done.step >= max_steps:
        said.append(t("That was the last of its {max_steps} steps: raise max_steps on the "
                      "training tab to step further.", lang, max_steps=f"{max_steps:,}"))
    return sentences([line, *said], lang)
