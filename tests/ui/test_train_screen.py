"""The training tab's first screen: presets with estimates, the stale-preset rule, refusals as
toasts, evaluation progress, what the end of a run says, and how the tab is laid out and wired.

The machine's speed is a fixed ``Speed`` here (monkeypatched), so every estimate is exact."""

import dataclasses
from urllib.parse import parse_qsl

import gradio as gr
import pytest

from playground import describe, estimate, runs
from playground.config import DEFAULT_PRESET, PRESETS
from playground.i18n import t
from playground.insight.coach import loss_meaning
from playground.runtime import hosting
from playground.runtime.hosting import Hosting
from playground.train import EvalRecord, StepRecord
from playground.ui import corpus_tab, export_tab, train_tab
from playground.ui.app import build_demo, toast_title_css
from playground.ui.session import Session
from playground.settings import PageSettings

from checks import CJK, page_settings

SPEED = estimate.Speed(flops_per_s=2e10, overhead_s=0.002)


@pytest.fixture(autouse=True)
def fixed_speed(monkeypatch):
    """Every estimate at SPEED: no probe, and the same numbers on any machine."""
    monkeypatch.setattr(train_tab.estimate, "run_speed", lambda model, train: SPEED)
    hosting.use(Hosting())  # the warning limit a host leaves alone: 10 minutes


def preset(name, **changes):
    """A preset's widget values, with some settings changed (as a visitor would type them)."""
    return PageSettings({**PageSettings.preset(name).values, **changes}).as_list()


def seconds(name, vocab=65):
    model_cfg, train_cfg = PageSettings.preset(name).configs(vocab)
    return estimate.estimate_run(model_cfg, train_cfg, SPEED).seconds


def toasts(monkeypatch):
    said = []
    monkeypatch.setattr(train_tab.gr, "Warning", lambda message, **kw: said.append(
        (message, kw.get("title"))))
    return said


# --- presets and estimates ----------------------------------------------------------------------

def test_each_preset_says_its_time_here_and_the_loss_it_reaches():
    choices = describe.preset_choices("en")
    assert [name for _, name in choices] == list(PRESETS)
    for label, name in choices:
        took = estimate.duration_text(seconds(name))
        p = PRESETS[name]
        expected = (f"a GPU recipe: about {took} here" if p.gpu_recipe else f"about {took} here")
        assert label.startswith(f"{name} · {expected}"), label
        if p.expected_val_loss is not None:
            assert label.endswith(f" · loss {p.expected_val_loss:.2f}")
    chinese = dict((name, label) for label, name in describe.preset_choices("zh-CN"))
    assert f"这里约需 {estimate.duration_text(seconds('tiny'), 'zh-CN')}" in chinese["tiny"]


def test_the_card_shows_what_the_preset_writes_at_its_loss(monkeypatch):
    name = "tiny"  # with a sample of its own, as the measured presets carry
    monkeypatch.setitem(PRESETS, name, dataclasses.replace(
        PRESETS[name], expected_val_loss=1.93, looks_like="ROMEO:\nWhat say you to my love?"))
    p = PRESETS[name]
    card = describe.preset_card(name)
    assert card.startswith(f"**{name}**: {p.description}")
    assert f"about **{p.expected_val_loss:.2f}**" in card
    assert loss_meaning(p.expected_val_loss, vocab_size=65, shakespeare_char=True) in card
    assert f"```text\n{p.looks_like}\n```" in card  # monospace, as the model wrote it
    chinese = describe.preset_card(name, "zh-CN")
    assert CJK.search(chinese.split("```")[0]) and p.looks_like in chinese
    assert describe.preset_card(None).startswith("**Your own settings.**")


def test_the_settings_line_gives_the_estimate_first():
    session = Session()
    line = train_tab.describe_settings(session, *preset("tiny"))
    took = estimate.duration_text(seconds("tiny"))
    assert line.startswith(f"**About {took}** on this machine.  \n**")
    assert "parameters** (vocabulary 65 until" in line
    session.lang = "zh-CN"
    assert train_tab.describe_settings(session, *preset("tiny")).startswith(
        f"在这台机器上 **大约需要 {estimate.duration_text(seconds('tiny'), 'zh-CN')}**。")


