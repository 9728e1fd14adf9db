"""Issue 7's features in the page, called as plain handlers with a tiny model: compare runs
and one change, reference lines and x axis, the coach, the memorisation check, the merge
viewer, export and Hub push, shareable links, the two languages."""

import json
import math
import re
from pathlib import Path

import gradio as gr
import pytest

from playground import describe
from playground.i18n import t
from playground.i18n.labels import EN, ZH_CN
from playground.train import EvalRecord, StepRecord
from playground.ui import (compare_tab, corpus_tab, export_tab, generate_tab, loss_panel,
                           tokenizer_tab, train_tab)
from playground.ui.app import build_demo
from playground.ui.lang import detect_language
from playground.ui.session import Session, app_temp_dir

from checks import page_settings

RUN = dict(seed=7)  # the shared TINY run, seeded
SAMPLING = ["JULIET:", 50, 0.5, 5, 0.9, 3]  # prompt, max_new_tokens, temperature, top_k, top_p, seed


def settings(**changes):
    """Widget values in SETTINGS order: the tiny preset with TINY, RUN and ``changes`` applied."""
    return page_settings(RUN, **changes)


def train(session, **changes):
    return list(train_tab.train_model(session, False, *settings(**changes)))[-1]


# --- 1. compare runs and "same run, one change" -------------------------------------------

def test_every_finished_run_is_kept_and_compared(ready):
    train(ready)
    train(ready, lr=0.01)
    assert ready.runs.names() == ["run 1", "run 2"]
    assert ready.runs.runs[1].train_config["lr"] == 0.01
    assert ready.run_data["run 1"] == (ready.corpus, ready.tokenizer)

    boxes, base = compare_tab.refresh_runs(ready, [])
    assert boxes.value == ["run 1", "run 2"] and base.value == "run 2"
    figure, note, table = compare_tab.compare_runs(ready, ["run 1", "run 2"], "tokens")
    assert [trace.name for trace in figure.data] == ["run 1", "run 2"]
    evals = [r for r in ready.runs.runs[1].history if isinstance(r, EvalRecord)]
    assert list(figure.data[1].x) == [r.tokens for r in evals]
    assert list(figure.data[1].y) == [r.val_loss for r in evals]
    assert note == ""  # one tokenizer: compared in loss per token
    assert table.headers == ["setting", "run 1", "run 2"]
    rows = {row[0]: row[1:] for row in table.value["data"]}
    assert rows["lr"] == ["0.003", "0.01"] and "n_layer" not in rows
    assert rows["steps"] == ["6", "6"]


def test_runs_with_different_tokenizers_compare_in_bits_per_character(ready):
    train(ready)
    tokenizer_tab.train_tokenizer_handler(ready, "bpe", 300)
    train(ready)
    figure, note, table = compare_tab.compare_runs(ready, ["run 1", "run 2"], "step")
    assert "bits per character" in note
    bpe_evals = [r for r in ready.runs.runs[1].history if isinstance(r, EvalRecord)]
    assert list(figure.data[1].y) == [r.val_bpc for r in bpe_evals]
    rows = {row[0]: row[1:] for row in table.value["data"]}
    assert rows["tokenizer"] == ["char", "bpe"]


def test_one_change_trains_the_same_run_with_one_setting_changed(ready):
    train(ready, pos="learned")
    first = ready.runs.runs[0]
    # the visitor moves on to another text; the one-change run must use the first run's data
    corpus_tab.use_corpus(ready, "Paste text", None, "Something else entirely. " * 40)
    assert [str(v) for v in compare_tab.value_choices(ready, "run 1", "pos").choices[0]] == [
        "sinusoidal", "sinusoidal"]
    out = compare_tab.prepare_one_change(ready, "run 1", "pos", "rope")
    session, continue_box, values, tabs = out[0], out[1], out[2:-1], out[-1]
    assert continue_box is False and tabs.selected == "train" and session.run.pending is True
    changed = dict(zip(train_tab.SETTINGS, values))
    assert changed["pos"] == "rope"
    assert {k: v for k, v in changed.items() if k != "pos"} == {
        k: v for k, v in {**first.model_config, **first.train_config}.items()
        if k in changed and k != "pos"}
    assert session.corpus is ready.run_data["run 1"][0]

    list(train_tab.train_model(session, False, *values))  # the training tab's own handler
    assert session.runs.names() == ["run 1", "run 1, pos=rope"]
    diff = compare_tab.comparison_table(session.runs.runs)[1]
    assert [row[0] for row in diff if row[0] in train_tab.SETTINGS] == ["pos"]
    assert diff[0] == ["pos", "learned", "rope"]


