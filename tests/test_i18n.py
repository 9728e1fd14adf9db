"""English and Simplified Chinese: every message said on the server has its Chinese with the same
placeholders, the page's labels have the same ids in both languages (one table of every
problem), and t(), msg() and localize() work."""

import ast
import dataclasses
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

import playground
from playground.config import ModelConfig, TrainConfig
from playground.i18n import (
    Message, error_text, labels, localize, msg, pick_language, placeholders, t, zh_cn,
)

PACKAGE = Path(playground.__file__).parent
LEGACY = vars(zh_cn).get("LEGACY", {})  # ids some call sites still pass, while they last


def strings(node: ast.AST) -> list[str]:
    """The strings an expression may give: a literal, both branches of ``a if c else b``, the
    values of a dict (``{"done": "Done."}.get(reason, "Problem:")``)."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.IfExp):
        return strings(node.body) + strings(node.orelse)
    if isinstance(node, ast.Dict):
        return [text for value in node.values for text in strings(value)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return strings(node.func.value) + [text for arg in node.args[1:] for text in strings(arg)]
    return []


def said_in_source() -> dict[str, set[str]]:
    """{English template: the modules that say it}: every string literal that is the first
    argument of msg() or t() in playground/, or assigned to a name passed there (``strings``)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text())
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
                 and isinstance(node.func, ast.Name) and node.func.id in ("msg", "t")]
        said = [call.args[0] for call in calls]
        # key = "a" if c else "b"; msg(key, ...): the strings assigned to such a name
        names = {first.id for first in said if isinstance(first, ast.Name)}
        said += [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and any(isinstance(x, ast.Name) and x.id in names for x in node.targets)]
        for text in (text for first in said for text in strings(first) if text):
            found.setdefault(LEGACY.get(text, text), set()).add(module)
    for english in LEGACY.values():  # said through an id, from a file not converted yet
        found.setdefault(english, set()).add("(legacy)")
    return found


def translation_problems(catalogues: dict[str, dict[str, str]], ids: bool = True) -> list[str]:
    """Every problem in ``{language: {key: message}}``, one line each: a message missing in a
    language, placeholders that differ from the English, empty or padded text, a placeholder
    the browser's translator cannot read, a key it would read as nested, or text that does
    not format with its own placeholders. ``ids=False``: keyed by the English text itself
    (the server's messages), which needs no flat identifier."""
    problems = []
    for key in sorted(set().union(*catalogues.values())):
        if ids and not re.fullmatch(r"[a-z][a-z0-9_]*", key):  # a dot would make the page look for nesting
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


SAID = said_in_source()


def keyed_twice(path: Path) -> list[str]:
    """The keys written more than once in a module's dict literals: in one table a second
    entry would silently replace the first."""
    keys = [key.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Dict) for key in node.keys if isinstance(key, ast.Constant)]
    return sorted({key for key in keys if keys.count(key) > 1})


def test_the_scan_finds_the_messages():
    assert len(SAID) > 250
    assert "{name} must be a whole number, got {value}." in SAID
    assert any("insight/coach.py" in modules for modules in SAID.values())


def test_every_message_said_has_its_chinese_with_the_same_placeholders():
    problems = []
    for english, modules in sorted(SAID.items()):
        # one table for the core's messages and the page's, in the core: what the core says
        # is translated without playground.ui (no Gradio there)
        if english not in zh_cn.ZH_CN:
            problems.append(f"no Chinese for {english!r} (said in {sorted(modules)})")
    catalogue = zh_cn.ZH_CN
    problems += translation_problems({"en": {e: e for e in catalogue}, "zh-CN": catalogue}, ids=False)
    assert problems == [], "\n".join(problems)


def test_no_chinese_entry_is_left_without_its_english():
    assert sorted(set(zh_cn.ZH_CN) - set(SAID)) == []
    # the core's messages and the page's in one table: none is translated twice
    assert keyed_twice(Path(zh_cn.__file__)) == []
    assert keyed_twice(Path(labels.__file__)) == []


def test_keyed_twice_finds_a_repeated_key(tmp_path):
    table = tmp_path / "table.py"
    table.write_text('T = {"Done.": "完成。", "Stop.": "停止。", "Done.": "好了。"}\n')
    assert keyed_twice(table) == ["Done."]


def test_chinese_messages_are_translated():
    catalogue = zh_cn.ZH_CN
    assert [k for k, v in catalogue.items() if k == v] == []
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", m)) for m in catalogue.values()) > 0.9 * len(catalogue)


def test_the_legacy_ids_say_the_english_of_a_message():
    assert all(english in zh_cn.ZH_CN for english in LEGACY.values())
    for key, english in LEGACY.items():
        assert msg(key, **{name: "x" for name in placeholders(english)}).template == english


# --- the page's labels (translated in the browser, by id) ---------------------------------------

