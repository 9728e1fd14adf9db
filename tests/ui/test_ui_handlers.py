"""The page's handlers called as plain functions, with a tiny model: no server, no browser."""

import dataclasses
import re
from pathlib import Path

import gradio as gr
import numpy as np
import pytest
import torch

from playground import describe
from playground.corpus import CorpusError
from playground.i18n import t
from playground.train import EndRecord, EvalRecord, StepRecord
from playground.ui import (attention_tab, compare_tab, corpus_tab, export_tab, generate_tab,
                           tokenizer_tab, train_tab)
from playground.trained import TrainedModel
from playground.ui.session import Session, app_temp_dir
from playground.runtime.zerogpu import ChunkedRun, LocalRun

from checks import TINY, page_settings

RUN = dict(sample_tokens=8, seed=7)  # the shared TINY run, sampling at each evaluation


def settings(**changes):
    """Widget values in SETTINGS order: the tiny preset with TINY, RUN and ``changes`` applied."""
    return page_settings(RUN, **changes)


def drain(generator):
    """Every update a streaming handler yields."""
    return list(generator)


@pytest.fixture
def trained(ready):
    drain(train_tab.train_model(ready, False, *settings()))
    return ready


def test_corpus_sources_and_a_bad_file_keeps_the_previous_corpus(tmp_path, tiny_text):
    session, summary, preview = corpus_tab.use_corpus(None, "Tiny Shakespeare", None, "")
    assert session.corpus.name == "Tiny Shakespeare"
    assert "1,115,394 characters" in summary
    assert preview.startswith("First Citizen:")

    good = tmp_path / "poem.txt"
    good.write_text("床前明月光，疑是地上霜。\n", encoding="utf-8")
    session, summary, preview = corpus_tab.use_corpus(session, "Upload files", [str(good)], "")
    assert session.corpus.name == "poem.txt"
    assert preview == "床前明月光，疑是地上霜。\n"

    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\x00\x00\x01")
    with pytest.raises(gr.Error, match="binary"):
        corpus_tab.use_corpus(session, "Upload files", [str(binary)], "")
    with pytest.raises(gr.Error, match="empty"):
        corpus_tab.use_corpus(session, "Paste text", None, "   ")
    assert session.corpus.name == "poem.txt"


def test_choose_source_switches_boxes_and_loads_shakespeare():
    session = Session()
    out = corpus_tab.choose_source(session, "Upload files")
    assert out[3]["visible"] is True and out[4]["visible"] is False
    out = corpus_tab.choose_source(session, "Tiny Shakespeare")
    assert out[0].corpus.name == "Tiny Shakespeare" and "1,115,394" in out[1]


def test_tokenizer_tab_shows_tokens_and_merges(tiny_text):
    session, *_ = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)
    session, summary, html, merges = tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    assert session.tokenizer.kind == "char"
    assert f"{len(set(tiny_text))} tokens" in summary
    assert "1.00 characters per token" in summary
    assert html.count("<span title=") == tokenizer_tab.SAMPLE_CHARS

    session, summary, html, merges = tokenizer_tab.train_tokenizer_handler(session, "bpe", 300)
    assert session.tokenizer.vocab_size == 300
    assert merges.startswith("**First merges learned**")
    assert merges.count(" · ") == 19 and "\n1: " in merges and " · 20: " in merges


def test_bpe_vocabulary_larger_than_the_text_allows_says_so():
    session, *_ = corpus_tab.use_corpus(None, "Paste text", None, "ab ab ab abc abc " * 20)
    with pytest.warns(UserWarning, match="only supports"):
        session, summary, _, _ = tokenizer_tab.train_tokenizer_handler(session, "bpe", 16384)
    assert session.tokenizer.vocab_size < 16384
    assert "only supports" in summary


def test_token_html_escapes_markup():
    session, *_ = corpus_tab.use_corpus(None, "Paste text", None, "<script>alert(1)</script> " * 30)
    _, _, html, _ = tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    assert "<script>" not in html and "&lt;" in html


