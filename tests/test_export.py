"""Export: the standalone script writes exactly what playground.generate writes, its BPE
equals Hugging Face tokenizers', and the Hub push uploads the right files (no network)."""

import ast
import importlib.util
import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given, settings, strategies as st
from tokenizers import pre_tokenizers

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.export.publish import (
    BUNDLE_NAME, CARD_NAME, SCRIPT_NAME, ExportError, bundle_info, check_repo_id, hub_upload_plan,
    model_card, push_to_hub, standalone_script, write_standalone_script,
)
from playground.generate import generate_text
from playground.model import GPT
from playground.tokenizer import train_tokenizer

from checks import assert_translated

VARIANTS = {
    "learned-pre-layernorm-gelu-tied": {},
    "sinusoidal-post-rmsnorm-relu-bias-untied": dict(
        pos="sinusoidal", norm_placement="post", norm="rmsnorm", activation="relu", bias=True,
        tie_weights=False),
    "rope-pre-rmsnorm-swiglu-bias-scaled": dict(
        pos="rope", norm="rmsnorm", activation="swiglu", bias=True, scale_embedding=True),
    "none-post-layernorm-gelu-bias-untied-scaled": dict(
        pos="none", norm_placement="post", bias=True, tie_weights=False, scale_embedding=True),
    "rope-post-layernorm-swiglu-ratio": dict(
        pos="rope", norm_placement="post", activation="swiglu", tie_weights=False, mlp_ratio=2.5),
}
EXTRA_TEXT = "猫猫狗狗 café naïve it's they'll 123 456\n\n  " * 30


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    """The written script, imported as a module from its own file."""
    path = write_standalone_script(tmp_path_factory.mktemp("script"))
    spec = importlib.util.spec_from_file_location("generate_standalone", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.path = path
    return module


@pytest.fixture(scope="module")
def tokenizers(tiny_text):
    return {"char": train_tokenizer("char", tiny_text),
            "bpe": train_tokenizer("bpe", tiny_text + EXTRA_TEXT, vocab_size=400)}


def tiny_model(vocab_size: int, **variant) -> GPT:
    """A 2-layer model with weights spread wide (std 0.5), so that the logits differ clearly
    and sampling has real choices to make."""
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=vocab_size, block_size=16, n_layer=2, n_head=2, n_embd=16,
                            **variant))
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.5)
    return model.eval()


def test_the_script_imports_only_torch_safetensors_and_the_standard_library():
    tree = ast.parse(standalone_script())
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots.add(node.module.split(".")[0])
    assert roots - set(sys.stdlib_module_names) == {"torch", "safetensors"}