@pytest.mark.parametrize("stream, setting, value, noted", [
    ("nanogpt", "pos", "rope", True),  # a model change moves nanoGPT's single stream
    ("nanogpt", "lr", "0.01", False),
    ("separate", "pos", "rope", False),
])
def test_one_change_says_when_the_batches_cannot_stay_the_same(ready, monkeypatch, stream,
                                                                 setting, value, noted):
    said = []
    monkeypatch.setattr(compare_tab.gr, "Info", lambda message, **kw: said.append(message))
    train(ready, pos="learned", rng_stream=stream)
    compare_tab.prepare_one_change(ready, "run 1", setting, value)
    assert said[0].startswith(f"Training run 1, {setting}=")
    assert ("rng_stream=nanogpt" in said[0]) is noted


def test_one_change_refuses_what_cannot_be_done(ready):
    train(ready)
    with pytest.raises(gr.Error, match="already has pos='learned'"):
        compare_tab.prepare_one_change(ready, "run 1", "pos", "learned")
    with pytest.raises(gr.Error, match="No run is called 'run 9'"):
        compare_tab.prepare_one_change(ready, "run 9", "pos", "rope")
    ready.run.running = True
    with pytest.raises(gr.Error, match="already going"):
        compare_tab.prepare_one_change(ready, "run 1", "pos", "rope")
    assert ready.next_run_name == ""


# --- 2. reference lines and x axis; 3. the coach -------------------------------------------

def test_reference_lines_and_x_axis(ready):
    train(ready)
    session, figure = loss_panel.set_plot_options(ready, "tokens", True)
    names = [trace.name for trace in figure.data]
    vocab = ready.tokenizer.vocab_size
    assert names[:2] == ["train", "validation"]
    assert names[2] == f"guessing letters at random ({math.log(vocab):.2f})"
    assert names[3].startswith("knowing only letter frequencies (")
    assert len(names) == 4  # pasted text: no nanoGPT line
    assert list(figure.data[2].y) == [pytest.approx(math.log(vocab))] * 2
    steps = [r for r in ready.trained.history if isinstance(r, StepRecord)]
    assert list(figure.data[0].x) == [r.tokens for r in steps]
    _, figure = loss_panel.set_plot_options(ready, "elapsed", False)
    assert len(figure.data) == 2 and figure.layout.xaxis.title.text == "seconds"


def test_nanogpt_line_for_tiny_shakespeare_characters(shakespeare_text):
    session = Session()
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    ids = session.tokenizer.encode_array(shakespeare_text[:1000])
    loss_panel.begin(session, session.corpus_or_default(), session.tokenizer, ids, 65)
    assert [r.key for r in session.plot.references] == ["uniform", "unigram", "nanogpt"]
    assert session.plot.references[2].value == pytest.approx(1.4697)


def test_coach_notes_stream_with_the_run_and_stay_after(ready):
    # ~100,000 parameters for ~7,200 training tokens: the coach flags the model's size
    updates = list(train_tab.train_model(ready, False, *settings(n_layer=2, n_embd=64)))
    assert all(len(u) == 6 for u in updates)
    assert updates[-1][5] == ready.plot.coach and ready.plot.coach.startswith("**Training coach**")
    # a model with far more parameters than training tokens gets the "params" note
    assert "parameters per token" in ready.plot.coach
    model_cfg, train_cfg = train_tab.configs_from_settings(settings(n_layer=2, n_embd=64),
                                                           ready.tokenizer.vocab_size)
    stuck = [StepRecord(s, 64 * s, 4.0, 1e-3, 900.0, s / 10) for s in range(1, 301)]
    ready.lang = "zh-CN"
    text = loss_panel.coach(ready, stuck, model_cfg, train_cfg, 10**9)
    assert text.startswith("**训练教练**") and "均匀猜测" in text


