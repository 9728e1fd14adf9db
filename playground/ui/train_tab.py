"""Tab 3, Model & training: every model and training setting, Start/Stop, the live loss curve.

The settings are one flat list of widgets, in the order of ``SETTINGS`` (the field names of
``ModelConfig`` and ``TrainConfig``); ``configs_from_settings`` turns their values back into
the two typed configs, so the configs' own checks produce every error message. Training is
``Trainer.run()`` (through ``zerogpu.start_run``) streamed to the page: at most
``PUSHES_PER_S`` updates a second, each a fresh loss figure and a status line.

Stop sets ``session.run.stop_requested`` and calls the run's own ``stop`` (the trainer
ends after its current step or evaluation batch); the running handler then sends the final
plot, status and download button itself. A Stop while the run still waits in the queue is
seen when it starts. (Gradio's ``cancels=`` would close the generator instead and drop
that last update.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import gradio as gr

from playground.checkpoint import load_bundle, save_bundle
from playground.config import CHOICES, DEFAULT_PRESET, PRESETS, ConfigError, ModelConfig, TrainConfig
from playground.i18n import error_text, localize, msg, normalize_language, t
from playground.model import count_params, estimate_memory
from playground.plots import loss_figure
from playground.prepare import PreparedRun, prepare_run
from playground.runtime.device import describe_device, pick_device
from playground.runtime.files import human_bytes
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord
from playground.ui import health_panel, loss_panel, zerogpu
from playground.ui.lang import info as setting_info, label as setting_label, tr
from playground.ui.session import Session, TrainedModel, ensure, friendly_errors, require_model
from playground.ui.settings import (MODEL_SETTINGS, SETTINGS, TRAIN_SETTINGS,  # noqa: F401 (and
                                    PageSettings, takes_settings)  # for the tabs and tests)

PUSHES_PER_S = 4  # at most this many plot updates a second...
# ...and fewer when drawing gets slow (a long history): the figure is built here and
# serialised by Gradio in this same process, so its cost comes out of training time. The
# interval between pushes grows so that drawing (estimated as twice the build time, for
# the serialisation) stays within this share of the run (about 1%).
PLOT_TIME_BUDGET = 0.01


def next_push_interval(build_seconds: float) -> float:
    """Seconds until the next plot update, given how long the last figure took to build.

    >>> next_push_interval(0.001), next_push_interval(0.010)
    (0.25, 2.0)
    """
    return max(1 / PUSHES_PER_S, 2 * build_seconds / PLOT_TIME_BUDGET)
DEFAULT_VOCAB = 65  # Tiny Shakespeare's characters: the estimate before any tokenizer exists



def preset_key(name: str) -> str:
    """The message id of a preset's menu entry, "name: description" (in playground.i18n).

    >>> preset_key("nanogpt-cpu")
    'page_preset_nanogpt_cpu'
    """
    return "page_preset_" + name.replace("-", "_")

SECTIONS = {
    "Model shape": ("block_size", "n_layer", "n_head", "n_embd", "mlp_ratio"),
    "Architecture variants": ("pos", "norm", "norm_placement", "activation", "dropout", "bias",
                              "tie_weights", "scale_embedding", "qk_norm", "zero_init",
                              "rope_base", "norm_eps"),
    "Optimisation": ("max_steps", "batch_size", "grad_accum", "lr", "min_lr", "warmup_steps",
                     "lr_decay_steps", "weight_decay", "beta1", "beta2", "grad_clip",
                     "optimizer", "muon_lr", "muon_momentum", "label_smoothing"),
    "Evaluation, data split, device": ("eval_interval", "eval_iters", "sample_tokens",
                                       "val_fraction", "seed", "rng_stream", "threads", "device", "dtype",
                                       "compile"),
}
OPEN_SECTIONS = ("Model shape", "Optimisation")
SECTION_KEYS = {"Model shape": "section_shape", "Architecture variants": "section_variants",
                "Optimisation": "section_optimisation",
                "Evaluation, data split, device": "section_evaluation"}
ROW_WIDTH = 6  # settings per row; more squeezes their explanations

# --- settings <-> configs ---------------------------------------------------------------------

def preset_values(name: str) -> list[Any]:
    """The values of every widget in ``SETTINGS`` order for a preset."""
    return PageSettings.preset(name).as_list()


def configs_from_settings(values: Sequence[Any], vocab_size: int) -> tuple[ModelConfig, TrainConfig]:
    """(ModelConfig, TrainConfig) from widget values in ``SETTINGS`` order; errors are ConfigError.

    >>> m, t = configs_from_settings(preset_values("tiny"), vocab_size=65)
    >>> m.n_layer, t.max_steps
    (2, 600)
    """
    return PageSettings.from_list(values).configs(vocab_size)


def _vocab_size(session: Session) -> int:
    return session.tokenizer.vocab_size if session.tokenizer is not None else DEFAULT_VOCAB


@takes_settings
def describe_settings(session: Session | None, settings: PageSettings) -> str:
    """Markdown: parameter count, memory estimate and tokens per step, or what is wrong."""
    session = ensure(session)
    lang = session.lang
    try:
        model_cfg, train_cfg = settings.configs(_vocab_size(session))
    except ConfigError as error:
        return t("**Check the settings:** {error}", lang, error=error_text(error, lang))
    key = ("**{params} parameters** · about **{memory}** of memory to train · {tokens} tokens per "
           "step · {steps} steps."
           if session.tokenizer else
           "**{params} parameters** (vocabulary {vocab} until you train a tokenizer) · about "
           "**{memory}** of memory to train · {tokens} tokens per step · {steps} steps.")
    return t(key, lang, params=f"{count_params(model_cfg):,}", vocab=DEFAULT_VOCAB,
             memory=human_bytes(estimate_memory(model_cfg, train_cfg)),
             tokens=f"{train_cfg.batch_size * model_cfg.block_size:,}",
             steps=f"{train_cfg.max_steps:,}")


def device_line(lang: str = "en") -> str:
    if zerogpu.ON_ZERO_GPU:
        return t("**Device:** ZeroGPU: a GPU is attached for each stretch of training.", lang)
    try:
        return t("**Device:** {device}", lang,
                 device=localize(describe_device(pick_device("auto")), lang))
    except Exception:  # a broken driver must not stop the page from loading
        return t("**Device:** unknown (PyTorch could not describe it).", lang)


def show_device(session: Session | None) -> str:
    """On page load: the device line in the visitor's language."""
    return device_line(ensure(session).lang)