@pytest.mark.parametrize("kind", ["char", "bpe"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_script_writes_what_generate_writes(script, tokenizers, tmp_path, kind, variant):
    tok = tokenizers[kind]
    model = tiny_model(tok.vocab_size, **VARIANTS[variant])
    path = save_bundle(tmp_path / "m.zip", model, tok, TrainConfig(), history=[])
    loaded, script_tok = script.load_bundle(str(path))
    prompt = "ROMEO: Is it" if kind == "char" else "ROMEO: 猫 it's"
    # 40 new tokens with block_size 16: the window slides twice
    for sampling in (dict(temperature=0.0), dict(temperature=1.0, top_k=5, top_p=0.9, seed=7)):
        ours = "".join(script.generate(loaded, script_tok, prompt, 40, sampling["temperature"],
                                       sampling.get("top_k"), sampling.get("top_p"), sampling.get("seed")))
        for use_cache in (False, True):
            expected = generate_text(model, tok, prompt, max_new_tokens=40, use_cache=use_cache, **sampling)
            assert ours == expected, (sampling, use_cache)


def test_the_script_starts_from_a_newline_on_an_empty_prompt(script, tokenizers, tmp_path):
    tok = tokenizers["char"]
    model = tiny_model(tok.vocab_size)
    path = save_bundle(tmp_path / "m.zip", model, tok, TrainConfig(), history=[])
    loaded, script_tok = script.load_bundle(str(path))
    assert script.prompt_ids(script_tok, "") == tok.encode("\n")
    ours = "".join(script.generate(loaded, script_tok, "", 20, 0.0))
    assert ours == generate_text(model, tok, "", max_new_tokens=20, temperature=0.0)


@pytest.mark.parametrize("kind, sampling", [
    ("char", ["--temperature", "0"]),
    ("bpe", ["--temperature", "0.9", "--top_k", "20", "--seed", "3"]),
])
def test_the_script_runs_alone_from_the_command_line(script, tokenizers, tmp_path, kind, sampling):
    tok = tokenizers[kind]
    model = tiny_model(tok.vocab_size, pos="rope")
    path = save_bundle(tmp_path / "model.zip", model, tok, TrainConfig(), history=[])
    prompt = "ROMEO:"
    # -I: isolated mode, so neither the working directory nor PYTHONPATH can supply playground
    result = subprocess.run(
        [sys.executable, "-I", str(script.path), str(path), "--prompt", prompt,
         "--max_new_tokens", "30", *sampling],
        capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    kwargs = {"temperature": float(sampling[1])}
    if kind == "bpe":
        kwargs.update(top_k=20, seed=3)
    assert result.stdout == prompt + generate_text(model, tok, prompt, max_new_tokens=30, **kwargs) + "\n"


def test_the_script_explains_a_bad_prompt_or_file_without_a_traceback(script, tokenizers, tmp_path, capsys):
    tok = tokenizers["char"]
    path = save_bundle(tmp_path / "m.zip", tiny_model(tok.vocab_size), tok, TrainConfig(), history=[])
    assert script.main([str(path), "--prompt", "猫"]) == 1
    assert capsys.readouterr().err == "error: The model never saw these characters: ['猫']\n"
    assert script.main([str(tmp_path / "missing.zip")]) == 1
    assert "No such file" in capsys.readouterr().err


# --- the pure-Python byte-level BPE against Hugging Face tokenizers ------------------------

TRICKY = [
    "", "a", " ", "  ", "hello world", "Hello  world", "a\n\nb", "a \n b", "trailing  ", " lead",
    "it's they'll we've I'd you're I'm don't", "IT'S SHOUTING", "!'s", " 's", "''s",
    "tab\tand\t\ttabs", "\r\n windows\r\n", "x\x1cy\x1d\x1e\x1fz", "nbsp\u00a0here", "ideographic\u3000space",
    "numbers 123 4.5 ½ ² Ⅻ 一二三", "café naïve", "cafe\u0301", "猫猫狗狗 and 日本語テキスト",
    "emoji 🙂🙂 👩‍👩‍👧", "mixed123abc___", "\x00\x01 control", "\u2028line\u2029para", "\x85next",
]


@pytest.mark.parametrize("text", TRICKY)
def test_split_words_equals_the_byte_level_pre_tokenizer(script, text):
    expected = [piece for piece, _ in
                pre_tokenizers.ByteLevel(add_prefix_space=False).pre_tokenize_str(text)]
    byte_char = script.bytes_to_unicode()
    ours = ["".join(byte_char[b] for b in w.encode("utf-8")) for w in script.split_words(text)]
    assert ours == expected


# Characters this Python's Unicode database knows: a character added to Unicode later is
# unassigned here ("Cn") but a letter to tokenizers' newer tables, and may split differently.
KNOWN_CHARACTERS = st.characters(exclude_categories=["Cn", "Cs"])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \n\t\u00a0\u3000\x1c'sdtlmrve aZ9½猫\u0301!."))
               | KNOWN_CHARACTERS, max_size=40))
def test_split_words_equals_the_pre_tokenizer_on_random_text(script, text):
    expected = [piece for piece, _ in
                pre_tokenizers.ByteLevel(add_prefix_space=False).pre_tokenize_str(text)]
    byte_char = script.bytes_to_unicode()
    assert ["".join(byte_char[b] for b in w.encode("utf-8")) for w in script.split_words(text)] == expected


@pytest.mark.parametrize("text", TRICKY)
def test_bpe_encode_and_decode_equal_hugging_face(script, tokenizers, text):
    tok = tokenizers["bpe"]
    ours = script.load_tokenizer(__import__("json").loads(tok.to_json()))
    assert ours.encode(text) == tok.encode(text)
    assert ours.decode(tok.encode(text)) == text


@settings(max_examples=200, deadline=None)
@given(text=st.text(KNOWN_CHARACTERS, max_size=60), ids=st.lists(st.integers(0, 399), max_size=12))
def test_bpe_matches_hugging_face_on_random_text_and_ids(script, tokenizers, text, ids):
    tok = tokenizers["bpe"]
    ours = script.load_tokenizer(__import__("json").loads(tok.to_json()))
    assert ours.encode(text) == tok.encode(text)
    assert ours.decode(ids) == tok.decode(ids)  # partial UTF-8 sequences become U+FFFD alike


def test_the_script_refuses_a_bpe_it_does_not_know(script, tokenizers):
    spec = __import__("json").loads(tokenizers["bpe"].to_json())
    spec["tokenizer"]["model"]["ignore_merges"] = True
    with pytest.raises(ValueError, match="not the byte-level BPE"):
        script.load_tokenizer(spec)


def test_the_script_refuses_a_zip_that_is_not_a_bundle(script, tmp_path):
    import zipfile

    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("meta.json", '{"format": "something else"}')
    with pytest.raises(ValueError, match="not a Transformer Playground bundle"):
        script.load_bundle(str(path))


# --- the model card and the Hub -----------------------------------------------------------

HISTORY = [
    {"kind": "eval", "step": 0, "tokens": 0, "train_loss": 4.2, "val_loss": 4.2, "train_bpc": 6.06,
     "val_bpc": 6.06, "elapsed": 0.5, "sample": None},
    {"kind": "step", "step": 10, "tokens": 1280, "loss": 3.1, "lr": 1e-3, "tokens_per_s": 900.0,
     "elapsed": 2.0},
    {"kind": "eval", "step": 10, "tokens": 1280, "train_loss": 3.0, "val_loss": 3.25, "train_bpc": 4.33,
     "val_bpc": 4.69, "elapsed": 2.5, "sample": "To be"},
    {"kind": "end", "step": 10, "reason": "done", "message": "Finished all 10 steps."},
]


@pytest.fixture()
def bundle_path(tokenizers, tmp_path):
    tok = tokenizers["char"]
    model = tiny_model(tok.vocab_size, pos="rope")
    return save_bundle(tmp_path / "run.zip", model, tok, TrainConfig(max_steps=10, lr=3e-3, min_lr=3e-4),
                       history=HISTORY)


def test_model_card_has_front_matter_figures_settings_and_usage(bundle_path):
    info = bundle_info(bundle_path, corpus_name="Tiny Shakespeare")
    card = model_card(info, "alice/tiny-bard")
    front, _, body = card.partition("\n---\n")
    assert front.splitlines() == ["---", "library_name: pytorch", "license: mit",
                                  "pipeline_tag: text-generation", "tags:",
                                  "- transformer-playground", "- text-generation", "- gpt",
                                  "- from-scratch", "- char-level"]
    assert "# tiny-bard" in body
    assert f"| Parameters | {info.num_params:,} |" in body
    assert "| Training steps | 10 (1,280 tokens seen) |" in body
    assert "| Validation loss | 3.250 nats per token (4.690 bits per character) |" in body
    assert "| Corpus | Tiny Shakespeare |" in body
    assert "| Tokenizer | characters, " in body
    for key, value in info.model_config.items():
        assert f"| `{key}` | `{value}` |" in body
    assert "| `lr` | `0.003` |" in body
    assert "huggingface-cli download alice/tiny-bard model.zip generate_standalone.py" in body
    assert "python generate_standalone.py model.zip" in body


def test_upload_plan_lists_the_bundle_card_and_script(bundle_path):
    plan = dict(hub_upload_plan(bundle_path, "alice/tiny-bard", "hf_abc"))
    assert list(plan) == [BUNDLE_NAME, CARD_NAME, SCRIPT_NAME]
    assert plan[BUNDLE_NAME] == bundle_path
    assert plan[CARD_NAME].decode() == model_card(bundle_info(bundle_path), "alice/tiny-bard")
    assert plan[SCRIPT_NAME].decode() == standalone_script()


class FakeApi:
    """Records what push_to_hub asks of huggingface_hub.HfApi."""

    def __init__(self, fail_with: Exception | None = None):
        self.calls = []
        self.fail_with = fail_with

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))
        if self.fail_with:
            raise self.fail_with

    def create_commit(self, repo_id, operations, **kwargs):
        self.calls.append(("create_commit", repo_id, list(operations), kwargs))


