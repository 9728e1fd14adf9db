"""The standalone script (playground.export.standalone, written by export.publish): it writes
exactly what playground.generate writes, and its BPE equals Hugging Face tokenizers'."""

import ast
import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings, strategies as st
from tokenizers import pre_tokenizers

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, SampleConfig, TrainConfig
from playground.export.publish import standalone_script
from playground.generate import generate_text
from playground.model import GPT
from playground.tokenizer import train_tokenizer

from checks import TINY_MODEL

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
    "rope-pre-rmsnorm-relu2-qknorm-zeroinit-untied": dict(
        pos="rope", norm="rmsnorm", activation="relu2", qk_norm=True, zero_init=True, token_shift=True,
        tie_weights=False),
    "learned-post-layernorm-relu2-qknorm-bias": dict(
        pos="learned", norm_placement="post", activation="relu2", qk_norm=True, bias=True,
        token_shift=True),
    "rope-pre-bigram-value_embed-softcap": dict(
        pos="rope", norm="rmsnorm", activation="relu2", qk_norm=True, token_shift=True,
        bigram=True, value_embed=True, logit_softcap=4.0),
    "learned-post-bigram-value_embed-untied": dict(
        norm_placement="post", bigram=True, value_embed=True, tie_weights=False),
}
EXTRA_TEXT = "猫猫狗狗 café naïve it's they'll 123 456\n\n  " * 30


@pytest.fixture(scope="module")
def tokenizers(tiny_text):
    return {"char": train_tokenizer("char", tiny_text),
            "bpe": train_tokenizer("bpe", tiny_text + EXTRA_TEXT, vocab_size=400)}


def tiny_model(vocab_size: int, **variant) -> GPT:
    """A 2-layer model with weights spread wide (std 0.5), so that the logits differ clearly
    and sampling has real choices to make."""
    torch.manual_seed(0)
    model = GPT(ModelConfig(**{**TINY_MODEL, "n_layer": 2, **variant}, vocab_size=vocab_size))
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
            expected = generate_text(model, tok, prompt, SampleConfig(40, **sampling),
                                     use_cache=use_cache)
            assert ours == expected, (sampling, use_cache)


def test_the_script_starts_from_a_newline_on_an_empty_prompt(script, tokenizers, tmp_path):
    tok = tokenizers["char"]
    model = tiny_model(tok.vocab_size)
    path = save_bundle(tmp_path / "m.zip", model, tok, TrainConfig(), history=[])
    loaded, script_tok = script.load_bundle(str(path))
    assert script.prompt_ids(script_tok, "") == tok.encode("\n")
    ours = "".join(script.generate(loaded, script_tok, "", 20, 0.0))
    assert ours == generate_text(model, tok, "", SampleConfig(20, temperature=0.0))


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
    assert result.stdout == prompt + generate_text(model, tok, prompt, SampleConfig(30, **kwargs)) + "\n"


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