# --- training ---------------------------------------------------------------------------------

def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def status_line(rec: StepRecord, cfg: TrainConfig, block_size: int, last_eval: EvalRecord | None,
                lang: str = "en") -> str:
    """One line of progress: step, speed, elapsed and time left, latest losses."""
    per_step = cfg.batch_size * block_size / rec.tokens_per_s if rec.tokens_per_s > 0 else 0.0
    left = (cfg.max_steps - rec.step) * per_step
    line = t("**Training:** step {step} / {max_steps} · {tokens_per_s} tokens/s · elapsed "
             "{elapsed} · about {left} left · train loss {loss}",
             lang, step=f"{rec.step:,}", max_steps=f"{cfg.max_steps:,}",
             tokens_per_s=f"{rec.tokens_per_s:,.0f}", elapsed=_clock(rec.elapsed),
             left=_clock(left), loss=f"{rec.loss:.3f}")
    if last_eval is not None:
        line += " · " + t("validation loss {val_loss} (step {step})",
                          lang, val_loss=f"{last_eval.val_loss:.3f}",
                          step=f"{last_eval.step:,}")
    return line


def sample_entry(rec: EvalRecord, lang: str = "en") -> str:
    head = t("── step {step} · validation loss {val_loss} ──",
             lang, step=f"{rec.step:,}", val_loss=f"{rec.val_loss:.3f}")
    return f"{head}\n{rec.sample}\n\n"


@friendly_errors
def reserve_run(session: Session | None) -> Session:
    """First half of Start (not queued): refuse a second run, else mark one as pending."""
    session = ensure(session)
    if session.run.running or session.run.pending:
        raise gr.Error(t("A training run is already going (or waiting for its turn). Press Stop "
                         "first, or wait for it to finish.", session.lang),
                       title=t("Already training", session.lang), print_exception=False)
    session.run.pending, session.run.stop_requested = True, False
    return session


def release_run(session: Session | None) -> Session:
    """After a Start whose run never began (Gradio refused an input before ``train_model``
    ran, or the run was refused): the reservation goes, so Start works again at once."""
    session = ensure(session)
    if not session.run.running:
        session.run.pending = False
    return session