def test_push_to_hub_creates_the_repo_and_uploads_three_files_in_one_commit(bundle_path):
    api = FakeApi()
    url = push_to_hub(bundle_path, "alice/tiny-bard", "hf_abc", private=True, api=api,
                      corpus_name="Tiny Shakespeare")
    assert url == "https://huggingface.co/alice/tiny-bard"
    (create, repo, create_kwargs), (commit, repo2, operations, commit_kwargs) = api.calls
    assert (create, repo, repo2, commit) == ("create_repo", "alice/tiny-bard", "alice/tiny-bard", "create_commit")
    assert create_kwargs["exist_ok"] is True and create_kwargs["private"] is True
    assert create_kwargs["token"] == commit_kwargs["token"] == "hf_abc"
    uploaded = {op.path_in_repo: op.path_or_fileobj for op in operations}
    assert list(uploaded) == [BUNDLE_NAME, CARD_NAME, SCRIPT_NAME]
    assert uploaded[BUNDLE_NAME] == str(bundle_path)
    card = uploaded[CARD_NAME].decode()
    assert card == model_card(bundle_info(bundle_path, "Tiny Shakespeare"), "alice/tiny-bard")
    assert uploaded[SCRIPT_NAME].decode() == standalone_script()


def test_push_to_hub_turns_a_refused_token_into_a_clear_error(bundle_path):
    refused = RuntimeError("401 Client Error")
    refused.response = SimpleNamespace(status_code=401)
    with pytest.raises(ExportError, match="did not accept the token"):
        push_to_hub(bundle_path, "alice/tiny-bard", "hf_bad", api=FakeApi(fail_with=refused))


