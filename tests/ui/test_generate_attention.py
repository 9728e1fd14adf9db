"""The Generate and Attention tabs' handlers as plain functions: the one view of the text,
Stop, the seed the page names, the switches beside the sliders, the attention figures and
their notes, in English and in Chinese."""

import html

import gradio as gr
import numpy as np
import pytest
import torch

from playground.config import ModelConfig, SampleConfig, TrainConfig
from playground.corpus import from_text
from playground.generate import generate_text as core_generate_text
from playground.insight.attention import AttentionMaps
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground.ui import attention_tab, generate_tab
from playground.ui.generate_tab import Writing
from playground.trained import TrainedModel
from playground.ui.session import Session

from checks import TINY_MODEL


@pytest.fixture(scope="module")
def trained(tiny_text) -> TrainedModel:
    """An untrained tiny GPT on the first 8,000 characters: the handlers only need a model."""
    corpus = from_text(tiny_text)
    tokenizer = train_tokenizer("char", corpus.text)
    config = ModelConfig(vocab_size=tokenizer.vocab_size, **TINY_MODEL)
    torch.manual_seed(0)
    return TrainedModel(GPT(config), tokenizer, config, TrainConfig(), corpus=corpus)


@pytest.fixture
def session(trained) -> Session:
    return Session(trained=trained)


def sampling(max_new_tokens=30, temperature=1.0, top_k=0, top_p=1.0, seed=0):
    return [max_new_tokens, temperature, top_k, top_p, seed]


def write(session, writing, prompt="First", min_chars=20, **changes):
    generate_tab.begin_writing(writing)
    return list(generate_tab.write(session, writing, prompt, *sampling(**changes), min_chars))


def test_the_text_streams_into_one_view_and_ends_with_its_seed_and_copy_check(session):
    writing = Writing()
    updates = write(session, writing, "'Tis", max_new_tokens=40)
    first, last = updates[0], updates[-1]
    # at once: the prompt (escaped, in bold) with a cursor, no chart yet
    assert first[1].startswith('<div class="copy-view"') and '<b class="prompt">&#x27;Tis</b>' in first[1]
    assert 'class="cursor"' in first[1] and first[2] == gr.skip()
    # at the end: the same text once, without the cursor, the chart and the note
    _, view, chart, note = last
    text = session.last_text
    assert text.startswith("'Tis") and len(text) == 4 + 40
    assert html.escape(text[4:]) in view and 'class="cursor"' not in view
    assert 1 <= len(chart.data[0].x) <= 10
    seed = writing.last_seed
    assert 1 <= seed <= 999_999 and writing.active is False and writing.stopped is False
    assert note == ("**No span of 20 or more characters was copied from the training text.**  \n"
                    f"Written with seed {seed}, drawn at random: tick “Same text each time” to "
                    "keep it and write this text again.")


def test_the_seed_the_note_names_writes_the_same_text_again(session):
    """The label tells the truth: the drawn seed, typed in, repeats the text; and the page's
    drawn seeds differ, so two visitors do not get the same 'random' text."""
    writing = Writing()
    write(session, writing, max_new_tokens=40)
    text, seed = session.last_text, writing.last_seed
    *_, note = write(session, writing, max_new_tokens=40, seed=seed)[-1]
    assert session.last_text == text and note.endswith(f"Written with the fixed seed {seed}.")
    # the same text the core writes with that seed (the page adds no randomness of its own)
    trained = session.trained
    assert text == "First" + core_generate_text(trained.model, trained.tokenizer, "First",
                                                SampleConfig(40, 1.0, seed=seed))
    seeds = set()
    for _ in range(5):
        write(session, writing, max_new_tokens=1)
        seeds.add(writing.last_seed)
    assert len(seeds) > 1


def test_stop_ends_the_stream_and_keeps_the_text_so_far(session):
    writing = Writing()
    generate_tab.begin_writing(writing)
    stream = generate_tab.write(session, writing, "First", *sampling(max_new_tokens=300, seed=9), 20)
    shown = next(stream)[1]  # the prompt, at once
    while 'class="prompt">First</b></div>' in shown or "First</b><span" in shown:
        shown = next(stream)[1]  # until the first push with new text in it
    generate_tab.stop_writing(writing, session)
    *_, (_, view, chart, note) = list(stream)
    written = session.last_text[len("First"):]
    assert 0 < len(written) < 300 and writing.stopped and writing.active is False
    full = core_generate_text(session.trained.model, session.trained.tokenizer, "First",
                              SampleConfig(300, 1.0, seed=9))
    assert full.startswith(written)  # exactly the start of the unstopped text
    assert f"Stopped: {len(written):,} characters written." in note
    assert html.escape(written) in view and chart.data


def test_stop_while_waiting_in_the_queue_writes_nothing(session):
    writing = Writing()
    generate_tab.begin_writing(writing)  # Generate pressed, the job still waits
    generate_tab.stop_writing(writing, session)
    *_, (_, view, _, note) = list(generate_tab.write(session, writing, "First", *sampling(), 20))
    assert session.last_text == "First" and "Stopped: 0 characters written." in note
    assert view.endswith('<b class="prompt">First</b></div>')


