"""Tab 3, Model & training: a preset, Start/Stop, the live loss curve; every setting under Advanced.

The first screen holds what a newcomer needs: the presets (each with its estimated time on
this machine, the validation loss it reaches and what its text looks like there), Start and
Stop, the status line, the loss plot and the samples. Every setting stays available under
"Advanced", grouped, as one flat list of widgets in the order of ``SETTINGS`` (the field names
of ``ModelConfig`` and ``TrainConfig``); ``configs_from_settings`` turns their values back into
the two typed configs, so the configs' own checks produce every error message. A changed
setting (or a shared link) that no longer matches a preset clears the preset choice.

Time estimates come from ``playground.estimate``: before Start for the settings and for each
preset, and during the run refined from its own steps and evaluations. Training is a run of
the one run driver (``playground.runs``), whose events ``train_model`` shows: at most
``PUSHES_PER_S`` updates a second, each a fresh loss figure and a status line (during
an evaluation: how many of its batches are done).

Refusals never leave Gradio's red "Error" badge over a widget: Start is two events,
``check_start`` (not queued, no outputs, no progress shown: it reserves the run and makes
every check once), whose refusal is a toast with our title, and then ``train_model``, which
shows its queue position on the status line.

Stop asks the run to stop (``RunState.request_stop``: the trainer ends after its current
step or evaluation batch); the running handler then sends the final
plot, status and download button itself. A Stop while the run still waits in the queue is
seen when it starts. (Gradio's ``cancels=`` would close the generator instead and drop
that last update.)
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Sequence

import gradio as gr

from playground import describe, estimate
from playground.checkpoint import load_bundle
from playground.config import CHOICES, DEFAULT_PRESET, PRESETS, ConfigError, ModelConfig, TrainConfig
from playground.i18n import error_text, localize, msg, t
from playground.insight.baselines import is_tiny_shakespeare
from playground.insight.coach import loss_meaning
from playground.plots import loss_figure
from playground import prepare, runs
from playground.runtime import fairshare, hosting, zerogpu
from playground.server import guard
from playground.tokenizer import train_tokenizer
from playground.train import EvalProgress, EvalRecord, StepRecord
from playground.ui import health_panel, loss_panel
from playground.ui.lang import info as setting_info, label as setting_label, tr
from playground.ui.outputs import Outputs
from playground.ui.session import (Session, default_corpus, ensure, friendly_errors,
                                   uploaded_files)
from playground.settings import (MODEL_SETTINGS, SETTINGS, TRAIN_SETTINGS,  # noqa: F401 (and
                                    PageSettings, takes_settings)  # for the tabs and tests)

log = logging.getLogger("playground.ui")

PUSHES_PER_S = 4  # at most this many plot updates a second...
# ...and fewer when drawing gets slow (a long history): the figure is built here and
# serialised by Gradio in this same process, so its cost comes out of training time. The
# interval between pushes grows so that drawing (estimated as twice the build time, for
# the serialisation) stays within this share of the run (about 1%).
PLOT_TIME_BUDGET = 0.01


# a run under way that waits this long for its turn says so; shorter waits are the other runs'
# turns (twelve runs: about 3 s), and its status line keeps its last step meanwhile
WAIT_NOTE_S = 5.0

# what a run streams (train_model): the session, then the widgets of build() by name
TRAINING = Outputs("session", "plot", "status", "samples", "download", "coach")


def next_push_interval(build_seconds: float) -> float:
    """Seconds until the next plot update, given how long the last figure took to build.

    >>> next_push_interval(0.001), next_push_interval(0.010)
    (0.25, 2.0)
    """
    return max(1 / PUSHES_PER_S, 2 * build_seconds / PLOT_TIME_BUDGET)


SECTIONS = {
    "Model shape": ("block_size", "n_layer", "n_head", "n_embd", "mlp_ratio"),
    "Architecture variants": ("pos", "norm", "norm_placement", "activation", "dropout", "bias",
                              "tie_weights", "scale_embedding", "qk_norm", "zero_init", "token_shift",
                              "bigram", "value_embed", "logit_softcap", "rope_base", "norm_eps"),
    "Optimisation": ("max_steps", "batch_size", "grad_accum", "lr", "min_lr", "warmup_steps",
                     "lr_decay_steps", "weight_decay", "beta1", "beta2", "grad_clip",
                     "optimizer", "muon_lr", "muon_momentum", "polar_express", "label_smoothing"),
    "Evaluation, data split, device": ("eval_interval", "eval_iters", "first_eval_iters",
                                       "sample_tokens",
                                       "val_fraction", "seed", "rng_stream", "threads", "device", "dtype",
                                       "compile"),
}
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
    return session.tokenizer.vocab_size if session.tokenizer is not None else describe.DEFAULT_VOCAB


@takes_settings
def describe_settings(session: Session | None, settings: PageSettings, *, timed: bool = True) -> str:
    """Markdown: the time estimate (when ``timed``: it may measure this machine's speed
    first), parameter count, memory estimate and tokens per step, or what is wrong."""
    session = ensure(session)
    lang = session.lang
    try:
        model_cfg, train_cfg = settings.configs(_vocab_size(session))
    except ConfigError as error:
        return t("**Check the settings:** {error}", lang, error=error_text(error, lang))
    summary = describe.settings_summary(model_cfg, train_cfg, lang,
                                        tokenizer_trained=session.tokenizer is not None)
    said = describe.estimate_text(model_cfg, train_cfg, lang, gpu_recipe=_gpu_recipe(settings)) \
        if timed else ""
    return f"{said}  \n{summary}" if said else summary


def show_device(session: Session | None) -> str:
    """On page load: the device line in the visitor's language."""
    return describe.device_line(ensure(session).lang)