@pytest.mark.parametrize("repo_id", ["", "alice", "alice/", "/model", "a/b/c", "alice/my model",
                                     "alice/-model", "alice/model.", "alice/a..b", "alice/a--b",
                                     "alice/" + "m" * 97, "alice/model.git", None, 42])
def test_bad_repo_ids_are_refused_with_the_rule(repo_id):
    with pytest.raises(ExportError, match="must look like user/name"):
        check_repo_id(repo_id)


def test_good_repo_ids_pass():
    for repo_id in ["alice/tiny", "Org-1/model_v2.1", "a/b", " bob/gpt "]:
        assert check_repo_id(repo_id) == repo_id.strip()


@pytest.mark.parametrize("token", ["", "   ", None, "hf abc"])
def test_a_missing_or_broken_token_is_refused_before_any_network(bundle_path, token):
    api = FakeApi()
    with pytest.raises(ExportError, match="token"):
        push_to_hub(bundle_path, "alice/tiny-bard", token, api=api)
    assert api.calls == []


def test_the_docstring_examples_run():
    import doctest

    from playground.export import publish as export

    assert doctest.testmod(export, optionflags=doctest.ELLIPSIS).failed == 0


# --- the page's language ------------------------------------------------------------------

def _hub_error(status=None, name="RuntimeError", text="500 Server Error: boom"):
    error = type(name, (Exception,), {})(text)
    if status is not None:
        error.response = SimpleNamespace(status_code=status)
    return error


@pytest.mark.parametrize("error, english, names", [
    (_hub_error(401), "The Hub did not accept the token: check that it is valid and has write access.", ()),
    (_hub_error(403), "The token may not write to alice/tiny-bard: use a token with write access, and a "
                      "user or organisation name it belongs to.", ("alice/tiny-bard",)),
    (_hub_error(name="ConnectionError"), "The Hugging Face Hub cannot be reached from here.", ("Hugging Face Hub",)),
    (_hub_error(), "Pushing to the Hub failed: 500 Server Error: boom", ("500 Server Error: boom",)),
], ids=["401", "403", "offline", "other"])
def test_hub_failures_read_the_same_in_english_and_translate(bundle_path, error, english, names):
    with pytest.raises(ExportError) as caught:
        push_to_hub(bundle_path, "alice/tiny-bard", "hf_abc", api=FakeApi(fail_with=error))
    assert_translated(caught.value, english, names)


@pytest.mark.parametrize("repo_id, token, english, names", [
    ("alice/my model", "hf_abc", "The repository must look like user/name: letters, digits, '-', '_' and "
     "'.', each part starting and ending with a letter or digit, at most 96 characters; got 'alice/my model'.",
     ("'alice/my model'",)),
    ("alice/tiny", " ", "Pushing to the Hub needs a Hugging Face token with write access "
     "(huggingface.co/settings/tokens).", ("huggingface.co/settings/tokens",)),
    ("alice/tiny", "hf abc", "The token has spaces in it; copy it again from huggingface.co/settings/tokens.",
     ("huggingface.co/settings/tokens",)),
])
def test_bad_repo_ids_and_tokens_read_the_same_in_english_and_translate(repo_id, token, english, names):
    with pytest.raises(ExportError) as caught:
        hub_upload_plan("unused.zip", repo_id, token)
    assert_translated(caught.value, english, names)