@pytest.mark.parametrize("lang, said, title", [
    ("en", "Nothing is being written right now.", "Note"),
    ("zh-CN", "现在没有正在生成的文本。", "提示"),
])
def test_stop_with_nothing_going_says_so(monkeypatch, lang, said, title):
    shown = []
    monkeypatch.setattr(generate_tab.gr, "Info", lambda message, **kw: shown.append((message, kw)))
    session = Session()
    session.lang = lang
    generate_tab.stop_writing(Writing(), session)
    assert shown == [(said, {"title": title})]


def test_notes_in_chinese(session):
    session.lang = "zh-CN"
    writing = Writing()
    *_, note = write(session, writing)[-1]
    assert note == ("**没有 20 个字符或更长的片段是从训练文本中复制的。**  \n"
                    f"用随机抽到的种子 {writing.last_seed} 写成：勾选“每次写出同样的文本”即可保留它，"
                    "再写出这段文本。")
    generate_tab.begin_writing(writing)
    generate_tab.stop_writing(writing, session)
    *_, note = list(generate_tab.write(session, writing, "First", *sampling(seed=3), 20))[-1]
    assert note.endswith("已停止：写了 0 个字符。  \n用固定的随机种子 3 写成。")


def test_the_memorisation_slider_marks_the_same_text(session, tiny_text):
    copied = tiny_text[200:260]
    session.last_prompt, session.last_text = "Q", "Q" + copied + "zqzqzqzq"
    _, view, note = generate_tab.show_copies(session, 20)
    assert note == f"**{len(copied) / (len(copied) + 8):.0%} of the generated text ({len(copied)} of " \
                   f"{len(copied) + 8} characters) occurs word for word in the training text.**"
    mark = view.split("<mark")[1]
    assert "color:#111827" in mark and "background:#fecaca" in mark  # reads on a dark page too
    assert view.count("<mark") == 1 and f">{html.escape(copied)}</mark>zqzqzqzq</div>" in view
    assert generate_tab.show_copies(Session(), 20)[1:] == (gr.skip(), gr.skip())


def test_the_api_generate_keeps_its_shape(session):
    """/generate: (session, text, chart), the text plain, as API clients have always read it."""
    *_, (_, text, chart) = list(generate_tab.generate_text(session, "First", *sampling(seed=4)))
    assert text == session.last_text and text.startswith("First") and chart.data


def test_an_emptied_seed_box_writes_a_new_text_as_seed_0_does(session):
    """The page sends None for an emptied number box: a text, not an unexpected error."""
    *_, (_, text, _) = list(generate_tab.generate_text(session, "First", *sampling(seed=None)))
    assert text.startswith("First") and len(text) > len("First")


def test_write_refuses_before_it_shows_anything(session):
    """No model, a setting out of range, a prompt the tokenizer cannot read: the message comes
    before the first update, so the view keeps the last text (no prompt left with a cursor)."""
    for who, prompt, changes, said in [
        (Session(), "hi", {}, "no model to generate with yet"),
        (session, "hi", dict(max_new_tokens=9999), "max_new_tokens must be between 1 and 2,000"),
        (session, "<b>", {}, "characters this tokenizer has never seen"),
        (session, "hi", dict(temperature=None), "temperature is empty: type a value"),
        (session, "hi", dict(top_k=float("nan")), "top_k must be a whole number"),
        (session, "hi", dict(seed=2.0**70), "seed must be between 0 and"),
    ]:
        with pytest.raises(gr.Error, match=said):
            next(generate_tab.write(who, Writing(), prompt, *sampling(**changes), 20))


# --- the switches beside the sliders --------------------------------------------------------

def test_each_switch_sets_its_slider_and_each_slider_sets_its_switch():
    on, off = generate_tab.top_k_switched(True, 0), generate_tab.top_k_switched(False, 40)
    assert (on["value"], on["visible"], off["value"], off["visible"]) == (40, True, 0, False)
    assert generate_tab.top_k_switched(True, 7)["value"] == 7
    assert generate_tab.top_k_shown(0) == (False, gr.update(visible=False))
    assert generate_tab.top_k_shown(12) == (True, gr.update(visible=True))  # a link's top_k=12
    on, off = generate_tab.top_p_switched(True, 1.0), generate_tab.top_p_switched(False, 0.9)
    assert (on["value"], on["visible"], off["value"], off["visible"]) == (0.9, True, 1.0, False)
    assert generate_tab.top_p_shown(1.0)[0] is False and generate_tab.top_p_shown(0.5)[0] is True
    # "Same text each time" keeps the last text's seed; off is the API's 0 (a new draw)
    writing = Writing(last_seed=4821)
    assert generate_tab.seed_switched(writing, True, 0)["value"] == 4821
    assert generate_tab.seed_switched(writing, True, 17)["value"] == 17
    assert generate_tab.seed_switched(Writing(), True, 0)["value"] == 1
    assert generate_tab.seed_switched(writing, False, 17) == gr.update(value=0, visible=False)
    assert generate_tab.seed_shown(0)[0] is False and generate_tab.seed_shown(5)[0] is True