# --- presets and time estimates -----------------------------------------------------------------

def matching_preset(settings: PageSettings) -> str | None:
    """The preset whose every setting the page holds now, or None (settings of one's own).

    >>> tiny = PageSettings.preset("tiny")
    >>> matching_preset(tiny), matching_preset(PageSettings({**tiny.values, "n_layer": 3}))
    ('tiny', None)
    """
    held = dict(settings.values)
    return next((name for name in PRESETS if PageSettings.preset(name).values == held), None)


def _gpu_recipe(settings: PageSettings) -> bool:
    name = matching_preset(settings)
    return name is not None and PRESETS[name].gpu_recipe


@takes_settings
def show_presets(session: Session | None, settings: PageSettings) -> tuple:
    """After the page loads (or its language changes): the preset menu with this machine's
    estimates in the visitor's language, the preset the settings match (None: one's own), its
    card, and the settings line with its estimate. Apart from the page load's own handler, so
    the page is written at once and the estimates follow (the first measures this machine)."""
    session = ensure(session)
    name = matching_preset(settings)
    return (gr.Radio(choices=describe.preset_choices(session.lang, _vocab_size(session)), value=name),
            describe.preset_card(name, session.lang), describe_settings(session, *settings.as_list()))


@takes_settings
def on_settings_change(session: Session | None, settings: PageSettings) -> tuple:
    """A setting changed (by hand, by a preset, by a shared link): (summary with the estimate,
    the preset choice, which clears when no preset matches any more, its card)."""
    session = ensure(session)
    name = matching_preset(settings)
    return (describe_settings(session, *settings.as_list()), gr.Radio(value=name),
            describe.preset_card(name, session.lang))


# --- training ---------------------------------------------------------------------------------

@friendly_errors
def reserve_run(session: Session | None) -> Session:
    """Refuse a second run, else mark one as pending (``runs.reserve``): the first half of the
    Compare tab's "one change", whose settings go to this tab before its run starts."""
    session = ensure(session)
    runs.reserve(session)
    return session