@friendly_errors
def stop_training(session: Session | None) -> None:
    """Ask the session's run to stop after its current step (``session.run.stop_requested``).

    The answer is a toast, not the status line: the run writes its own final status, and
    two events writing one line could arrive in either order.
    """
    session = ensure(session)
    if not (session.run.running or session.run.pending):
        gr.Info(t("Nothing is training right now.", session.lang), title=t("Note", session.lang))
        return
    session.run.stop_requested = True
    if session.run.stop is not None:
        session.run.stop()
    gr.Info(t("Stopping after the current step…", session.lang), title=t("Note", session.lang))


def _plan(session: Session, continue_training: bool, settings: PageSettings) -> PreparedRun:
    """Check everything before a run starts (``prepare_run``); returns the run, or raises."""
    corpus = session.corpus_or_default()
    # on ZeroGPU the GPU exists only inside a chunk, so there is no memory to measure here
    check = not zerogpu.ON_ZERO_GPU
    if continue_training:
        trained = require_model(session, msg("continue training"))
        _, train_cfg = settings.configs(trained.tokenizer.vocab_size)
        return prepare_run(corpus, trained.tokenizer, trained.model_config, train_cfg,
                           model=trained.model, trainer_state=trained.trainer_state,
                           check_free_memory=check)
    tokenizer = session.tokenizer
    if tokenizer is None:  # straight to Start: the default tokenizer, said in a toast
        tokenizer = train_tokenizer("char", corpus.text)
        session.tokenizer, session.tokenizer_corpus = tokenizer, corpus
        gr.Info(t("No tokenizer was trained yet, so this run reads the text character by "
                  "character ({vocab} distinct characters). The Tokenizer tab (tab 2) can train a "
                  "BPE tokenizer instead.", session.lang, vocab=f"{tokenizer.vocab_size:,}"),
                title=t("Note", session.lang))
    if session.tokenizer_corpus is not corpus:
        raise ConfigError(msg("The tokenizer was trained on a different text than the corpus now "
                              "chosen ({name}). Train the tokenizer again (tab 2) first.",
                              name=corpus.name))
    model_cfg, train_cfg = settings.configs(tokenizer.vocab_size)
    return prepare_run(corpus, tokenizer, model_cfg, train_cfg, check_free_memory=check)


def _save_bundle(trained: TrainedModel, workdir: Path) -> str:
    """Write ``trained`` into ``workdir``, then remove the bundle of an earlier run (so a save
    that fails, a full disk, leaves that one), and keep its path in ``trained.bundle_path``."""
    path = workdir / f"playground-model-step{(trained.trainer_state or {}).get('step', 0)}.zip"
    save_bundle(path, trained.model, trained.tokenizer, trained.train_config, trained.history,
                trained.trainer_state)
    for old in workdir.glob("playground-model-step*.zip"):
        if old != path:
            old.unlink(missing_ok=True)
    trained.bundle_path = str(path)
    return str(path)