def test_full_flow_train_generate_attention(ready):
    updates = drain(train_tab.train_model(ready, False, *settings()))
    session, figure, status, samples, download, coach = updates[-1]
    assert "Finished all 6 steps" in status
    steps = [r.step for r in session.trained.history if isinstance(r, StepRecord)]
    assert steps == [1, 2, 3, 4, 5, 6]
    assert list(figure.data[0].x) == steps
    assert list(figure.data[1].x) == [0, 3, 6]  # evaluations before the first step and every 3
    assert samples.count("── step") == 3
    assert download.visible is True and download.value["orig_name"] == "playground-model-step6.zip"
    assert Path(session.trained.bundle_path).parent == app_temp_dir() / session.id
    assert session.run.running is False and session.trained.model is not None
    assert session.trained.corpus is session.corpus  # the text the memorisation check reads

    outs = drain(generate_tab.generate_text(session, "First", 20, 0.8, 0, 1.0, 3))
    _, text, chart = outs[-1]
    assert text.startswith("First") and len(text) == len("First") + 20  # char model: 1 char/token
    probs = list(chart.data[0].x)
    assert 1 <= len(probs) <= 10 and probs == sorted(probs, reverse=True)
    assert session.last_text == text
    assert attention_tab.default_text(session) == text[:attention_tab.DEFAULT_TOKENS]

    (session, shown, layer, head, heatmap, grid, summary) = attention_tab.show_attention(
        session, "", 0, 0)
    T = min(len(text), TINY["block_size"])
    assert shown == text[:attention_tab.DEFAULT_TOKENS]
    assert session.attention.weights.shape == (1, 2, T, T)
    np.testing.assert_allclose(session.attention.weights.sum(-1), 1.0, rtol=1e-5)
    assert layer.choices == [("0", 0)] and head.choices == [("0", 0), ("1", 1)]
    assert len(grid.data) == 2

    # another head redraws from the cache: the same weights, no model run
    session.trained = None
    heatmap1, _ = attention_tab.redraw(session, 0, 1)
    z = np.array(heatmap1.data[0].z, dtype=float)
    np.testing.assert_allclose(np.nan_to_num(z), session.attention.weights[0, 1], rtol=1e-6)


def test_generate_and_attention_before_any_model_say_what_to_do():
    with pytest.raises(gr.Error, match="no model to generate with yet"):
        drain(generate_tab.generate_text(Session(), "hi", 5, 1.0, 0, 1.0, 0))
    with pytest.raises(gr.Error, match="no model to look inside yet"):
        attention_tab.show_attention(Session(), "hi", 0, 0)
    assert attention_tab.redraw(Session(), 0, 0) == (gr.skip(), gr.skip())


def test_start_without_a_tokenizer_reads_characters_and_says_so(tiny_text, monkeypatch):
    """Straight to Start (no tokenizer yet): the default tokenizer, not an error."""
    said = []
    monkeypatch.setattr(train_tab.gr, "Info", lambda message, **kw: said.append(message))
    session = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)[0]
    session.lang = "zh-CN"
    updates = drain(train_tab.train_model(session, False, *settings(max_steps=3, eval_interval=3)))
    assert session.tokenizer.kind == "char" and session.tokenizer_corpus is session.corpus
    assert session.trained is not None and session.trained.tokenizer is session.tokenizer
    vocab = len(set(tiny_text))
    assert session.tokenizer.vocab_size == vocab and len(updates) > 1
    assert said == [t("No tokenizer was trained yet, so this run reads the text character by "
                      "character ({vocab} distinct characters). The Tokenizer tab (tab 2) can "
                      "train a BPE tokenizer instead.", "zh-CN", vocab=f"{vocab}")]


def test_training_needs_the_tokenizer_of_this_corpus(ready):
    corpus_tab.use_corpus(ready, "Paste text", None, "A different text, long enough. " * 20)
    with pytest.raises(gr.Error, match="Train the tokenizer again"):
        drain(train_tab.train_model(ready, False, *settings()))


def test_bad_settings_are_refused_and_nothing_is_lost(trained):
    before = trained.trained
    model, history, bundle = before.model, list(before.history), before.bundle_path
    with pytest.raises(gr.Error, match="must divide evenly among the 3 attention heads"):
        drain(train_tab.train_model(trained, False, *settings(n_embd=16, n_head=3)))
    with pytest.raises(gr.Error, match="of memory to train, but only"):
        drain(train_tab.train_model(trained, False, *settings(n_layer=64, n_head=16, n_embd=16384)))
    with pytest.raises(gr.Error, match="n_layer is empty"):
        drain(train_tab.train_model(trained, False, *settings(n_layer=None)))
    assert trained.trained is before and before.model is model
    assert before.history == history and before.bundle_path == bundle
    assert trained.run.running is False