def release_run(session: Session | None) -> Session:
    """After a Start whose run never began (Gradio refused an input before ``train_model``
    ran, or the run was refused): the reservation goes, so Start works again at once."""
    session = ensure(session)
    runs.release(session)
    return session


@friendly_errors
@takes_settings
def check_start(session: Session | None, continue_training: bool, settings: PageSettings) -> None:
    """The first of Start's two events (not queued, no outputs): refuse a second run, else
    reserve one (``runs.reserve``) and make every check of it once, before it waits for its
    turn (``runs.check_run``). A refusal is a toast with our title (an event with no outputs
    leaves no red badge on any widget) and gives the reservation back. ``train_model`` takes
    the checked run (the API, calling it alone, gets the same checks there)."""
    session = ensure(session)
    runs.reserve(session)
    try:
        runs.check_run(session, settings, continue_=bool(continue_training),
                       preset=matching_preset(settings))
    except BaseException:
        runs.release(session)
        raise


@friendly_errors
def stop_training(session: Session | None) -> None:
    """Ask the session's run to stop after its current step (``RunState.request_stop``).

    The answer is a toast, not the status line: the run writes its own final status, and
    two events writing one line could arrive in either order.
    """
    session = ensure(session)
    if not session.run.request_stop():
        gr.Info(t("Nothing is training right now.", session.lang), title=t("Note", session.lang))
        return
    gr.Info(t("Stopping after the current step…", session.lang), title=t("Note", session.lang))


def warm_up() -> float:
    """Prepare the page's default run (the bundled corpus, the character tokenizer Start
    trains when there is none, the default preset) once, before visitors come
    (``prepare.warm_up``): seconds taken."""
    corpus = default_corpus()
    tokenizer = train_tokenizer("char", corpus.text)
    model_cfg, train_cfg = PageSettings.preset(DEFAULT_PRESET).configs(tokenizer.vocab_size)
    return prepare.warm_up(corpus, tokenizer, model_cfg, train_cfg)


def show_notice(notice: runs.Notice, lang: str) -> None:
    """A run's ``Notice`` as a toast in the visitor's language."""
    toast = gr.Warning if notice.warning else gr.Info
    toast(localize(notice.message, lang), title=localize(notice.title, lang))


