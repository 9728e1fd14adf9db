"""Step ×1 / ×10 / ×100 on the Inside tab, as plain function calls on a tiny model: steps taken
a few at a time give the weights of one straight run, each press refreshes the views and
writes a seeded sample, and refusals are a line of the view, never an exception. Then the
samples of each evaluation, side by side."""

import copy

import gradio as gr
import numpy as np
import pytest
import torch

from playground import describe
from playground.config import SampleConfig
from playground.generate import generate_text
from playground.insight.timeline import sample_rows
from playground.prepare import new_model, prepare_run
from playground.train import EndRecord, EvalRecord, StepRecord
from playground.ui import corpus_tab, inside_tab, tokenizer_tab, train_tab
from playground.ui.session import Session
from playground.settings import PageSettings

from checks import CJK, page_settings

SAMPLING = (0.8, 0, 1.0)  # the tab's temperature, top-k and top-p


def settings(*overrides, **changes):
    return page_settings(dict(seed=7, max_steps=111), *overrides, **changes)


@pytest.fixture
def session(tiny_text):
    """A visitor with a pasted text and its character tokenizer, and no model yet."""
    session, _, _ = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)
    tokenizer_tab.train_tokenizer_handler(session, "char", 320)
    return session


def press(session, steps, values, prompt="", view=None):
    """One press, run to its end: (every output it streamed, the last one)."""
    outs = list(inside_tab.step_model(session, view, steps, prompt, *SAMPLING, *values))
    return outs, outs[-1]


def straight(session, values):
    """The same run in one go, without the page: prepare_run and Trainer.run()."""
    model_cfg, train_cfg = PageSettings.from_list(values).configs(session.tokenizer.vocab_size)
    run = prepare_run(session.corpus, session.tokenizer, model_cfg, train_cfg)
    trainer = run.trainer()
    records = list(trainer.run())
    return run.trained.model, records


def losses(records):
    return ([r.loss for r in records if isinstance(r, StepRecord)],
            [(r.step, r.val_loss) for r in records if isinstance(r, EvalRecord)])


@pytest.mark.parametrize("variant", [dict(dropout=0.1), dict(optimizer="muon", rng_stream="nanogpt")],
                         ids=["adamw-dropout", "muon-nanogpt"])
def test_steps_of_1_10_100_give_the_weights_of_a_straight_111_step_run(session, variant):
    values = settings(variant, eval_interval=25)  # evaluations inside and at the end of presses
    for steps in (1, 10, 100):
        press(session, steps, values)
    stepped = session.trained
    assert stepped.trainer_state["step"] == 111
    model, records = straight(session, values)
    mine, theirs = stepped.model.state_dict(), model.state_dict()
    assert mine.keys() == theirs.keys()
    assert all(torch.equal(mine[name], theirs[name]) for name in mine)
    assert losses(stepped.history) == losses(records)  # every step's and evaluation's loss
    # each press ends in its own record: two pauses, then the end of all 111 steps
    assert [r.step for r in stepped.history if isinstance(r, EndRecord)] == [1, 11, 111]


def test_a_press_refreshes_the_views_and_writes_with_a_fixed_seed(session):
    outs, last = press(session, 10, settings())
    view, prompt, slider, status, sample, summary, vectors, attention, lens, distribution = last[:10]
    assert status.startswith("**Step 10** of 111: 10 more in ") and "Training loss" in status
    assert "Validation loss" in status and "at step 9." in status
    assert prompt == inside_tab.default_prompt(session) and sample.startswith(prompt)
    trained = session.trained
    expected = generate_text(trained.model, trained.tokenizer, prompt, SampleConfig(
        max_new_tokens=inside_tab.STEP_SAMPLE_TOKENS, temperature=SAMPLING[0],
        seed=inside_tab.STEP_SAMPLE_SEED))
    assert sample == prompt + expected
    assert view.forward is not None and slider.value == len(view.forward.tokens) - 1
    assert summary.startswith(f"**{len(view.forward.tokens)} tokens.**")
    assert all(figure is not None for figure in (vectors, attention, lens, distribution))
    assert last[11:] == ("", "", None, "")  # surprise and map: of the weights before the press
    # the bundle Export offers is this model, at this step
    assert trained.bundle_path.endswith("playground-model-step10.zip")
    # the next press starts from these weights and changes what the model says
    before = view.forward.logits.copy()
    _, again = press(session, 1, settings(), prompt, view)
    assert again[3].startswith("**Step 11** of 111: 1 more in ")
    assert not np.array_equal(again[0].forward.logits, before)
    assert not session.run.running and session.run.current is None


