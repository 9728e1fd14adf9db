"""A toy task on the page, handler by handler: the Corpus tab sets the task and its preset,
a run reports accuracy, the Attention tab opens on a held-out problem with its cells marked
and names a measured head, and the Inside tab steps through one head's arithmetic."""

import pytest

from playground.tasks import TASKS
from playground.ui import attention_tab, corpus_tab, inside_tab, tokenizer_tab, train_tab
from playground.settings import PageSettings

from checks import CJK


@pytest.fixture(scope="module")
def session():
    session, summary, preview, note, *settings = corpus_tab.use_task(None, "reverse")
    preset = TASKS["reverse"].preset
    assert settings == PageSettings.from_configs(preset.model, preset.train).as_list()
    assert session.corpus.source == "task" and "reverse" in summary and ">" in preview
    assert "anti-diagonal" in note and preset.name in note
    tokenizer_tab.train_tokenizer_handler(session, "char", 320)
    values = dict(zip(train_tab.SETTINGS, settings), max_steps=4, eval_interval=2)
    list(train_tab.train_model(session, False, *[values[k] for k in train_tab.SETTINGS]))
    return session


def test_a_task_run_reports_accuracy_at_each_evaluation(session):
    accuracies = [r.accuracy for r in session.trained.history if r.kind == "eval"]
    assert len(accuracies) == 3 and all(0.0 <= a <= 1.0 for a in accuracies)


def test_the_attention_tab_opens_on_a_held_out_problem_with_its_cells_marked(session):
    _, text, layer, head, heatmap, _, summary = attention_tab.show_attention(session, "", 0, 0)
    question, answer = text[1:].split(">")
    assert (question, answer) in TASKS["reverse"].held_out()
    marks = heatmap.data[-1]
    assert marks.mode == "markers" and list(marks.x) == [len(question) - i for i in range(len(answer))]
    assert "anti-diagonal" in summary and f"layer {layer.value} head {head.value}" in summary


def test_the_inside_tab_steps_through_one_heads_arithmetic(session):
    index, layer, head, shown = inside_tab.show_head_step(session, "", 3, None, None, -1, 1)
    assert index == 0 and "1. The query" in shown and "step 1 of" in shown
    index, *_, shown = inside_tab.show_head_step(session, "", 3, layer, head, index, 1)
    assert index == 1 and "2. The keys" in shown
    assert inside_tab.show_head_step(session, "", 3, layer, head, 0, -1)[0] == 0
    last = inside_tab.show_head_step(session, "", 3, layer, head, 99, 1)
    assert "residual stream" in last[-1]
    session.lang = "zh-CN"
    try:
        assert CJK.search(inside_tab.show_head_step(session, "", 3, layer, head, 0, 0)[-1])
    finally:
        session.lang = "en"