def test_a_start_that_never_reached_its_run_leaves_start_working(ready):
    """Start reserves the run; when Gradio refuses an input before train_model runs (or the
    run is refused), the page's failure listener releases it, and Start works again."""
    train_tab.reserve_run(ready)
    with pytest.raises(gr.Error, match="already going"):
        train_tab.reserve_run(ready)  # a second Start meanwhile is refused, as before
    train_tab.release_run(ready)
    train_tab.reserve_run(ready)
    *_, (session, _, status, *_) = drain(train_tab.train_model(ready, False, *settings()))
    assert "Finished all 6 steps" in status and session.run.pending is False


def test_release_never_ends_a_run_that_goes(ready):
    run = train_tab.train_model(ready, False, *settings(max_steps=100_000))
    next(run)
    ready.run.pending = True  # as a second Start's reservation would be, were it accepted
    train_tab.release_run(ready)
    assert ready.run.running is True and ready.run.pending is True
    train_tab.stop_training(ready)
    drain(run)


def test_stop_reaches_a_run_inside_its_first_evaluation(ready):
    """nanogpt-gpu's first evaluation takes minutes on a CPU: Stop must not wait for it. The
    handler is inside the evaluation, with no record to see, so Stop calls the run's own stop."""
    import threading

    run = train_tab.train_model(ready, False, *settings(eval_iters=10_000, max_steps=100))
    next(run)  # "Starting…": the run is under way, its first evaluation next
    finished = []
    worker = threading.Thread(target=lambda: finished.append(list(run)[-1]))
    worker.start()
    train_tab.stop_training(ready)
    worker.join(timeout=600)
    session, figure, status, *_ = finished[0]
    assert status.startswith("**Stopped.** Stopped at step 0 as asked.")
    # the evaluation was cut short, not finished and then stopped
    assert not [r for r in session.trained.history if isinstance(r, EvalRecord)]
    assert session.run.current is None and session.run.running is False


def test_describe_settings_counts_parameters_and_reports_errors(ready):
    text = train_tab.describe_settings(ready, *settings())
    model_cfg, _ = train_tab.configs_from_settings(settings(), ready.tokenizer.vocab_size)
    from playground.model import count_params
    assert f"**{count_params(model_cfg):,} parameters**" in text
    assert "64 tokens per step" in text  # batch 4 x block 16
    assert train_tab.describe_settings(ready, *settings(n_head=3)).startswith("**Check the settings:** The width")


def test_presets_fill_every_setting():
    model_cfg, train_cfg = train_tab.configs_from_settings(
        train_tab.preset_values("nanogpt-gpu"), vocab_size=65)
    assert (model_cfg.n_layer, model_cfg.n_embd, model_cfg.block_size) == (6, 384, 256)
    assert train_cfg.max_steps == 5000
    quick = train_tab.PRESETS["quick"].train.max_steps
    assert train_tab.preset_values("quick")[train_tab.SETTINGS.index("max_steps")] == quick


def test_stop_ends_the_run_and_keeps_the_model(ready):
    run = train_tab.train_model(ready, False, *settings(max_steps=100_000, sample_tokens=0))
    next(run)
    assert ready.run.running is True
    train_tab.stop_training(ready)
    assert ready.run.stop_requested is True
    session, figure, status, samples, download, coach = list(run)[-1]
    assert status.startswith("**Stopped.** Stopped at step")
    step = session.trained.trainer_state["step"]
    assert 0 <= step < 100_000 and session.trained.model is not None and download.visible is True
    assert session.run.running is False and session.run.stop_requested is False
    train_tab.stop_training(session)
    assert session.run.stop_requested is False  # nothing to stop: no flag left for the next run


def test_second_start_is_refused_while_one_runs(ready):
    run = train_tab.train_model(ready, False, *settings(max_steps=100_000, sample_tokens=0))
    next(run)
    with pytest.raises(gr.Error, match="already going"):
        train_tab.reserve_run(ready)
    with pytest.raises(gr.Error, match="already going"):
        drain(train_tab.train_model(ready, False, *settings()))
    before = ready.trained
    next(run)  # the first step's update: from here on the session holds the model in training
    assert ready.trained is not before and ready.trained.model is not None
    run.close()  # closing (a closed tab, or a cancel) still leaves the session consistent
    assert ready.run.running is False and ready.trained.model is not None
    assert train_tab.reserve_run(ready).run.pending is True