@friendly_errors
@takes_settings
def train_model(session: Session | None, continue_training: bool, settings: PageSettings,
                request: gr.Request | None = None, *, chunk_seconds: float | None = None):
    """Train (or continue) a model with the settings (``runs.Run.events``), shown as it goes:
    streams (session, plot, status, samples, download button, coach notes). The run takes
    turns as one of its client network's (``guard.address_of`` the ``request``: Gradio's).
    ``chunk_seconds`` forces chunked runs (the ZeroGPU path) in tests.

    The settings are named parameters (``takes_settings``): ``/train_model`` over the API
    takes ``n_layer=4, max_steps=500``, the rest as the page's default preset. Each update is
    ``TRAINING``'s tuple, the outputs it leaves out unchanged."""
    session = ensure(session)
    lang = session.lang
    run = runs.start_run(session, settings, continue_=bool(continue_training),
                         chunk_seconds=chunk_seconds, preset=matching_preset(settings),
                         network=guard.address_of(request) if request is not None else None)
    samples, status, shown, waiting_since, tokens = "", "", "", None, 0
    on_cpu = ""  # the line saying the run went on on the CPU (zerogpu.OnCpu), under every line
    switched = None  # that OnCpu, whose step the last status names
    last_push, push_interval, last_eval, began, stepped = 0.0, 1 / PUSHES_PER_S, None, False, False
    with contextlib.closing(run.events()) as events:  # closed with the page: the run ends
        for event in events:
            now = time.monotonic()
            if isinstance(event, runs.Notice):
                show_notice(event, lang)
            elif isinstance(event, runs.Planned):
                samples = describe.no_samples_note(event.trained.train_config, lang)
                status = t("**Starting** on {name}…", lang,
                           name=localize(event.trained.corpus.name, lang))
                if event.timing is not None:
                    status += " " + t("About {time} in all.", lang,
                                      time=estimate.duration_text(event.timing.seconds, lang))
                # the plot and the coach keep the last run's until this one's first step
                yield TRAINING.only(session=session, status=status, samples=samples,
                                    download=gr.DownloadButton(visible=False))
            elif isinstance(event, runs.Started):
                session.attention, tokens, began = None, len(event.train_ids), True
                loss_panel.begin(session, event.trained.corpus, event.trained.tokenizer,
                                 event.train_ids, event.trained.model_config.vocab_size)
            elif isinstance(event, fairshare.Waiting):
                # said only when it changes, and by a run under way only after a longer wait than
                # its turns usually take: each update costs what the runs would train with
                line, waiting_since = describe.waiting_line(event, began, lang), waiting_since or now
                if line != shown and not (began and now - waiting_since < WAIT_NOTE_S):
                    shown = line
                    yield TRAINING.only(session=session, status=line, samples=samples)
                continue
            elif isinstance(event, zerogpu.OnCpu):  # ZeroGPU's quota is spent
                status, switched = status.removesuffix(on_cpu), switched or event
                on_cpu = "\n\n" + localize(event.message(), lang)
                status += on_cpu
                yield TRAINING.only(session=session, status=status, samples=samples)
            elif isinstance(event, EvalProgress):  # no record: the status line alone changes
                if now - last_push >= push_interval:
                    left = (run.timing.refined(run.trained.history, event.done / event.total).seconds
                            if run.timing else None)
                    last_push, shown = now, ""
                    yield TRAINING.only(session=session, samples=samples,
                                        status=describe.eval_line(event, left, lang))
            elif isinstance(event, (StepRecord, EvalRecord)):
                trained, first_step = run.trained, isinstance(event, StepRecord) and not stepped
                if isinstance(event, StepRecord):
                    stepped = True
                    left = run.timing.refined(trained.history).seconds if run.timing else None
                    status = describe.status_line(event, trained.train_config,
                                         trained.model_config.block_size, last_eval, lang,
                                         left) + on_cpu
                else:
                    last_eval = event
                    samples = (describe.sample_entry(event, lang) if event.sample else "") + samples
                    loss_panel.coach(session, trained.history, trained.model_config,
                                     trained.train_config, tokens)
                # the first step is shown at once: the visitor sees the run has begun
                if first_step or now - last_push >= push_interval:
                    figure = loss_panel.figure(session, trained.history)
                    built = time.monotonic()
                    # every run's updates together stay at PUSHES_PER_S a second: building and
                    # sending them takes the CPU the runs would train with
                    push_interval = max(next_push_interval(built - now),
                                        fairshare.MACHINE.runs() / PUSHES_PER_S)
                    last_push, shown = built, ""
                    yield TRAINING.only(session=session, plot=figure, status=status,
                                        samples=samples, coach=session.plot.coach)
            elif isinstance(event, runs.NotStarted):
                yield TRAINING.only(session=session, samples=samples, status=t(
                    "**Stopped** before it began: it was still waiting for its turn. Nothing "
                    "changed; press Start to try again.", lang))
            elif isinstance(event, runs.Finished):
                yield _finished(session, event, samples, tokens, lang, switched)
                if event.bundle_error is not None:  # a full disk: the model is here, no file
                    raise event.bundle_error  # (a toast: friendly_errors)
            waiting_since = None


