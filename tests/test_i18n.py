"""English and Simplified Chinese: the same keys, the same placeholders, a working t()."""

import dataclasses
import re
import subprocess
import sys

import pytest

from playground.i18n import (
    EN, LANGUAGES, PAGE_KEYS, SETTING_FIELDS, STRINGS, ZH_CN, Message, error_text, gradio_i18n_dict,
    localize, msg, pick_language, placeholders, t,
)
from playground.config import ModelConfig, TrainConfig


def test_both_languages_have_exactly_the_same_keys():
    assert set(STRINGS) == set(LANGUAGES) == {"en", "zh-CN"}
    assert sorted(set(EN) - set(ZH_CN)) == []
    assert sorted(set(ZH_CN) - set(EN)) == []


@pytest.mark.parametrize("key", sorted(EN))
def test_placeholders_are_identical_in_both_languages(key):
    assert placeholders(ZH_CN[key]) == placeholders(EN[key])


@pytest.mark.parametrize("key", sorted(EN))
def test_every_message_is_non_empty_and_formats_with_its_placeholders(key):
    for lang in STRINGS:
        message = STRINGS[lang][key]
        assert message.strip() == message and message
        values = {name: f"<{name}>" for name in placeholders(message)}
        filled = t(key, lang, **values)
        assert all(f"<{name}>" in filled for name in values)
        assert "{" not in filled and "}" not in filled


def test_placeholders_are_plain_names_the_browser_translator_also_reads():
    # svelte-i18n (Gradio's translator) reads ICU placeholders: {name}, nothing after the name
    for lang, messages in STRINGS.items():
        for key, message in messages.items():
            for field in re.findall(r"\{([^{}]*)\}", message):
                assert re.fullmatch(r"[a-z_]+", field), (lang, key, field)


def test_keys_are_flat_identifiers():
    # a dot would make the page's translator look for a nested message
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", key) for key in EN)


def test_chinese_messages_are_translated():
    same = [k for k in EN if EN[k] == ZH_CN[k]]
    # names and symbols that stay as they are in Chinese text too
    assert sorted(same) == ["label_beta1", "label_beta2", "top_k", "top_p"]
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", m)) for m in ZH_CN.values()) > 0.9 * len(ZH_CN)


def test_every_config_field_has_a_label_and_an_info_line():
    fields = {f.name for cls in (ModelConfig, TrainConfig) for f in dataclasses.fields(cls)}
    assert set(SETTING_FIELDS) == fields
    for name in fields:
        assert f"label_{name}" in EN and f"info_{name}" in EN
        assert name in EN[f"label_{name}"]  # the field's own name stays visible (one vocabulary)


def test_the_controls_the_page_needs_have_messages():
    needed = ["tab_corpus", "tab_tokenizer", "tab_train", "tab_generate", "tab_attention",
              "tab_compare", "tab_export", "corpus_source", "choice_source_upload", "choice_source_paste",
              "tokenizer_kind", "vocab_size", "preset", "start_button", "stop_button",
              "download_button", "upload_bundle", "prompt", "max_new_tokens", "temperature",
              "top_k", "top_p", "layer", "head", "coach_title", "error_unexpected",
              "share_upload_note", "hub_token", "memo_min_chars", "one_change_button"]
    assert [k for k in needed if k not in EN] == []


def test_t_fills_values_and_falls_back_to_english():
    assert t("hub_pushed", "zh-CN", url="https://huggingface.co/a/b") == "已上传到 https://huggingface.co/a/b。"
    assert t("hub_pushed", "fr", url="x") == "Uploaded to x."
    assert t("start_button", "zh") == "开始训练"
    assert t("start_button", None) == "Start training"


def test_t_refuses_unknown_keys_and_missing_values():
    with pytest.raises(KeyError, match="no_such_message"):
        t("no_such_message", "en")
    with pytest.raises(KeyError, match="url"):
        t("hub_pushed", "en")


@pytest.mark.parametrize("header, lang", [
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"), ("zh-TW", "zh-CN"), ("en-US,en;q=0.9", "en"),
    ("fr-FR,fr;q=0.9,zh;q=0.8", "zh-CN"), ("de,fr", "en"), ("en;q=0.5,zh-CN;q=0.9", "zh-CN"),
    ("", "en"), (None, "en"), ("zh;q=oops,en", "en"), ("*", "en"),
])
def test_pick_language_follows_the_browser_preference(header, lang):
    assert pick_language(header) == lang


def test_gradio_i18n_dict_has_the_shape_gr_i18n_takes():
    data = gradio_i18n_dict()
    assert data.keys() == STRINGS.keys() and data["en"] is not EN
    for lang, messages in data.items():  # the page's own text; server messages stay home
        assert messages.keys() == PAGE_KEYS
        assert messages == {k: STRINGS[lang][k] for k in PAGE_KEYS}
    assert len(EN) > len(PAGE_KEYS)
    import gradio as gr

    i18n = gr.I18n(**data)
    assert i18n.translations_dict == data
    assert i18n("start_button").key == "start_button"


def test_the_new_core_modules_import_no_gradio():
    modules = ("playground.insight.coach, playground.export.publish, playground.export.standalone, "
               "playground.i18n, playground.insight.memorization, playground.insight.baselines, "
               "playground.insight.runs, playground.export.links")
    code = f"import sys; import {modules}; print('gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_docstring_examples_run():
    import doctest

    from playground import i18n

    assert doctest.testmod(i18n, optionflags=doctest.ELLIPSIS).failed == 0


def test_a_message_is_english_text_that_can_be_said_again_in_chinese():
    import pickle

    inner = msg("memo_none", n="7")
    outer = msg("error_bad_link", reason=inner)
    assert outer == t("error_bad_link", "en", reason=t("memo_none", "en", n="7"))
    assert localize(outer, "zh-CN") == t("error_bad_link", "zh-CN", reason=t("memo_none", "zh-CN", n="7"))
    assert localize(outer, "en") == outer and type(localize(outer, "en")) is str
    copy = pickle.loads(pickle.dumps(outer))
    assert isinstance(copy, Message) and copy == outer and localize(copy, "zh-CN") == localize(outer, "zh-CN")
    assert error_text(ValueError(outer), "zh-CN") == localize(outer, "zh-CN")
    assert error_text(ValueError(outer), "en") == str(outer)
    assert error_text(ValueError("said in English only"), "zh-CN") == "said in English only"
    with pytest.raises(KeyError):
        msg("no_such_message")