def test_a_long_run_is_warned_about_with_the_limit_from_the_environment(monkeypatch):
    took = seconds("tiny")
    hosting.use(Hosting.from_env({"PLAYGROUND_LONG_RUN_S": str(int(took // 2))}))
    line = train_tab.describe_settings(Session(), *preset("tiny"))
    assert line.startswith(f"⚠️ **About {estimate.duration_text(took)}** on this machine: longer "
                           f"than {estimate.duration_text(took // 2)}.")
    assert "max_steps" in line and "Stop keeps the model" in line


def test_a_gpu_recipe_on_a_cpu_says_so_plainly(monkeypatch):
    gpu = next(n for n, p in PRESETS.items() if p.gpu_recipe)
    monkeypatch.setattr(runs, "on_cpu", lambda cfg: True)  # whatever this machine has
    line = train_tab.describe_settings(Session(), *preset(gpu))
    took = estimate.duration_text(seconds(gpu))
    assert line.startswith(f"⚠️ **A GPU recipe:** on this machine's CPU it would take about {took}.")
    assert f"({DEFAULT_PRESET}, for one)" in line
    # the same settings changed by one value are no longer the GPU recipe, only a long run
    changed = train_tab.describe_settings(Session(), *preset(gpu, seed=7))
    assert not changed.startswith("⚠️ **A GPU recipe") and "longer than 10 min" in changed


def test_on_zerogpu_the_quota_it_costs_instead_of_this_machines_estimate(monkeypatch):
    """No estimate of this machine (its CPU does not train there), but what the run costs
    of the visitor's daily GPU quota (tests/runtime/test_zerogpu_space.py says more)."""
    hosting.use(Hosting(on_zero_gpu=True))
    line = train_tab.describe_settings(Session(), *preset("tiny"))
    assert line.startswith("**About ") and "of your daily ZeroGPU time**" in line
    assert "on this machine" not in line


# --- no stale preset name -----------------------------------------------------------------------

def test_a_changed_setting_clears_the_preset_and_a_preset_value_brings_it_back():
    session = Session()
    summary, choice, card = train_tab.on_settings_change(session, *preset("tiny", n_layer=3))
    assert choice.value is None and card.startswith("**Your own settings.**")
    assert "parameters**" in summary
    _, choice, card = train_tab.on_settings_change(session, *preset("tiny"))
    assert choice.value == "tiny" and card.startswith("**tiny**")
    # widget values arrive as floats for whole numbers: still the preset
    floats = {k: float(v) for k, v in PageSettings.preset("tiny").values.items()
              if isinstance(v, int) and not isinstance(v, bool)}
    assert train_tab.matching_preset(PageSettings({**PageSettings.preset("tiny").values,
                                                   **floats})) == "tiny"


def test_a_shared_link_shows_the_preset_it_holds_or_none():
    request = gr.Request(headers={"referer": "http://127.0.0.1:7860/"})
    for values, expected in [(preset("tiny"), "tiny"), (preset("tiny", lr=0.002), None)]:
        link = export_tab.make_link(request, "Tiny Shakespeare", "char", 512, *values)
        query = dict(parse_qsl(link.split("?", 1)[1]))
        restored = export_tab.restore_from_link(Session(), gr.Request(query_params=query))
        settings = restored[4:4 + len(train_tab.SETTINGS)]
        assert train_tab.on_settings_change(Session(), *settings)[1].value == expected
        assert train_tab.show_presets(Session(), *settings)[0].value == expected


# --- refusals: toasts, no badge -----------------------------------------------------------------

def test_check_start_refuses_an_out_of_range_value_naming_the_setting(ready):
    with pytest.raises(gr.Error) as refused:
        train_tab.check_start(ready, False, *page_settings(lr=-1))
    assert refused.value.message == "lr must be between 1e-08 and 10, got -1."
    ready.lang = "zh-CN"
    with pytest.raises(gr.Error) as refused:
        train_tab.check_start(ready, False, *page_settings(max_steps=0))
    assert "max_steps" in refused.value.message and CJK.search(refused.value.message)
    assert train_tab.check_start(ready, False, *page_settings()) is None
    assert ready.trained is None and ready.run.running is False  # nothing started...
    assert ready.run.pending  # ...the run reserved for train_model (Start's second event)
    train_tab.release_run(ready)
    assert ready.run.pending is False and ready.run.checked is None  # and nothing held


def test_check_start_refuses_what_train_model_would(ready):
    with pytest.raises(gr.Error, match="no model to continue training"):
        train_tab.check_start(ready, True, *page_settings())
    with pytest.raises(gr.Error, match="of memory to train, but only"):
        train_tab.check_start(ready, False, *page_settings(n_layer=256, n_embd=65536, n_head=256,
                                                           block_size=65536, batch_size=65536))
    corpus_tab.use_corpus(ready, "Paste text", None, "A different text, long enough. " * 20)
    with pytest.raises(gr.Error, match="Train the tokenizer again"):
        train_tab.check_start(ready, False, *page_settings())
    # without a tokenizer the default character one is assumed: no refusal
    assert train_tab.check_start(Session(), False, *page_settings()) is None


def test_start_is_wired_so_a_refusal_leaves_no_badge():
    """check_start (reserves, checks; no outputs, no progress) -> train_model (its queue
    position on the status line only); every failure releases the reservation."""
    demo = build_demo()
    fns = {fn.name: fn for fn in demo.fns.values()}
    check = fns["check_start"]
    assert check.outputs == [] and check.show_progress == "hidden"
    assert check.trigger_mode == "multiple"  # a second click is refused, not dropped
    train = fns["train_model"]
    assert [b.elem_id for b in train.show_progress_on] == ["train-status"]
    releases = [fn for fn in demo.fns.values() if fn.name == "release_run"]
    assert len(releases) >= 2 and all(fn.show_progress == "hidden" for fn in releases)
    assert fns["upload_bundle_from_page"].show_progress == "hidden"
    assert fns["on_settings_change"].show_progress == "hidden"


def test_toasts_are_headed_in_the_pages_language():
    css = toast_title_css()
    for kind, title in (("error", "Cannot do that yet"), ("warning", "Warning"), ("info", "Note")):
        assert f'.toast-title.{kind}::before {{ content: "{title}"; }}' in css
        assert f'html[lang^="zh"] .toast-title.{kind}::before {{ content: "{t(title, "zh-CN")}"; }}' in css


# --- during the run -----------------------------------------------------------------------------

def test_evaluations_say_how_far_they_are_and_the_start_toast_warns_a_long_run(ready, monkeypatch):
    said = toasts(monkeypatch)
    hosting.use(Hosting(long_run_s=1e-6))
    monkeypatch.setattr(train_tab, "PUSHES_PER_S", 10**9)  # every update is pushed
    monkeypatch.setattr(train_tab, "next_push_interval", lambda seconds: 0.0)
    updates = list(train_tab.train_model(ready, False, *page_settings(eval_iters=4)))
    statuses = [u[2] for u in updates if isinstance(u[2], str)]
    evaluating = [s for s in statuses if s.startswith("**Evaluating**")]
    assert "**Evaluating** the model at step 0: 1 / 8 batches · about " in evaluating[0]
    assert any(s.startswith("**Evaluating** the model at step 3: 8 / 8 batches") for s in evaluating)
    assert statuses[0].startswith("**Starting**") and " About " in statuses[0]
    assert [title for _, title in said] == ["Long run"]
    assert said[0][0].startswith("This run may take about ")
    # an evaluation's update changes the status line alone
    during = next(u for u in updates if isinstance(u[2], str) and u[2].startswith("**Evaluating**"))
    assert during[1] is gr.skip() or isinstance(during[1], type(gr.skip()))


def test_the_first_step_is_shown_at_once_then_updates_are_spaced(ready, monkeypatch):
    # pushes spaced far apart: only the first step's (and the end) get through; before, a
    # visitor waited a whole push interval (several seconds with a class training) to see
    # that the run had begun
    monkeypatch.setattr(train_tab, "PUSHES_PER_S", 1e-9)
    monkeypatch.setattr(train_tab, "next_push_interval", lambda seconds: 1e9)
    updates = list(train_tab.train_model(ready, False, *page_settings(max_steps=6)))
    statuses = [u[2] for u in updates if isinstance(u[2], str)]
    training = [s for s in statuses if s.startswith("**Training:**")]
    assert len(training) == 1 and training[0].startswith("**Training:** step 1 / 6 "), statuses
    assert statuses[-1].startswith("**Done.**")


def test_a_gpu_recipe_started_on_a_cpu_gets_its_toast(ready, monkeypatch):
    said = toasts(monkeypatch)
    gpu = next(n for n, p in PRESETS.items() if p.gpu_recipe)
    monkeypatch.setattr(runs, "on_cpu", lambda cfg: True)
    small = dict(zip(train_tab.SETTINGS, preset(gpu)))
    monkeypatch.setattr(train_tab, "matching_preset", lambda settings: gpu)
    run = train_tab.train_model(ready, False, *[
        {**small, **dict(n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4,
                         eval_iters=1, max_steps=2, device="cpu", dtype="float32")}[k]
        for k in train_tab.SETTINGS])
    list(run)
    assert said and said[0][0].startswith(f"{gpu} is a GPU recipe: on this machine's CPU")


def test_samples_newest_first_and_a_run_without_samples_says_so(ready):
    *_, (session, _, _, samples, _, _) = list(train_tab.train_model(
        ready, False, *page_settings(sample_tokens=8)))
    steps = [line for line in samples.splitlines() if line.startswith("── step")]
    assert [s.split(" · ")[0] for s in steps] == ["── step 6", "── step 3", "── step 0"]
    *_, (_, _, _, none, _, _) = list(train_tab.train_model(ready, False, *page_settings()))
    assert none.startswith("This run writes no samples while it trains")


# --- the end of a run ---------------------------------------------------------------------------

def test_a_stop_with_no_evaluation_since_reports_the_training_loss(ready):
    run = train_tab.train_model(ready, False, *page_settings(max_steps=100_000,
                                                            eval_interval=100_000))
    for _ in run:  # until a dozen steps are done, then Stop
        history = ready.trained.history if ready.trained is not None else []  # none before step 1
        if sum(isinstance(r, StepRecord) for r in history) >= 12:
            train_tab.stop_training(ready)
            break
    *_, (session, _, status, *_) = list(run)
    steps = [r for r in session.trained.history if isinstance(r, StepRecord)]
    recent = sum(r.loss for r in steps[-10:]) / len(steps[-10:])
    assert status.startswith("**Stopped.** Stopped at step")
    assert (f"Recent training loss {recent:.3f} at step {steps[-1].step:,} (no evaluation "
            f"since step 0).") in status
    assert "Last validation loss" not in status  # not the step-0 loss of a random guess
    assert loss_meaning(recent, vocab_size=ready.tokenizer.vocab_size,
                        unigram=ready.plot.references[1].value) in status


def test_a_finished_run_says_what_its_loss_means_and_the_coach_what_to_try(ready):
    *_, (session, figure, status, _, _, coach) = list(train_tab.train_model(
        ready, False, *page_settings()))
    last = [r for r in session.trained.history if isinstance(r, EvalRecord)][-1]
    meaning = loss_meaning(last.val_loss, vocab_size=ready.tokenizer.vocab_size,
                           unigram=ready.plot.references[1].value)
    assert f"Last validation loss {last.val_loss:.3f} at step 6" in status and meaning in status
    assert status.endswith(meaning + " The model is ready: try the Generate and Attention tabs, "
                           "or download it below.")
    assert "Nothing to flag" not in coach and "**Seen:** The validation loss fell from" in coach
    # reference lines are on from the first run, in plain words
    names = [trace.name for trace in figure.data]
    assert names[2].startswith("guessing letters at random (")
    assert names[3].startswith("knowing only letter frequencies (")


# --- the layout -----------------------------------------------------------------------------------

def _descendants(block):
    for child in getattr(block, "children", []):
        yield child
        yield from _descendants(child)


def test_every_setting_is_under_advanced_and_a_handful_of_controls_come_before():
    demo = build_demo()
    blocks = list(demo.blocks.values())
    advanced = next(b for b in blocks if getattr(b, "elem_id", None) == "train-advanced")
    inside = {id(b) for b in _descendants(advanced)}
    tab = next(b for b in blocks if type(b).__name__ == "Tab" and b.id == "train")
    fns = {fn.name: fn for fn in demo.fns.values()}
    settings = fns["train_model"].inputs[2:]
    assert len(settings) == len(train_tab.SETTINGS)
    assert all(id(w) in inside for w in settings)
    controls = [b for b in _descendants(tab) if id(b) not in inside
                and isinstance(b, (gr.Button, gr.Radio, gr.Checkbox, gr.Dropdown, gr.Number,
                                   gr.Slider, gr.File))
                and not isinstance(b, gr.DownloadButton)]
    ids = [b.elem_id for b in controls]
    # the preset choice, Start, Stop, 'continue training', and the plot's two view options
    assert ids[:3] == ["preset-choice", "start-button", "stop-button"] and len(controls) <= 6, ids
    assert advanced.open is False