def _finished(session: Session, done: runs.Finished, samples: str, tokens: int,
              lang: str, switched: zerogpu.OnCpu | None = None) -> tuple:
    """The last update of a run (``TRAINING``): its plot, how it ended (and where ZeroGPU's
    quota ran out, ``switched``), the download when there is a bundle, the coach's notes."""
    trained = done.trained
    status = describe.end_status(done.end, done.last_eval, lang, steps=trained.history,
                         meaning=_meaning(session, trained.history, trained.model_config,
                                          trained.corpus, trained.tokenizer, lang))
    if switched is not None:
        status += "\n\n" + localize(switched.ended_message(), lang)
    loss_panel.coach(session, trained.history, trained.model_config, trained.train_config,
                     tokens)
    saved = dict(download=gr.DownloadButton(value=done.bundle, visible=True)) if done.bundle else {}
    return TRAINING.only(session=session, plot=loss_panel.figure(session, trained.history),
                         status=status, samples=samples, **saved, coach=session.plot.coach)


def _meaning(session: Session, history: Sequence, model_cfg: ModelConfig, corpus, tokenizer,
             lang: str) -> str:
    """One sentence on what the run's latest loss means for its text (``loss_meaning``)."""
    latest = describe.latest_loss(history)
    if latest is None:
        return ""
    unigram = next((r.value for r in session.plot.references if r.key == "unigram"), None)
    return loss_meaning(latest[1], vocab_size=model_cfg.vocab_size, unigram=unigram,
                        shakespeare_char=is_tiny_shakespeare(corpus.source)
                        and tokenizer.kind == "char", lang=lang)


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
    bundle = session.trained = load_bundle(path)  # no corpus: a bundle does not carry its text
    bundle.model.train()
    # the bundle's text is not known here: no reference lines
    session.tokenizer, session.tokenizer_corpus = bundle.tokenizer, None
    session.attention = None
    session.plot.references = []
    step = bundle.step
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


@friendly_errors
def upload_bundle_from_page(session: Session | None, path: str | None, request: gr.Request):
    """``upload_bundle`` as the page calls it: the bundle is loaded only if this page uploaded
    it (``ui.session.uploaded_files``); any other path is refused, the session's model kept."""
    session = ensure(session)
    if path:
        (path,) = uploaded_files(session, [path], request)
    return upload_bundle(session, path)


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
    summary: gr.Markdown  # the estimate, parameter count and memory (``describe_settings``)
    device: gr.Markdown
    continue_training: gr.Checkbox
    plot: gr.Plot
    status: gr.Markdown
    outputs: list[gr.components.Component]  # what ``train_model`` streams to, session first
    preset: gr.Radio  # the preset choice (None: settings of one's own)
    card: gr.Markdown  # what the chosen preset is and writes (``describe.preset_card``)
    diagram: gr.HTML  # the model these settings build (drawn by the Inside tab's show_diagram)
    advanced: gr.Accordion  # every setting, in SECTIONS' accordions (a lesson may hide them)
    sections: list[gr.Accordion]  # one per section of SECTIONS, in its order
    upload: gr.File  # a model bundle, whose configs fill every setting


