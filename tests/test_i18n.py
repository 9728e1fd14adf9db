"""English and Simplified Chinese: the same keys, the same placeholders (one table of every
problem), a working t()."""

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


def translation_problems(catalogues: dict[str, dict[str, str]]) -> list[str]:
    """Every problem in ``{language: {key: message}}``, one line each: a message missing in a
    language, placeholders that differ from the English, empty or padded text, a placeholder
    the browser's translator cannot read, a key it would read as nested, or text that does
    not format with its own placeholders."""
    problems = []
    for key in sorted(set().union(*catalogues.values())):
        if not re.fullmatch(r"[a-z][a-z0-9_]*", key):  # a dot would make the page look for nesting
            problems.append(f"{key}: not a flat identifier")
        missing = [lang for lang, messages in catalogues.items() if key not in messages]
        if missing:
            problems.append(f"{key}: no {' or '.join(missing)} text")
            continue
        try:
            english = placeholders(catalogues["en"][key])
        except ValueError:
            english = None  # reported on the English row below
        for lang, messages in catalogues.items():
            message, where = messages[key], f"{key} [{lang}]"
            if not message or message.strip() != message:
                problems.append(f"{where}: empty or padded: {message!r}")
            # svelte-i18n (Gradio's translator) reads ICU placeholders: {name}, nothing after it
            for field in re.findall(r"\{([^{}]*)\}", message):
                if not re.fullmatch(r"[a-z_]+", field):
                    problems.append(f"{where}: placeholder {{{field}}} is not a plain name")
            try:
                names = placeholders(message)
                filled = message.format(**{name: f"<{name}>" for name in names})  # as t() does
            except (KeyError, ValueError, IndexError) as error:
                problems.append(f"{where}: does not format: {error!r}")
                continue
            if english is not None and names != english:
                problems.append(f"{where}: placeholders {sorted(names)}, the English has {sorted(english)}")
            if any(f"<{name}>" not in filled for name in names) or "{" in filled or "}" in filled:
                problems.append(f"{where}: formats as {filled!r}")
    return problems


def test_every_message_is_in_both_languages_with_the_same_placeholders():
    assert set(STRINGS) == set(LANGUAGES) == {"en", "zh-CN"}
    problems = translation_problems(STRINGS)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("broken, problem", [
    ({"zh-CN": {}}, "hub_pushed: no zh-CN text"),
    ({"zh-CN": {"hub_pushed": "已上传到 {address}。"}}, "hub_pushed [zh-CN]: placeholders ['address']"),
    ({"zh-CN": {"hub_pushed": " "}}, "hub_pushed [zh-CN]: empty or padded"),
    ({"en": {"hub_pushed": "Uploaded to {url:>9}."}}, "hub_pushed [en]: placeholder {url:>9} is not"),
    ({"zh-CN": {"hub_pushed": "已上传到 {url}}。"}}, "hub_pushed [zh-CN]: does not format"),
    ({"en": {"hub_pushed": "Uploaded to {url."}}, "hub_pushed [en]: does not format"),
    ({"en": {"hub.pushed": "Uploaded."}, "zh-CN": {"hub.pushed": "已上传。"}}, "hub.pushed: not a flat"),
])
def test_the_table_names_each_kind_of_problem(broken, problem):
    catalogues = {"en": {"hub_pushed": "Uploaded to {url}."}, "zh-CN": {"hub_pushed": "已上传到 {url}。"}}
    assert translation_problems(catalogues) == []
    found = translation_problems({**catalogues, **broken})
    assert any(line.startswith(problem) for line in found), found


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