def test_a_run_closed_before_its_first_step_leaves_the_earlier_model(trained):
    """Stop (or a closed tab) while a run waits for its turn: the model trained before stays
    the session's, untouched, and Start works again."""
    before = trained.trained
    run = train_tab.train_model(trained, False, *settings(max_steps=100_000, sample_tokens=0))
    next(run)  # "Starting…": planned, not one step yet
    run.close()
    assert trained.trained is before and trained.run.running is False
    train_tab.release_run(trained)
    assert train_tab.reserve_run(trained).run.pending is True
    train_tab.release_run(trained)


def test_bundle_round_trip_and_continue_training(trained, tmp_path):
    fresh = Session()
    out = train_tab.upload_bundle(fresh, trained.trained.bundle_path)
    session, continue_box, figure, status = out[:4]
    assert continue_box is True and "trained 6 steps" in status
    # a bundle carries no text and is not one of this session's saved bundles
    assert session.trained.corpus is None and session.trained.bundle_path is None
    assert list(out[4:]) == [getattr(trained.trained.model_config, f) for f in train_tab.MODEL_SETTINGS] + [
        getattr(trained.trained.train_config, f) for f in train_tab.TRAIN_SETTINGS]
    for a, b in zip(session.trained.model.parameters(), trained.trained.model.parameters()):
        torch.testing.assert_close(a, b)
    # the uploaded model continues on the corpus it came with (the same text here)
    session.corpus = trained.corpus
    with pytest.raises(gr.Error, match="already trained 6 steps"):
        drain(train_tab.train_model(session, True, *settings(max_steps=6)))
    final = drain(train_tab.train_model(session, True, *settings(max_steps=9)))[-1]
    steps = [r.step for r in final[0].trained.history if isinstance(r, StepRecord)]
    assert steps == list(range(1, 10)) and "Finished all 9 steps" in final[2]
    kept = session.trained

    not_a_bundle = tmp_path / "notes.zip"
    not_a_bundle.write_bytes(b"hello")
    with pytest.raises(gr.Error, match="notes.zip"):
        train_tab.upload_bundle(session, str(not_a_bundle))
    assert session.trained is kept


def test_chunked_run_equals_one_straight_run(ready):
    """The ZeroGPU path (one step per chunk here) trains exactly like a local run."""
    local = drain(train_tab.train_model(ready, False, *settings(sample_tokens=0)))[-1][0]
    local_weights = {k: v.clone() for k, v in local.trained.model.state_dict().items()}
    local_history = [r for r in local.trained.history if not isinstance(r, EndRecord)]
    chunked = drain(train_tab.train_model(ready, False, *settings(sample_tokens=0),
                                          chunk_seconds=0.0))[-1][0]
    for name, tensor in chunked.trained.model.state_dict().items():
        torch.testing.assert_close(tensor, local_weights[name], rtol=0, atol=0)

    def strip(records):  # the timings differ between any two runs
        return [(type(r), {k: v for k, v in dataclasses.asdict(r).items() if k not in ("elapsed", "tokens_per_s")})
                for r in records]
    assert strip([r for r in chunked.trained.history if not isinstance(r, EndRecord)]) == strip(local_history)


def test_runs_are_local_unless_chunked(ready, tmp_path):
    from playground.config import ModelConfig, TrainConfig
    from playground.prepare import prepare_run
    from playground.runtime.zerogpu import start_run

    plan = prepare_run(ready.corpus, ready.tokenizer,
                       ModelConfig(block_size=4, n_layer=1, n_head=1, n_embd=4),
                       TrainConfig(max_steps=2, batch_size=2, device="cpu"))
    assert isinstance(start_run(plan, workdir=tmp_path), LocalRun)
    assert isinstance(start_run(plan, workdir=tmp_path, chunk_seconds=1.0), ChunkedRun)


def test_session_release_frees_model_and_files(trained):
    folder = app_temp_dir() / trained.id
    assert folder.is_dir()
    trained.release()
    assert trained.trained is None and not folder.exists()