def test_while_a_press_trains_only_its_status_line_changes(session):
    outs, _ = press(session, 100, settings())
    during = outs[:-1]
    assert during, "a press of 100 steps said nothing while it trained"
    for out in during:
        assert out[3].startswith(("**Stepping:** step", "**Evaluating** the model"))
        assert all(value == gr.skip() for value in (out[1], out[2], *out[4:]))


def test_stepping_goes_on_from_a_trained_model_as_continue_training_does(session):
    list(train_tab.train_model(session, False, *settings(max_steps=6)))
    trained = session.trained
    # the run is done: the line says to raise max_steps, and nothing trains
    _, refused = press(session, 10, settings(max_steps=6))
    assert "already trained 6 steps. Set max_steps above 6" in refused[3]
    assert session.trained is trained
    state = {k: v.clone() for k, v in trained.model.state_dict().items()}
    reference = new_model(trained.model_config, 0)
    reference.load_state_dict(state)
    # a copy: the optimiser that continues takes the saved moments as they are and steps them
    saved = copy.deepcopy(trained.trainer_state)
    press(session, 10, settings(max_steps=20))
    assert session.trained.trainer_state["step"] == 16
    # the same 10 steps through the continue path directly
    _, train_cfg = PageSettings.from_list(settings(max_steps=20)).configs(
        trained.tokenizer.vocab_size)
    run = prepare_run(session.corpus, trained.tokenizer, trained.model_config, train_cfg,
                      model=reference, trainer_state=saved)
    list(run.trainer().run(max_steps=10))
    mine = session.trained.model.state_dict()
    assert all(torch.equal(mine[k], v) for k, v in reference.state_dict().items())


def test_stop_ends_a_press_early_and_keeps_its_model(session):
    steps = inside_tab.step_model(session, None, 100, "", *SAMPLING, *settings())
    first = next(steps)
    assert session.run.running and first[3]
    train_tab.stop_training(session)
    *_, last = steps
    assert last[3].startswith("**Stopped.** Stopped at step")
    step = session.trained.trainer_state["step"]
    assert 0 <= step < 100 and not session.run.running
    assert last[0].forward is not None  # the views still show the model as it stopped


def test_refusals_are_a_line_of_the_view(session):
    session.run.running = True
    (out,) = press(session, 1, settings())[0]
    assert out[3].startswith("A training run is going") and session.trained is None
    session.run.running = False
    (out,) = press(session, 1, settings(n_embd=16, n_head=3))[0]
    assert out[3].startswith("**Cannot do that yet:**") and "n_embd=16" in out[3]
    assert session.trained is None
    chinese = Session(lang="zh-CN")
    (out,) = press(chinese, 1, settings(n_embd=16, n_head=3))[0]
    assert CJK.search(out[3])


def test_each_evaluation_samples_from_the_same_start_with_the_same_seed(session):
    """Part 7: the trainer's sample at an evaluation is the model's text from no prompt with
    the run's seed; so the table's rows differ only by the weights."""
    values = settings(sample_tokens=24, eval_interval=5)
    model_cfg, train_cfg = PageSettings.from_list(values).configs(session.tokenizer.vocab_size)
    fresh = new_model(model_cfg, train_cfg.seed)  # the weights the run starts from
    press(session, 10, values)
    trained = session.trained
    rows = sample_rows(trained.history)
    assert [row.step for row in rows] == [0, 5, 10]

    def written(model):
        return generate_text(model, trained.tokenizer, "",
                             SampleConfig(max_new_tokens=24, seed=train_cfg.seed))

    assert rows[0].sample == written(fresh)  # step 0: before any training
    assert rows[-1].sample == written(trained.model)  # step 10: the weights now
    page = inside_tab.show_timeline(trained, "en")
    assert page.count('<tr class="timeline-row"') == 3
    # the tab shows them when it opens, with the model's step
    out = inside_tab.on_open(session, None, "", "", 0, *SAMPLING, *values)
    assert out[-1] == page and out[-2].startswith("**Step 10** of 111")


def test_the_timeline_says_why_it_is_empty(session):
    assert "There is no model to look inside yet" in inside_tab.show_timeline(None, "en")
    press(session, 1, settings(sample_tokens=0))
    assert "writes no samples" in inside_tab.show_timeline(session.trained, "en")
    assert describe.model_step_line(Session().trained).startswith("No model yet: Step ×1 starts one")