# --- attention --------------------------------------------------------------------------------

def maps_with_patterns() -> AttentionMaps:
    """Two hand-made heads over 'ab ab': head 0 reads the previous token, head 1 the first."""
    tokens = list("ab ab")
    T = len(tokens)
    w = np.zeros((1, 2, T, T), dtype=np.float32)
    w[0, :, 0, 0] = 1
    for i in range(1, T):
        w[0, 0, i, i - 1] = 1
        w[0, 1, i, 0] = 1
    return AttentionMaps(tokens, list(range(T)), w)


@pytest.mark.parametrize("lang, single, heads", [
    ("en", "Layer 0, head 1: mostly first token 100%",
     ["head 0<br>previous token 100%", "head 1<br>first token 100%"]),
    ("zh-CN", "第 0 层，第 1 个头：主要看第一个词元 100%",
     ["头 0<br>前一个词元 100%", "头 1<br>第一个词元 100%"]),
])
def test_each_head_is_titled_with_what_it_mostly_looks_at(lang, single, heads):
    session = Session(attention=maps_with_patterns())
    session.lang = lang
    heatmap, grid = attention_tab.redraw(session, 0, 1)
    assert heatmap.layout.title.text == single
    assert [a.text for a in grid.layout.annotations][:2] == heads


def test_the_attention_labels_read_from_afar():
    heatmap, grid = attention_tab.redraw(Session(attention=maps_with_patterns()), 0, 0)
    x = heatmap.layout.xaxis
    assert x.tickfont.size == 14 and x.tickangle == 0  # one character a token: upright
    assert list(x.tickvals) == [0, 1, 2, 3, 4] and x.ticktext[2].endswith(">␣</span>")
    assert heatmap.layout.height <= 720 and grid.layout.height <= 720  # side by side on 900 px
    # the grid's hover names the tokens, as the single head's does
    assert list(grid.data[0].customdata[3][2]) == [heatmap.data[0].customdata[3][2][0], x.ticktext[2]]
    assert "looks at" in grid.data[0].hovertemplate


def test_the_default_text_is_the_start_of_the_last_generation(session):
    session.last_text = "First Citizen:\nBefore we proceed any further, hear me speak."
    assert attention_tab.default_text(session) == session.last_text[:attention_tab.DEFAULT_TOKENS]
    *_, summary = attention_tab.show_attention(session, "", 0, 0)
    block = TINY_MODEL["block_size"]  # the model reads at most 16 of the 32
    assert summary.startswith(f"{block} tokens") and session.attention.tokens == list("First Citizen:\nB")


# --- example prompts follow the text ---------------------------------------------------------

POEM = "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。\n" * 40


def offered(session, prompt):
    examples, prompt = generate_tab.offer_prompts(session, prompt)
    return [row[0] for row in examples["samples"]], examples["visible"], prompt


def test_before_any_model_the_examples_are_shakespeares_and_the_prompt_stays():
    prompts, visible, prompt = offered(Session(), "ROMEO:")
    assert prompts == list(generate_tab.SHAKESPEARE_PROMPTS) and visible
    assert prompt == gr.skip()


def test_a_model_of_another_text_offers_its_lines_and_a_prompt_it_can_read():
    corpus = from_text(POEM, "poems.txt")
    tokenizer = train_tokenizer("char", corpus.text)
    config = ModelConfig(vocab_size=tokenizer.vocab_size, **TINY_MODEL)
    session = Session(trained=TrainedModel(GPT(config), tokenizer, config, TrainConfig(),
                                           corpus=corpus))
    prompts, visible, prompt = offered(session, "ROMEO:")  # the page's first prompt
    assert prompts == ["床前明月", "举头望明"] and visible  # the first characters of each line
    assert prompt == "床前明月"
    # the offered prompt writes: every character the model knows
    writing = Writing()
    generate_tab.begin_writing(writing)
    list(generate_tab.write(session, writing, prompt, *sampling(max_new_tokens=10), 20))
    assert session.last_text.startswith("床前明月") and set(session.last_text) <= set(POEM)
    # a prompt of the visitor's own that the model reads is left alone
    assert offered(session, "低头")[2] == gr.skip()


def test_after_an_upload_without_text_only_readable_examples_are_offered(trained):
    # a bundle carries no text: the Shakespeare openings this model's letters can spell
    session = Session(trained=TrainedModel(trained.model, trained.tokenizer, trained.model_config,
                                           trained.train_config, corpus=None))
    prompts, _, prompt = offered(session, "ROMEO:")
    readable = [p for p in generate_tab.SHAKESPEARE_PROMPTS if set(p) <= set(trained.tokenizer.chars)]
    assert prompts == readable
    assert prompt == (gr.skip() if "ROMEO:" in readable else readable[0])