# --- 4. memorisation check -----------------------------------------------------------------

def test_memorisation_check_highlights_copies_and_caches_the_index(ready, tiny_text):
    train(ready)
    copied = tiny_text[100:160]
    ready.last_prompt, ready.last_text = "<b>", "<b>" + copied + "zqzqzqzq"
    session, view = generate_tab.check_copies(ready, 20)
    assert f"{len(copied)} of {len(copied) + 8} characters" in view
    assert f'>{__import__("html").escape(copied)}</mark>' in view
    assert view.count("<mark") == 1 and "&lt;b&gt;" in view and "<b>" not in view.split("</p>")[1]
    index = session.copy_index
    assert index is not None and session.copy_index_corpus is ready.corpus
    generate_tab.check_copies(ready, 40)
    assert session.copy_index is index  # built once per corpus, not per request
    ready.last_text = "<b>" + "qxqxqxqxqxqxqxqxqxqxqxqxqx"
    _, view = generate_tab.check_copies(ready, 20)
    assert "No span of 20 or more characters" in view and "<mark" not in view
    with pytest.raises(gr.Error, match="from 8 to 200"):
        generate_tab.check_copies(ready, 4)


def test_memorisation_after_a_real_generation(ready):
    train(ready)
    list(generate_tab.generate_text(ready, "First", 40, 0.0, 0, 1.0, 1))
    session, view = generate_tab.check_copies(ready, 8)
    assert view.startswith('<p class="memo-report">') and "copy-view" in view


# --- 5. BPE merge viewer -------------------------------------------------------------------

def test_merge_viewer_steps_through_merges(ready):
    tokenizer_tab.train_tokenizer_handler(ready, "bpe", 300)
    slider, caption, view = tokenizer_tab.setup_merges(ready, "the king")
    merges = ready.tokenizer.merges()
    assert slider.maximum == min(len(merges), tokenizer_tab.VIEWER_MERGES) and slider.value == 0
    assert view.count("<span title=") == len("the king")
    caption, view = tokenizer_tab.show_merges(ready, "the king", 3)
    left, right = merges[2]
    assert caption.startswith("Merge 3 of ") and f"becomes `{left + right}`" in caption
    caption_all, view_all = tokenizer_tab.show_merges(ready, "the king", 10**6)
    assert view_all.count("<span title=") == len(ready.tokenizer.encode("the king"))
    tokenizer_tab.train_tokenizer_handler(ready, "char", 512)
    caption, _ = tokenizer_tab.show_merges(ready, "the king", 3)
    assert "learns no merges" in caption


# --- 6. export -----------------------------------------------------------------------------

def test_standalone_script_and_bundle_for_download(ready):
    with pytest.raises(gr.Error, match="no model to export"):
        export_tab.make_script(Session())
    train(ready)
    files = export_tab.make_script(ready)
    assert [Path(f).name for f in files] == ["generate_standalone.py", Path(ready.trained.bundle_path).name]
    assert all(Path(f).parent == app_temp_dir() / ready.id for f in files)
    assert "def generate(" in Path(files[0]).read_text()


