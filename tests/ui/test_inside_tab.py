"""The Inside tab's and the health panel's handlers as plain functions, on a tiny model: every
answer is a view or a line in the view, never an exception, and redraws never run the model."""

import csv

import gradio as gr
import pytest

from playground.insight.lens import shaped_probs
from playground.insight.surprise import surprise
from playground.model import GPT
from playground.train import EndRecord, StepRecord
from playground.ui import corpus_tab, health_panel, inside_tab, tokenizer_tab, train_tab
from playground.ui.session import Session

from checks import CJK, TINY, page_settings


def settings(**changes):
    return page_settings(dict(seed=7), **changes)


@pytest.fixture(params=["char", "bpe"])
def trained(request, tiny_text):
    """A session whose model trained a few steps on a pasted text, with either tokenizer."""
    session, _, _ = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)
    tokenizer_tab.train_tokenizer_handler(session, request.param, 320)
    list(train_tab.train_model(session, False, *settings()))
    return session


def forward(session, view=None, text="", sampling=(1.0, 0, 1.0)):
    return inside_tab.run_forward(session, view, text, *sampling)


def test_the_diagram_follows_the_settings_before_anything_is_trained():
    one = inside_tab.show_diagram(None, *settings(n_layer=1))
    three = inside_tab.show_diagram(None, *settings(n_layer=3))
    assert "Block × 1" in one and "Block × 3" in three
    assert "(post-norm)" in inside_tab.show_diagram(None, *settings(norm_placement="post"))
    refused = inside_tab.show_diagram(None, *settings(n_embd=16, n_head=3))
    assert refused.startswith("**Check the settings:**") and "n_embd=16" in refused
    chinese = Session(lang="zh-CN")
    assert CJK.search(inside_tab.show_diagram(chinese, *settings()))


def test_the_training_tab_shows_the_same_diagram_on_load_and_as_the_settings_change():
    from playground.ui.app import build_demo

    inside, train = inside_tab.show_diagrams(None, *settings(n_layer=2))
    assert inside == train and "Block × 2" in train
    demo = build_demo()
    box = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "train-diagram")
    # drawn when the page loads and when any setting changes
    fills = [fn for fn in demo.fns.values() if box in fn.outputs]
    assert {fn.fn.__name__ for fn in fills} == {"show_diagram", "show_diagrams"}
    assert any(len(fn.targets) == len(train_tab.SETTINGS) for fn in fills)


def test_without_a_model_or_during_a_run_each_view_says_so_in_its_line():
    session = Session()
    out = forward(session)
    assert "no model to look inside yet" in out[3] and out[4] == gr.skip()
    assert "no model to look inside yet" in inside_tab.run_surprise(session, None, "abc")[3]
    assert "no model to look inside yet" in inside_tab.run_embedding_map(session, None)[2]
    assert inside_tab.move_position(session, None, 0, 1.0, 0, 1.0) == (gr.skip(),) * 5


def test_a_run_going_keeps_the_views_waiting(trained):
    trained.run.running = True
    assert "A run is training this model right now" in forward(trained)[3]
    assert "A run is training" in inside_tab.run_embedding_map(trained, None)[2]


def test_the_forward_pass_then_positions_and_temperature_redraw_without_the_model(trained, monkeypatch):
    view, text, slider, summary, vectors, attention, lens, distribution = forward(trained)
    assert text == inside_tab.default_prompt(trained) and text
    last = len(view.forward.tokens) - 1
    assert slider.value == last and slider.maximum == last
    assert summary.startswith(f"**{last + 1} tokens.** Position {last} is")
    assert len(lens.layout.yaxis.ticktext) == trained.trained.model_config.n_layer + 1

    def refuse(*args, **kwargs):
        raise AssertionError("a redraw ran the model")

    monkeypatch.setattr(GPT, "forward", refuse)
    summary, *figures = inside_tab.move_position(trained, view, 0, 1.0, 0, 1.0)
    assert "Position 0 is" in summary and len(figures) == 4
    figure, line = inside_tab.reshape(trained, view, 0, 0.5, 3, 1.0)
    expected = shaped_probs(view.forward.logits[0], 0.5, 3, 1.0)
    assert sorted(figure.data[1].x, reverse=True) == pytest.approx(sorted(expected, reverse=True)[:10])
    assert line.startswith("Temperature 0.5: the likeliest token")
    # sliders sent out of range by an API caller are held to the sampler's ranges
    assert inside_tab.reshape(trained, view, 0, 99, -5, 7)[1].startswith("Temperature 2:")