def test_every_label_is_in_both_languages_with_the_same_placeholders():
    problems = translation_problems({"en": labels.EN, "zh-CN": labels.ZH_CN})
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


def test_chinese_labels_are_translated():
    same = [k for k in labels.EN if labels.EN[k] == labels.ZH_CN[k]]
    # names and symbols that stay as they are in Chinese text too
    assert sorted(same) == ["label_beta1", "label_beta2", "top_k", "top_p"]
    chinese = sum(bool(re.search(r"[\u4e00-\u9fff]", m)) for m in labels.ZH_CN.values())
    assert chinese > 0.9 * len(labels.ZH_CN)


def test_every_config_field_has_a_label_and_an_info_line():
    fields = {f.name for cls in (ModelConfig, TrainConfig) for f in dataclasses.fields(cls)}
    assert set(labels.SETTING_FIELDS) == fields
    for name in fields:
        assert f"label_{name}" in labels.EN and f"info_{name}" in labels.EN
        assert name in labels.EN[f"label_{name}"]  # the field's own name stays visible (one vocabulary)


def test_the_controls_the_page_needs_have_labels():
    needed = ["tab_corpus", "tab_tokenizer", "tab_train", "tab_generate", "tab_attention",
              "tab_compare", "tab_export", "corpus_source", "choice_source_upload", "choice_source_paste",
              "tokenizer_kind", "vocab_size", "preset", "start_button", "stop_button",
              "download_button", "upload_bundle", "prompt", "max_new_tokens", "temperature",
              "top_k", "top_p", "layer", "head", "hub_token", "memo_min_chars", "one_change_button"]
    assert [k for k in needed if k not in labels.EN] == []
    said = ["Training coach", "Something unexpected went wrong (the details are in the server log). "
            "Nothing you made so far was lost; try again, or change the settings.",
            "Your own text is not part of the link: whoever opens it must upload or paste the same text."]
    assert [s for s in said if s not in SAID] == []


def test_gradio_i18n_dict_has_the_shape_gr_i18n_takes():
    data = labels.gradio_i18n_dict()
    assert data == {"en": labels.EN, "zh-CN": labels.ZH_CN} and data["en"] is not labels.EN
    import gradio as gr

    i18n = gr.I18n(**data)
    assert i18n.translations_dict == data
    assert i18n("start_button").key == "start_button"


# --- t(), msg(), localize() --------------------------------------------------------------------

def test_t_fills_values_and_falls_back_to_english():
    assert t("Uploaded to {url}.", "zh-CN", url="https://huggingface.co/a/b") == "已上传到 https://huggingface.co/a/b。"
    assert t("Uploaded to {url}.", "fr", url="x") == "Uploaded to x."
    assert t("Training coach", "zh") == "训练教练"
    assert t("Training coach", None) == "Training coach"
    assert t("Not in any catalogue.", "zh-CN") == "Not in any catalogue."


def test_t_refuses_missing_values():
    with pytest.raises(KeyError, match="url"):
        t("Uploaded to {url}.", "en")


@pytest.mark.parametrize("header, lang", [
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"), ("zh-TW", "zh-CN"), ("en-US,en;q=0.9", "en"),
    ("fr-FR,fr;q=0.9,zh;q=0.8", "zh-CN"), ("de,fr", "en"), ("en;q=0.5,zh-CN;q=0.9", "zh-CN"),
    ("", "en"), (None, "en"), ("zh;q=oops,en", "en"), ("*", "en"),
])
def test_pick_language_follows_the_browser_preference(header, lang):
    assert pick_language(header) == lang


def test_the_new_core_modules_import_no_gradio():
    modules = ("playground.insight.coach, playground.export.publish, playground.export.standalone, "
               "playground.i18n, playground.insight.memorization, playground.insight.baselines, "
               "playground.insight.runs, playground.export.links, playground.plots")
    code = (f"import sys; import {modules}; "
            "print('gradio' in sys.modules, any(m.startswith('playground.ui') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_a_message_is_english_text_that_can_be_said_again_in_chinese():
    inner = msg("No span of {n} or more characters was copied from the training text.", n="7")
    outer = msg("The settings in this link cannot be used: {reason}", reason=inner)
    assert outer == ("The settings in this link cannot be used: No span of 7 or more characters "
                     "was copied from the training text.")
    assert localize(outer, "zh-CN") == "这个链接中的设置无法使用：没有 7 个字符或更长的片段是从训练文本中复制的。"
    assert localize(outer, "en") == outer and type(localize(outer, "en")) is str
    copy = pickle.loads(pickle.dumps(outer))
    assert isinstance(copy, Message) and copy == outer and localize(copy, "zh-CN") == localize(outer, "zh-CN")
    assert error_text(ValueError(outer), "zh-CN") == localize(outer, "zh-CN")
    assert error_text(ValueError(outer), "en") == str(outer)
    assert error_text(ValueError("said in English only"), "zh-CN") == "said in English only"