def test_unexpected_errors_become_a_generic_message(monkeypatch, ready):
    def broken(*args, **kwargs):
        raise KeyError("internal detail")
    monkeypatch.setattr(tokenizer_tab, "train_tokenizer", broken)
    with pytest.raises(gr.Error) as info:
        tokenizer_tab.train_tokenizer_handler(ready, "char", 512)
    assert "Something unexpected went wrong" in info.value.message
    assert "internal detail" not in info.value.message


def test_corpus_error_is_a_value_error():
    assert issubclass(CorpusError, ValueError)


# --- the visitor's language: what the handlers write, in English or Simplified Chinese ----------

CJK = re.compile(r"[\u4e00-\u9fff]")


def has_chinese(text) -> bool:
    return bool(CJK.search(str(text)))


def zh(session=None) -> Session:
    session = session or Session()
    session.lang = "zh-CN"
    return session


def with_fake_model(session: Session) -> Session:
    """A session that passes ``require_model`` (the check under test comes before any use)."""
    session.trained = TrainedModel(object(), object(), object(), object())
    session.last_text = "some text"
    return session


# (name, call, English the page has always shown, values the Chinese must keep)
HANDLER_ERRORS = [
    ("no file", lambda s: corpus_tab.use_corpus(s, "Upload files", None, ""),
     "No file yet: drop one or more .txt or .md files", [".txt", ".md"]),
    ("unknown source", lambda s: corpus_tab.use_corpus(s, "My diary", None, ""),
     "Unknown source 'My diary': choose one of Tiny Shakespeare, Upload files, Paste text.",
     ["'My diary'", "Tiny Shakespeare"]),
    ("generate without a model",
     lambda s: drain(generate_tab.generate_text(s, "hi", 5, 1, 0, 1, 0)),
     "There is no model to generate with yet. Train one on the 'Model & training' tab", []),
    ("the page's Generate without a model",
     lambda s: drain(generate_tab.write(s, generate_tab.Writing(), "hi", 5, 1, 0, 1, 0, 20)),
     "There is no model to generate with yet. Train one on the 'Model & training' tab", []),
    ("attention without a model", lambda s: attention_tab.show_attention(s, "hi", 0, 0),
     "There is no model to look inside yet.", []),
    ("export without a model", lambda s: export_tab.make_script(s),
     "There is no model to export yet.", []),
    ("continue without a model", lambda s: drain(train_tab.train_model(s, True, *settings())),
     "There is no model to continue training yet.", []),
    ("too many new tokens",
     lambda s: drain(generate_tab.generate_text(with_fake_model(s), "hi", 9999, 1, 0, 1, 0)),
     "max_new_tokens must be between 1 and 2,000, got 9,999.", ["1", "2,000", "9,999"]),
    ("span too short", lambda s: generate_tab.check_copies(with_fake_model(s), 4),
     "The shortest span must be from 8 to 200 characters.", ["8", "200"]),
    ("push without a bundle", lambda s: export_tab.push(with_fake_model(s), "a/b", "hf_x", False),
     "The model has no saved bundle yet: let a training run finish", []),
    ("upload nothing", lambda s: train_tab.upload_bundle(s, None),
     "No file: upload a .zip bundle saved by this app.", [".zip"]),
    ("one change without a run", lambda s: compare_tab.prepare_one_change(s, None, "pos", "rope"),
     "Pick the run to start from: train a run first (tab 3).", ["3"]),
    ("one change without a value", lambda s: compare_tab.prepare_one_change(s, "run 1", "pos", " "),
     "Type or pick the new value of pos.", ["pos"]),
]


@pytest.mark.parametrize("call, english, kept", [case[1:] for case in HANDLER_ERRORS],
                         ids=[case[0] for case in HANDLER_ERRORS])
def test_handler_errors_in_the_visitors_language(call, english, kept):
    with pytest.raises(gr.Error) as in_english:
        call(Session())
    assert english in in_english.value.message and not has_chinese(in_english.value.title)
    with pytest.raises(gr.Error) as in_chinese:
        call(zh())
    message, title = in_chinese.value.message, in_chinese.value.title
    assert has_chinese(message) and has_chinese(title), (message, title)
    assert all(value in message for value in kept), message