def test_a_text_the_tokenizer_cannot_read_is_said_in_the_line(trained):
    if trained.trained.tokenizer.kind != "char":
        pytest.skip("byte-level BPE reads any text")
    out = forward(trained, text="猫")
    assert out[3].startswith("**Cannot do that yet:**") and out[4] == gr.skip()


def test_surprise_on_the_validation_text_and_its_mean(trained):
    view, text, page, summary = inside_tab.run_surprise(trained, None, "")
    assert text == inside_tab.validation_text(trained) and text in trained.corpus.text
    expected = surprise(trained.trained.model, trained.trained.tokenizer, text)
    assert f"**Mean surprise: {expected.mean:.3f} nats per token**" in summary
    assert "The last evaluation's validation loss was" in summary and "Most surprising:" in summary
    assert page.count("<span title=") == len(expected.losses) + 1


def test_the_embedding_map_orders_tokens_by_the_corpus_and_after_an_upload_by_id(trained):
    view, figure, caption = inside_tab.run_embedding_map(trained, None)
    assert view.counted and sum(len(trace.x) for trace in figure.data) == len(view.embedding.tokens)
    assert "tokens are shown" in caption
    path = trained.trained.bundle_path
    train_tab.upload_bundle(trained, path)  # a bundle carries no corpus: no counts
    view, figure, caption = inside_tab.run_embedding_map(trained, view)
    assert not view.counted and view.embedding.token_ids[:3] == [0, 1, 2]
    assert forward(trained)[4] is not gr.skip()


def test_opening_the_tab_redraws_in_the_page_language_and_drops_stale_views(trained):
    view = forward(trained)[0]
    view = inside_tab.run_surprise(trained, view, "")[0]
    trained.lang = "zh-CN"
    out = inside_tab.on_open(trained, view, "", "", 0, 1.0, 0, 1.0, *settings())
    assert out[0] is view and CJK.search(out[1]) and CJK.search(out[4])
    assert CJK.search(out[5].to_json()) and CJK.search(out[10])
    assert out[11] == gr.skip()  # no map drawn yet: nothing to redraw
    list(train_tab.train_model(trained, False, *settings()))  # a new model: the views go
    out = inside_tab.on_open(trained, view, "old prompt", "old text", 0, 1.0, 0, 1.0, *settings())
    assert out[0] is not view and out[0].forward is None
    assert out[2] == inside_tab.default_prompt(trained) and out[5] is None and out[9] == ""
    assert inside_tab.move_position(trained, view, 0, 1.0, 0, 1.0) == (gr.skip(),) * 5


def test_the_health_plots_plan_before_start_and_follow_the_run(trained):
    fresh = Session()
    figure, button = health_panel.redraw(fresh, None)
    drawn = [t.name for t in figure.data if len(t.x)]  # before Start: the plan and the threshold
    assert drawn == ["clipping threshold (grad_clip 1)", "planned"] and not button.visible
    figure, button = health_panel.redraw(trained, None)
    steps = [r for r in trained.trained.history if isinstance(r, StepRecord)]
    norms = next(t for t in figure.data if t.name == "gradient norm")
    assert list(norms.y) == [r.grad_norm for r in steps]
    assert button.visible
    with open(button.value["path"], newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [float(row["grad_norm"]) for row in rows if row["kind"] == "step"] == list(norms.y)
    # during a run: at most one redraw a second, the run's own schedule, no CSV yet
    trained.run.running = True
    trained.trained.history = [r for r in trained.trained.history if not isinstance(r, EndRecord)]
    state, figure, button = health_panel.on_change(trained, None, *settings(max_steps=999))
    assert figure.data and not button.visible
    planned = next(t for t in figure.data if t.name == "planned")
    assert planned.x[-1] == trained.trained.train_config.max_steps
    assert health_panel.on_change(trained, state, *settings())[1:] == (gr.skip(), gr.skip())


def test_the_session_model_holds_the_live_records_while_a_run_goes(tiny_text, monkeypatch):
    # a push after every record: a tiny run ends within the 0.25 s between two pushes
    monkeypatch.setattr(train_tab, "PUSHES_PER_S", 10**6)
    monkeypatch.setattr(train_tab, "next_push_interval", lambda build_seconds: 0.0)
    session, _, _ = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)
    # (the session holds the run's model from its first step on: none before it)
    seen = [len(session.trained.history) if session.trained is not None else 0
            for _ in train_tab.train_model(session, False, *settings(max_steps=TINY["max_steps"]))]
    assert any(0 < n < seen[-1] for n in seen[:-1])  # a live update, before the end, sees records
