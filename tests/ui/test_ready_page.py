"""A first visit: the page's session falls back on a ready-made model (``playground.ready``),
so Generate, Attention and Inside work before anything is trained, and the page says what it
is and how to train one's own."""

import gradio as gr
import pytest

from playground import describe
from playground.ui import attention_tab, corpus_tab, export_tab, generate_tab, inside_tab
from playground.i18n.labels import EN, ZH_CN
from playground.ui.session import new_session

from checks import CJK, page_settings


def drain(generator):
    return list(generator)


def test_a_new_page_session_starts_with_the_quick_model_loaded_on_first_need():
    session = new_session()
    assert session.ready == "quick" and session.trained is None  # nothing loaded at start
    *_, (session, text, _) = drain(generate_tab.generate_text(session, "ROMEO:", 40, 0.8, 0, 1.0, 1))
    assert text.startswith("ROMEO:") and len(text) > len("ROMEO:")
    assert session.trained.ready_made == "quick"
    out = attention_tab.show_attention(session, "", 0, 0)
    assert out[1] == attention_tab.default_text(session) and len(out[1]) > 0
    assert session.attention.weights.shape[:2] == (3, 4)
    # export asks for one's own model, and says why, in both languages
    with pytest.raises(gr.Error, match="ready-made one that comes with the playground"):
        export_tab.make_script(session)
    session.lang = "zh-CN"
    with pytest.raises(gr.Error, match="现成模型"):
        export_tab.make_script(session)


def test_the_inside_tab_opens_on_the_ready_model_and_step_starts_ones_own():
    session = new_session()
    out = inside_tab.on_open(session, None, "", "", 0, 1.0, 0, 1.0, *page_settings())
    assert session.trained.ready_made == "quick" and out[2]  # a prompt from its corpus
    assert out[-2].startswith("This is the ready-made model (the quick preset")
    assert "timeline-row" in out[-1]  # the samples of its own training run
    fp = inside_tab.run_forward(session, None, "", 1.0, 0, 1.0)
    assert fp[0].forward is not None and "tokens." in fp[3]
    session.lang = "zh-CN"
    assert CJK.search(describe.model_step_line(session.trained, session.lang))
    session.lang = "en"
    *_, last = drain(inside_tab.step_model(session, None, 1, "", 1.0, 0, 1.0, *page_settings()))
    assert last[3].startswith("**Step 1** of 6")  # a model of its own, from the tiny settings
    assert not session.trained.ready_made


def test_choosing_a_toy_task_brings_its_ready_model():
    session = new_session()
    _, _, _, note, *_ = corpus_tab.use_task(session, "reverse")
    assert session.ready == "task-reverse" and "ready-made model of this task" in note
    out = attention_tab.show_attention(session, "", 0, 0)
    assert session.trained.ready_made == "task-reverse"
    assert out[1].startswith("\n") and ">" in out[1]  # a held-out problem of the task
    assert "In this model, layer" in out[-1]  # the head that shows the pattern, as measured


def test_the_status_line_says_plainly_what_the_model_is_in_both_languages():
    english, chinese = EN["not_trained"], ZH_CN["not_trained"]
    assert "ready-made" in english and "quick preset" in english
    assert "Press Start training to train your own" in english
    assert CJK.search(chinese) and "quick" in chinese and "开始训练" in chinese


def test_text_written_by_the_ready_model_says_so_and_how_to_train_ones_own():
    session = new_session()
    writing = generate_tab.begin_writing(generate_tab.Writing())
    *_, (session, _, _, note) = drain(generate_tab.write(session, writing, "ROMEO:", 20, 0.8, 0,
                                                         1.0, 1, 10))
    assert "Written by the ready-made model (the quick preset" in note and "tab 3" in note
    session.lang = "zh-CN"
    writing = generate_tab.begin_writing(generate_tab.Writing())
    *_, (session, _, _, note) = drain(generate_tab.write(session, writing, "ROMEO:", 20, 0.8, 0,
                                                         1.0, 1, 10))
    assert "这段文字由现成的模型写成" in note