def test_hub_push_errors_are_messages(ready, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    train(ready)
    with pytest.raises(gr.Error, match="token with write access"):
        export_tab.push(ready, "alice/tiny", "", False)
    with pytest.raises(gr.Error, match="must look like user/name"):
        export_tab.push(ready, "not a repo", "hf_x", False)
    with pytest.raises(gr.Error) as info:
        export_tab.push(ready, "alice/tiny", "hf_abc", False)  # offline here
    assert "Hub" in info.value.message and "Traceback" not in info.value.message


def test_hub_push_uploads_bundle_card_and_script(ready, monkeypatch):
    train(ready)
    calls = []

    class FakeApi:
        def create_repo(self, repo_id, **kwargs):
            calls.append(("create", repo_id))

        def create_commit(self, repo_id, operations, **kwargs):
            calls.append(("commit", repo_id, sorted(op.path_in_repo for op in operations)))

    real = export_tab.push_to_hub
    monkeypatch.setattr(export_tab, "push_to_hub",
                        lambda *a, **k: real(*a, **k, api=FakeApi()))
    assert export_tab.push(ready, "alice/tiny", "hf_abc", True) == \
        "Uploaded to https://huggingface.co/alice/tiny."
    assert calls == [("create", "alice/tiny"),
                     ("commit", "alice/tiny", ["README.md", "generate_standalone.py", "model.zip"])]


# --- 7. shareable settings -----------------------------------------------------------------

def test_link_round_trip_restores_every_setting():
    values = settings(n_layer=3, pos="rope", lr=0.003)
    request = gr.Request(headers={"referer": "http://127.0.0.1:7860/?old=1"})
    link = export_tab.make_link(request, "Tiny Shakespeare", "bpe", 1024, *values, *SAMPLING)
    assert link.startswith("http://127.0.0.1:7860/?v=1&tokenizer=bpe&vocab_size=1024")
    assert "old=1" not in link
    query = dict(p.split("=", 1) for p in link.split("?", 1)[1].split("&"))
    restored = export_tab.restore_from_link(Session(), gr.Request(query_params=decode_query(query)))
    message, source, kind, vocab = restored[:4]
    assert message.visible is True and "Settings restored" in message.value
    assert (source, kind, vocab) == ("Tiny Shakespeare", "bpe", 1024)
    n = len(train_tab.SETTINGS)
    assert dict(zip(train_tab.SETTINGS, restored[4:4 + n])) == {
        k: type(v)(v) if not isinstance(v, bool) else v
        for k, v in dict(zip(train_tab.SETTINGS, values)).items()}
    assert list(restored[4 + n:]) == SAMPLING


def decode_query(pairs):
    from urllib.parse import unquote_plus
    return {k: unquote_plus(v) for k, v in pairs.items()}


def test_links_with_own_text_bad_values_or_none():
    assert export_tab.restore_from_link(Session(), gr.Request(query_params={})) == (
        gr.skip(),) * (4 + len(train_tab.SETTINGS) + 6)
    own = export_tab.restore_from_link(Session(), gr.Request(query_params={"v": "1", "corpus": "paste"}))
    assert "must upload or paste the same text" in own[0].value and own[1] == gr.skip()
    bad = export_tab.restore_from_link(Session(), gr.Request(query_params={"v": "1", "n_layer": "lots"}))
    assert "n_layer must be a whole number" in bad[0].value
    assert all(u == gr.skip() for u in bad[1:])
    with pytest.raises(gr.Error, match="Unknown corpus choice"):
        export_tab.make_link(None, "My diary", "char", 512, *settings(), *SAMPLING)


# --- 8. two languages ----------------------------------------------------------------------

def test_language_from_the_browser_and_translations_in_the_page():
    session = detect_language(Session(), gr.Request(headers={"accept-language": "zh-CN,zh;q=0.9"}))
    assert session.lang == "zh-CN"
    assert detect_language(Session(), gr.Request(headers={})).lang == "en"
    demo = build_demo()
    keys = set()
    for block in demo.blocks.values():
        for attr in ("label", "info", "value", "placeholder"):
            value = getattr(block, attr, None)
            if isinstance(value, gr.i18n.I18nData):
                keys.add(value.key)
            elif isinstance(value, str) and value.startswith("__i18n__"):  # buttons, markdown
                keys.add(json.loads(value[len("__i18n__"):])["key"])
    assert {"tab_compare", "label_n_layer", "info_n_layer", "memo_min_chars", "merges_step",
            "hub_token", "share_button", "show_references", "language_note"} <= keys
    assert keys <= set(EN) and keys <= set(ZH_CN)
    # every training setting's label and explanation goes through the translator
    assert all(f"label_{name}" in keys and f"info_{name}" in keys for name in train_tab.SETTINGS)


def test_compare_tab_and_links_speak_the_visitors_language(ready):
    train(ready)
    tokenizer_tab.train_tokenizer_handler(ready, "bpe", 300)
    train(ready)
    ready.lang = "zh-CN"
    figure, note, table = compare_tab.compare_runs(ready, ["run 1", "run 2"], "step")
    assert note == t("These runs use different tokenizers, so they are compared in bits per "
                     "character.", "zh-CN")
    assert table.headers == ["设置", "run 1", "run 2"]
    rows = {row[0]: row[1:] for row in table.value["data"]}
    assert rows["步数"] == ["6", "6"] and "最终每字符比特数" in rows and "tokenizer" in rows
    with pytest.raises(gr.Error) as info:
        compare_tab.prepare_one_change(ready, "run 1", "pos", "learned")
    assert re.search(r"[\u4e00-\u9fff]", info.value.message) and "learned" in info.value.message
    ready.lang = "en"
    headers, rows = compare_tab.comparison_table(ready.runs.runs)
    assert headers[0] == "setting" and [row[0] for row in rows[-5:]] == [
        "final validation loss", "final bits per character", "steps", "seconds", "parameters"]

    bad = export_tab.restore_from_link(
        Session(), gr.Request(headers={"accept-language": "zh-CN"},
                              query_params={"v": "1", "n_layer": "lots"}))
    assert bad[0].value.startswith("**这个链接中的设置无法使用：") and "n_layer" in bad[0].value
    assert "must be" not in bad[0].value  # the reason is in Chinese too


def test_the_page_language_wins_over_the_browser_header():
    from playground.ui.lang import follow_page_language

    session = follow_page_language(Session(), "en")  # reported by the page before load ran
    request = gr.Request(headers={"accept-language": "zh-CN,zh;q=0.9"})
    assert detect_language(session, request).lang == "en"
    assert follow_page_language(session, "zh-CN").lang == "zh-CN"
    assert follow_page_language(session, "").lang == "zh-CN"  # nothing reported: unchanged
    assert detect_language(Session(), request).lang == "zh-CN"


def test_static_page_text_is_translated_in_the_browser():
    coach = {lang: (t("Training coach", lang), t("Nothing to flag so far.", lang))
             for lang in ("en", "zh-CN")}
    assert EN["page_coach_empty"] == "**{}**  \n{}".format(*coach["en"])
    assert ZH_CN["page_coach_empty"] == "**{}**  \n{}".format(*coach["zh-CN"])
    for name, preset in train_tab.PRESETS.items():  # the menu says what the preset is
        assert EN[describe.preset_key(name)] == f"{preset.name}: {preset.description}"
        assert ZH_CN[describe.preset_key(name)].startswith(preset.name + "：")
    demo = build_demo()
    markers = {json.loads(str(value)[len("__i18n__"):])["key"]
               for block in demo.blocks.values()
               for value in [getattr(block, "value", None)]
               if isinstance(value, (str, gr.i18n.I18nData)) and str(value).startswith("__i18n__")}
    assert {"page_footer", "page_coach_empty", "tokenizer_none", "not_trained"} <= markers
    # the preset choice is written by the server (each with this machine's estimate, in the
    # visitor's language: train_tab.show_presets); built, it names every preset
    preset_menu = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "preset-choice")
    assert [value for _, value in preset_menu.choices] == list(train_tab.PRESETS)
    assert all(label.startswith(value) for label, value in preset_menu.choices)