@friendly_errors
@takes_settings
def train_model(session: Session | None, continue_training: bool, settings: PageSettings, *,
                chunk_seconds: float | None = None):
    """Train (or continue) a model with the settings; streams (session, plot, status, samples,
    download button, coach notes). ``chunk_seconds`` forces chunked runs (the ZeroGPU path) in
    tests. A run that ends (done or stopped) is kept in ``session.runs`` for the Compare tab.

    The settings are named parameters (``takes_settings``): ``/train_model`` over the API
    takes ``n_layer=4, max_steps=500``, the rest as the page's default preset."""
    session = ensure(session)
    lang = session.lang
    session.run.pending = False
    if session.run.running:
        raise gr.Error(t("A training run is already going in this session; press Stop first.",
                         lang),
                       title=t("Already training", lang), print_exception=False)
    plan = _plan(session, continue_training, settings)
    corpus, tokenizer = plan.corpus, plan.tokenizer
    model_cfg, train_cfg, train_ids = plan.model_config, plan.train_config, plan.data.train_ids
    run = zerogpu.start_run(plan, workdir=session.workdir(), chunk_seconds=chunk_seconds)
    # From here on the session holds the model being trained: Stop (or a failure) keeps it.
    # (Held here too: a session released mid-run drops it, and the run ends without it.)
    trained = session.trained = TrainedModel(run.model, tokenizer, model_cfg, train_cfg,
                                             list(run.history), plan.trainer_state, corpus=corpus)
    session.attention = None
    session.run.running, session.run.stop = True, run.stop
    loss_panel.begin(session, corpus, tokenizer, train_ids, model_cfg.vocab_size)
    # the records so far (a continued run starts with its past), kept in the session's model
    # as they come: the health plots under the loss plot read them there
    live = trained.history
    samples, last_eval, end = "", None, None
    status = t("**Starting** on {name}…", lang, name=localize(corpus.name, lang))
    last_push, push_interval = 0.0, 1 / PUSHES_PER_S
    try:
        yield (session, loss_panel.figure(session, live), status, samples,
               gr.DownloadButton(visible=False), session.plot.coach)
        for rec in run.records():
            if session.run.released:  # the tab closed or the session expired: end, keep nothing
                return  # closing run.records() ends the trainer's loop
            if session.run.stop_requested:
                run.stop()
                session.run.stop_requested = False
            live.append(rec)
            if isinstance(rec, StepRecord):
                status = status_line(rec, train_cfg, model_cfg.block_size, last_eval, lang)
            elif isinstance(rec, EvalRecord):
                last_eval = rec
                if rec.sample:
                    samples += sample_entry(rec, lang)
                loss_panel.coach(session, live, model_cfg, train_cfg, len(train_ids))
            elif isinstance(rec, EndRecord):
                end = rec
            now = time.monotonic()
            if now - last_push >= push_interval:
                figure = loss_panel.figure(session, live)
                built = time.monotonic()
                push_interval = next_push_interval(built - now)
                last_push = built
                yield (session, figure, status, samples, gr.skip(), session.plot.coach)
        if session.run.released:
            return
        trained.history, trained.trainer_state = list(run.history), run.state()
        bundle = _save_bundle(trained, session.workdir())
        status = _end_status(end, last_eval, lang)
        loss_panel.coach(session, trained.history, model_cfg, train_cfg, len(train_ids))
        loss_panel.finish(session, corpus, tokenizer, model_cfg, train_cfg)
        yield (session, loss_panel.figure(session, trained.history), status, samples,
               gr.DownloadButton(value=bundle, visible=True), session.plot.coach)
    finally:
        if not session.run.released:
            trained.history, trained.trainer_state = list(run.history), run.state()
        session.run.running = session.run.stop_requested = False
        session.run.stop = None


def _end_status(end: EndRecord | None, last_eval: EvalRecord | None, lang: str = "en") -> str:
    """The run's last status line: how it ended (the trainer's own words), the last validation
    loss, and what to do next."""
    head = {"done": "Done.", "stopped": "Stopped."}.get(
        end.reason if end else "", "Problem:")
    said = localize(end.message, lang) if end else t("The run ended.", lang)
    sentences = [said]
    if last_eval is not None:
        sentences.append(t("Last validation loss {val_loss} at step {step} ({val_bpc} bits per "
                           "character).", lang, val_loss=f"{last_eval.val_loss:.3f}",
                           step=f"{last_eval.step:,}", val_bpc=f"{last_eval.val_bpc:.2f}"))
    sentences.append(t("The model is ready: try the Generate and Attention tabs, or download it "
                       "below.", lang))
    gap = "" if normalize_language(lang) == "zh-CN" else " "  # Chinese puts no space after 。
    return f"**{t(head, lang)}** " + gap.join(sentences)


@friendly_errors
def upload_bundle(session: Session | None, path: str | None):
    """Load a bundle: the model becomes the session's, and the settings show its configs.

    Returns (session, continue checkbox, plot, status, *setting values).
    """
    session = ensure(session)
    if not path:
        raise ConfigError(msg("No file: upload a .zip bundle saved by this app."))
    if session.run.running:
        raise ConfigError(msg("A training run is going: stop it before loading a bundle."))
    bundle = load_bundle(path)
    bundle.model.train()
    # the bundle's text is not known here: no corpus, no reference lines
    session.trained = TrainedModel(bundle.model, bundle.tokenizer, bundle.model_config,
                                   bundle.train_config, bundle.history, bundle.trainer_state)
    session.tokenizer, session.tokenizer_corpus = bundle.tokenizer, None
    session.attention = None
    session.plot.references = []
    step = int(bundle.trainer_state["step"]) if bundle.trainer_state else 0
    values = PageSettings.from_configs(bundle.model_config, bundle.train_config).as_list()
    status = t("**Loaded** a model with {params} parameters and a {kind} tokenizer ({vocab} "
               "tokens), trained {step} steps. Generate with it, or tick 'Continue training' and "
               "raise max_steps to train it further."
               if step else
               "**Loaded** a model with {params} parameters and a {kind} tokenizer ({vocab} "
               "tokens). Generate with it, or tick 'Continue training' and raise max_steps to "
               "train it further.", session.lang,
               params=f"{bundle.model.num_params():,}", kind=bundle.tokenizer.kind,
               vocab=f"{bundle.tokenizer.vocab_size:,}", step=f"{step:,}")
    return (session, True, loss_panel.figure(session, bundle.history), status, *values)