def build(session: gr.State, concurrency_limit: int) -> TrainTab:
    """The first screen (presets, Start/Stop, status, plot, samples), then the coach and the
    plot options, then every setting under Advanced."""
    gr.Markdown(tr("train_intro"), elem_id="train-intro")
    with gr.Row(equal_height=False, elem_id="train-first-screen"):
        with gr.Column(scale=2, min_width=300):
            # English and untimed until the page loads (show_presets): no probe at build
            preset = gr.Radio(describe.preset_choices(timed=False), value=DEFAULT_PRESET,
                              label=tr("preset"), info=tr("preset_info"), elem_id="preset-choice")
            with gr.Row():
                start = gr.Button(tr("start_button"), variant="primary", scale=2, min_width=120,
                                  elem_id="start-button")
                stop = gr.Button(tr("stop_button"), variant="stop", scale=1, min_width=80,
                                 elem_id="stop-button")
            status = gr.Markdown(tr("not_trained"), elem_id="train-status")
            summary = gr.Markdown(elem_id="train-estimate")
            download = gr.DownloadButton(tr("download_button"), visible=False, size="sm")
            continue_training = gr.Checkbox(False, label=tr("continue_training"),
                                            info=tr("continue_training_info"))
            card = gr.Markdown(describe.preset_card(DEFAULT_PRESET), elem_id="preset-card")
        with gr.Column(scale=3, min_width=300):
            plot = gr.Plot(label=tr("loss_plot"), value=loss_figure([]), elem_id="loss-plot")
            samples = gr.Textbox(label=tr("samples_label"), lines=5, max_lines=5,
                                 interactive=False, autoscroll=False, info=tr("samples_info"),
                                 elem_id="train-samples", elem_classes=["mono"])
    with gr.Row(equal_height=False):
        with gr.Column(scale=3):
            loss_panel.build_options(session, plot)
        with gr.Column(scale=2, min_width=260):
            coach = loss_panel.build_coach()
    device = gr.Markdown(describe.device_line(), elem_id="train-device")
    # the model the settings build, redrawn as they change (wired with the Inside tab's)
    with gr.Accordion(tr("inside_diagram_title"), open=False, elem_id="train-diagram-box"):
        gr.Markdown(tr("train_diagram_intro"))
        diagram = gr.HTML(elem_id="train-diagram")
    values = PageSettings.preset(DEFAULT_PRESET).values
    widgets: dict[str, gr.components.Component] = {}
    sections = []
    with gr.Accordion(tr("advanced"), open=False, elem_id="train-advanced") as advanced:
        gr.Markdown(tr("advanced_intro"))
        for section, names in SECTIONS.items():
            with gr.Accordion(tr(SECTION_KEYS[section]), open=True) as accordion:
                sections.append(accordion)
                for first in range(0, len(names), ROW_WIDTH):
                    with gr.Row(equal_height=False):
                        for name in names[first:first + ROW_WIDTH]:
                            widgets[name] = _widget(name, values[name])
        upload = gr.File(label=tr("upload_bundle"), file_types=[".zip"], type="filepath",
                         elem_id="upload-bundle")
    settings = [widgets[name] for name in SETTINGS]
    health_panel.build(session, plot, settings)

    preset.input(preset_values, preset, settings, api_visibility="private", queue=False)
    gr.on([w.change for w in settings], on_settings_change, [session, *settings],
          [summary, preset, card], concurrency_limit=None, trigger_mode="always_last",
          api_visibility="private", show_progress="hidden")
    # Start: reserve and check (a refusal is a toast, no badge), then train
    checked = start.click(check_start, [session, continue_training, *settings], None,
                          concurrency_limit=None, trigger_mode="multiple",
                          api_visibility="private", show_progress="hidden")
    outputs = TRAINING.widgets(session=session, plot=plot, status=status, samples=samples,
                               download=download, coach=coach)
    # runs take turns on the machine (fairshare), so many may be under way at once
    trained = checked.success(train_model, [session, continue_training, *settings], outputs,
                              concurrency_limit=hosting.max_runs(), concurrency_id="training",
                              show_progress_on=[status], api_name="train_model")
    trained.failure(release_run, session, session, concurrency_limit=None,
                    api_visibility="private", show_progress="hidden")
    stop.click(stop_training, session, None, concurrency_limit=None, api_name="stop_training",
               show_progress="hidden")
    upload.upload(fairshare.in_turns(upload_bundle_from_page), [session, upload],
                  [session, continue_training, plot, status, *settings],
                  concurrency_limit=concurrency_limit, concurrency_id="compute",  # server/guard.py
                  api_name="upload_bundle", show_progress="hidden")
    return TrainTab(settings=settings, summary=summary, device=device,
                    continue_training=continue_training, plot=plot, status=status,
                    outputs=outputs, preset=preset, card=card, diagram=diagram,
                    advanced=advanced, sections=sections, upload=upload)