def test_page_load_writes_in_the_visitors_language():
    from playground.ui.app import on_page_load

    request = gr.Request(headers={"accept-language": "zh-CN,zh;q=0.9"})
    session, summary, preview, described, device, figure = on_page_load(Session(), request,
                                                                        *settings())
    assert session.lang == "zh-CN" and summary.startswith("**语料：Tiny Shakespeare** · 1,115,394 个字符")
    assert preview.startswith("First Citizen:")
    assert "个参数**（训练分词器之前按词表大小 65 计算）" in described and device.startswith("**设备：**")
    assert re.search(r"[\u4e00-\u9fff]", figure.layout.xaxis.title.text)  # the plot's own words
    english = on_page_load(Session(), gr.Request(headers={"accept-language": "en-US"}), *settings())
    assert english[1].startswith("**Corpus: Tiny Shakespeare** · 1,115,394 characters")
    assert english[3].startswith("**") and " parameters** (vocabulary 65 until" in english[3]
    assert english[4].startswith("**Device:**")


def test_the_page_reports_its_language_through_a_change_event():
    from playground.ui.lang import PAGE_LANG_ID

    demo = build_demo()
    box = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == PAGE_LANG_ID)
    triggers = [(target[1], fn.name) for fn in demo.fns.values() for target in fn.targets
                if target[0] == box._id]
    # a hidden textbox sends no "input" events: SYNC_JS's edits arrive as "change"
    assert triggers == [("change", "on_language")]