# --- widgets ----------------------------------------------------------------------------------

def _widget(name: str, value: Any) -> gr.components.Component:
    label, info = setting_label(name), setting_info(name)  # translated in the browser (i18n.py)
    if name in CHOICES:
        return gr.Dropdown(list(CHOICES[name]), value=value, label=label, info=info)
    if isinstance(value, bool):
        return gr.Checkbox(value=value, label=label, info=info)
    if isinstance(value, int):
        return gr.Number(value=value, label=label, info=info, precision=0)
    # No minimum: Gradio would refuse a value out of it with its own unnamed message before our
    # handler runs; the configs refuse it instead, naming the setting and its range.
    return gr.Number(value=value, label=label, info=info, step=1e-4 if value < 0.01 else 0.01)


@dataclass
class TrainTab:
    """The training tab's widgets that other tabs use."""

    settings: list[gr.components.Component]  # one widget per setting, in ``SETTINGS`` order
    summary: gr.Markdown  # parameter count and memory (``describe_settings``)
    device: gr.Markdown
    continue_training: gr.Checkbox
    plot: gr.Plot
    status: gr.Markdown
    outputs: list[gr.components.Component]  # what ``train_model`` streams to, session first


def build(session: gr.State, concurrency_limit: int) -> TrainTab:
    gr.Markdown(tr("train_intro"))
    device = gr.Markdown(device_line())
    preset = gr.Dropdown([(tr(preset_key(name)), name) for name in PRESETS],
                         value=DEFAULT_PRESET, label=tr("preset"), info=tr("preset_info"))
    values = PageSettings.preset(DEFAULT_PRESET).values
    widgets: dict[str, gr.components.Component] = {}
    for section, names in SECTIONS.items():
        with gr.Accordion(tr(SECTION_KEYS[section]), open=section in OPEN_SECTIONS):
            for start in range(0, len(names), ROW_WIDTH):
                with gr.Row(equal_height=False):
                    for name in names[start:start + ROW_WIDTH]:
                        widgets[name] = _widget(name, values[name])
    settings = [widgets[name] for name in SETTINGS]
    summary = gr.Markdown()
    with gr.Row():
        continue_training = gr.Checkbox(False, label=tr("continue_training"),
                                        info=tr("continue_training_info"))
        start = gr.Button(tr("start_button"), variant="primary")
        stop = gr.Button(tr("stop_button"), variant="stop")
    status = gr.Markdown(tr("not_trained"), elem_id="train-status")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3):
            plot = gr.Plot(label=tr("loss_plot"), value=loss_figure([]), elem_id="loss-plot")
        with gr.Column(scale=1, min_width=260):
            coach = loss_panel.build_coach()
    loss_panel.build_options(session, plot)
    health_panel.build(session, plot, settings)
    samples = gr.Textbox(label=tr("samples_label"), lines=8, max_lines=16,
                         interactive=False, autoscroll=True, info=tr("samples_info"))
    with gr.Row():
        download = gr.DownloadButton(tr("download_button"), visible=False)
        upload = gr.File(label=tr("upload_bundle"), file_types=[".zip"], type="filepath")

    preset.input(preset_values, preset, settings, api_visibility="private", queue=False)
    gr.on([w.change for w in settings], describe_settings, [session, *settings], summary,
          concurrency_limit=None, trigger_mode="always_last", api_visibility="private",
          show_progress="hidden")
    start.click(reserve_run, session, session, concurrency_limit=None, trigger_mode="multiple",
                api_visibility="private", show_progress="hidden").success(
        train_model, [session, continue_training, *settings],
        [session, plot, status, samples, download, coach],
        concurrency_limit=concurrency_limit, concurrency_id="compute",
        show_progress_on=[status], api_name="train_model").failure(
        release_run, session, session, concurrency_limit=None, api_visibility="private",
        show_progress="hidden")
    stop.click(stop_training, session, None, concurrency_limit=None, api_name="stop_training")
    upload.upload(upload_bundle, [session, upload],
                  [session, continue_training, plot, status, *settings],
                  concurrency_limit=concurrency_limit, concurrency_id="compute",  # guard.py
                  api_name="upload_bundle")
    return TrainTab(settings=settings, summary=summary, device=device,
                    continue_training=continue_training, plot=plot, status=status,
                    outputs=[session, plot, status, samples, download, coach])