def test_already_training_is_said_in_chinese(ready):
    zh(ready)
    run = train_tab.train_model(ready, False, *settings(max_steps=100_000, sample_tokens=0))
    next(run)
    try:
        for refused in (lambda: train_tab.reserve_run(ready),
                        lambda: drain(train_tab.train_model(ready, False, *settings()))):
            with pytest.raises(gr.Error) as info:
                refused()
            assert "已经有一个训练在进行" in info.value.message and info.value.title == "正在训练"
    finally:
        run.close()


def test_chinese_session_gets_chinese_summaries_progress_and_end_text(tiny_text, tmp_path):
    session, summary, _ = corpus_tab.use_corpus(zh(), "Paste text", None, tiny_text)
    assert summary.startswith("**语料：")
    assert f"{len(tiny_text):,} 个字符" in summary and "第 2 个标签页" in summary
    assert "1,115,394 个字符" in corpus_tab.show_corpus(zh())[0]

    session, summary, _, merges = tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    assert "字符级分词器" in summary and f"{len(set(tiny_text))} 个词元" in summary
    assert "1.00 个字符" in summary and "第 3 个标签页" in summary
    assert merges == "*字符级分词器不学习合并：每个字符就是一个词元。*"

    described = train_tab.describe_settings(session, *settings())
    assert "个参数**" in described and "每步 64 个词元" in described and "共 6 步" in described
    bad = train_tab.describe_settings(session, *settings(n_layer=None))
    assert bad == "**请检查设置：** n_layer 是空的：请输入一个值。"

    updates = drain(train_tab.train_model(session, False, *settings()))
    statuses = [u[2] for u in updates]
    assert statuses[0].startswith("**正在开始训练**")
    progress = [s for s in statuses if s.startswith("**训练中：**")]
    assert all("/ 6 步" in s and "每秒" in s and "训练损失" in s for s in progress)
    session, figure, status, samples, download, coach = updates[-1]
    last = next(r for r in reversed(session.trained.history) if isinstance(r, EvalRecord))
    assert status.startswith("**完成。** ") and "6" in status
    assert f"最后一次验证损失为 {last.val_loss:.3f}（第 6 步" in status
    assert status.endswith("模型已就绪：试试“生成”和“注意力”标签页，或在下方下载它。")
    assert samples.count("── 第 ") == 3 and "验证损失" in samples

    # a status written while training, and the end text, as the English page has them
    english = describe.end_status(None, None, "en")
    assert english == ("**Problem:** The run ended. The model is ready: try the Generate and "
                       "Attention tabs, or download it below.")

    fresh = zh()
    loaded = train_tab.upload_bundle(fresh, session.trained.bundle_path)[3]
    assert loaded.startswith("**已加载**") and "已训练 6 步" in loaded and "char 分词器" in loaded

    _, text, chart = drain(generate_tab.generate_text(session, "First", 10, 0.8, 0, 1.0, 3))[-1]
    assert chart.layout.title.text == "最可能的 10 个下一个词元"
    out = attention_tab.show_attention(session, "", 0, 1)
    assert out[-1].startswith("15 个词元 · 1 层 × 2 个头。") and out[4].layout.title.text == "第 0 层，第 1 个头"


def test_english_and_chinese_status_lines_say_the_same_numbers():
    from playground.train import EvalRecord, StepRecord

    cfg = train_tab.configs_from_settings(settings(max_steps=2000), 65)[1]
    step = StepRecord(step=1234, loss=1.98765, lr=1e-3, tokens=1, elapsed=75.0, tokens_per_s=6400.0)
    evaluation = EvalRecord(step=1200, tokens=1, train_loss=2.0, val_loss=2.04567, train_bpc=2.9,
                            val_bpc=2.95, elapsed=70.0, sample="")
    en = describe.status_line(step, cfg, 16, evaluation)
    assert en == ("**Training:** step 1,234 / 2,000 · 6,400 tokens/s · elapsed 1:15 · about 0:07 "
                  "left · train loss 1.988 · validation loss 2.046 (step 1,200)")
    zh_line = describe.status_line(step, cfg, 16, evaluation, "zh-CN")
    assert zh_line == ("**训练中：** 第 1,234 / 2,000 步 · 每秒 6,400 个词元 · 已用 1:15 · 约剩 0:07 · "
                       "训练损失 1.988 · 验证损失 2.046（第 1,200 步）")