def test_a_language_change_rewrites_what_the_server_wrote():
    from playground.ui.app import on_language

    session = Session()  # changed in place: sent back, it could undo a reattach (app.py)
    switch, summary, preview, described, device, figure = on_language(
        session, "zh-CN", *settings())
    assert (session.lang, switch, session.lang_from_page) == ("zh-CN", "zh-CN", True)
    assert summary.startswith("**语料：Tiny Shakespeare**") and device.startswith("**设备：**")
    assert "个参数" in described and re.search(r"[\u4e00-\u9fff]", figure.layout.xaxis.title.text)
    back = on_language(session, "en", *settings())
    assert back[0] == "en" and back[1].startswith("**Corpus: Tiny Shakespeare**")
    assert back[4].startswith("**Device:**") and figure.layout.xaxis.title.text != back[5].layout.xaxis.title.text


def test_lang_in_the_address_picks_the_language_and_is_no_setting():
    request = gr.Request(headers={"accept-language": "en-US"}, query_params={"lang": "zh-CN"})
    assert detect_language(Session(), request).lang == "zh-CN"
    request = gr.Request(headers={"accept-language": "zh-CN"}, query_params={"lang": "en"})
    assert detect_language(Session(), request).lang == "en"
    # beside a shared link's settings it is not reported as an unknown setting
    shared = export_tab.restore_from_link(Session(), gr.Request(
        headers={}, query_params={"v": "1", "n_layer": "2", "lang": "zh-CN"}))
    assert shared[0].value == "**" + t("Settings restored from the link.", "zh-CN") + "**"


def test_the_page_load_is_one_chain_in_a_fixed_order():
    """Come back, language, link, then what the settings draw: each step sees the one before
    (a link's settings once were restored beside the language, in either order)."""
    demo = build_demo()
    fns = {fn._id: fn for fn in demo.fns.values()}
    ours = [fn.name for fn in fns.values() if any(event == "load" for _, event in fn.targets)
            and fn.name not in (None, "new_session", "new_state", "new_view", "<lambda>")]
    assert ours == ["on_load"]
    chain, at = [], next(i for i, fn in fns.items() if fn.name == "on_load")
    while (after := [i for i, fn in fns.items() if fn.trigger_after == at]):
        at = after[0]
        chain.append(fns[at].name)
    assert chain == ["on_page_load", "restore_from_link", "open_lesson", "open_board",
                     "show_presets", "show_diagram"]


def test_the_switch_and_the_address_use_gradios_own_translator():
    from playground.ui import lang

    demo = build_demo()
    switch = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == lang.SWITCH_ID)
    assert [value for _, value in switch.choices] == ["en", "zh-CN"]
    assert [name for name, _ in switch.choices] == ["English", "简体中文"]
    for js in (lang.SWITCH_JS, lang.SYNC_JS):  # one way to switch, shared by both
        assert "core.changeLocale(lang)" in js and "relabelTabs" in js
    assert "URLSearchParams(window.location.search).get('lang')" in lang.SYNC_JS
    assert lang.TAB_LABELS["zh-CN"][2] == ZH_CN["tab_train"]
    # the tabs are written once: the page draws exactly those the switch relabels, Inside too
    drawn = [b.id for b in demo.blocks.values() if isinstance(b, gr.Tab)]
    assert drawn == list(lang.TABS) and "5b · 模型内部" in lang.TAB_LABELS["zh-CN"]
