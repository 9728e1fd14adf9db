"""Shareable settings: round trips, compact links, and links written by someone hostile."""

import dataclasses
import re
from urllib.parse import quote

import pytest
from hypothesis import given, settings, strategies as st

from playground.config import ModelConfig, TrainConfig
from playground.i18n import error_text
from playground.export.links import (
    DEFAULTS_V1, KEYS, MAX_QUERY_CHARS, SAMPLING_KEYS, SharedSettings, ShareError, decode_settings,
    encode_settings, share_url,
)

from checks import assert_translated

def test_the_frozen_v1_defaults_are_todays_defaults():
    # If this fails, the config defaults changed: freeze the new ones as DEFAULTS_V2 and bump
    # VERSION, so that links made before keep their meaning.
    model = ModelConfig().to_dict()
    del model["vocab_size"]
    for key, value in {**model, **TrainConfig().to_dict()}.items():
        assert DEFAULTS_V1[key] == value and type(DEFAULTS_V1[key]) is type(value), key
    model_and_train = {f.name for cls in (ModelConfig, TrainConfig) for f in dataclasses.fields(cls)}
    assert set(KEYS) == (model_and_train - {"vocab_size"}) | {"corpus", "tokenizer", "vocab_size", *SAMPLING_KEYS}


def test_a_link_made_before_the_newer_switches_opens_the_same_run():
    """Links from before qk_norm and zero_init existed lack them: they read as off, as then."""
    shared = decode_settings("?v=1&n_layer=2&pos=rope&activation=relu")
    model = shared.model_config(vocab_size=65)
    assert (model.qk_norm, model.zero_init) == (False, False)
    assert model == ModelConfig(vocab_size=65, n_layer=2, pos="rope", activation="relu")
    on = encode_settings({"qk_norm": True, "zero_init": True, "activation": "relu2"})
    assert on == "v=1&activation=relu2&qk_norm=1&zero_init=1"
    assert decode_settings(on).model_config(65).qk_norm is True


def test_defaults_make_the_shortest_link_and_read_back_as_defaults():
    assert encode_settings({}) == "v=1"
    assert encode_settings(DEFAULTS_V1) == "v=1"
    shared = decode_settings("")
    assert shared == SharedSettings(dict(DEFAULTS_V1), [], False)
    assert shared.train_config == TrainConfig()
    assert shared.model_config(vocab_size=65) == ModelConfig()


def test_a_link_only_writes_what_differs_and_is_readable():
    query = encode_settings({"tokenizer": "bpe", "vocab_size": 1024, "n_layer": 2, "pos": "rope",
                             "bias": True, "lr": 3e-3, "min_lr": 3e-4, "prompt": "猫 & dog?",
                             "temperature": 0.0, "top_k": 40})
    assert query == ("v=1&tokenizer=bpe&vocab_size=1024&n_layer=2&bias=1&pos=rope&lr=0.003"
                     "&min_lr=0.0003&prompt=%E7%8C%AB+%26+dog%3F&temperature=0.0&top_k=40")
    shared = decode_settings(query)
    assert shared.settings["prompt"] == "猫 & dog?"
    assert shared.model_config(512).pos == "rope" and shared.train_config.lr == 0.003
    assert shared.sampling == {"prompt": "猫 & dog?", "max_new_tokens": 300, "temperature": 0.0,
                               "top_k": 40, "top_p": 1.0, "sample_seed": 0}


def test_page_values_are_normalised_to_their_setting_types():
    # a number widget gives 2.0 for n_layer; a checkbox gives a bool
    assert encode_settings({"n_layer": 2.0, "compile": True, "lr": 1}) == "v=1&n_layer=2&lr=1.0&compile=1"


def test_own_text_is_never_in_the_link_and_the_reader_is_told():
    query = encode_settings({"corpus": "upload"})
    assert query == "v=1&corpus=upload"
    shared = decode_settings(query)
    assert shared.needs_own_text and shared.settings["corpus"] == "upload"
    assert not decode_settings("corpus=hub").needs_own_text


def test_whole_urls_fragments_and_mappings_all_work():
    url = share_url("https://example.org/space/?old=1#x", {"n_layer": 2})
    assert url == "https://example.org/space/?v=1&n_layer=2"
    assert decode_settings(url).settings["n_layer"] == 2
    assert decode_settings("?n_layer=2#top").settings["n_layer"] == 2
    assert decode_settings({"v": "1", "n_layer": "2"}).settings["n_layer"] == 2


def test_unknown_keys_are_ignored_and_listed():
    shared = decode_settings("v=1&n_layer=2&colour=blue&" + "x" * 100 + "=1")
    assert shared.settings["n_layer"] == 2
    assert shared.ignored == ["colour", "x" * 40]


@pytest.mark.parametrize("query, message", [
    ("v=2", "format \\('2'\\) is unknown"),
    ("v=one", "is unknown"),
    ("n_layer=lots", "n_layer must be a whole number, got 'lots'"),
    ("n_layer=", "n_layer must be a whole number, got ''"),
    ("n_layer=2.5", "whole number"),
    ("n_layer=1e400", "whole number"),
    ("n_layer=__import__('os')", "whole number"),
    ("lr=nan", "lr must be a number"),
    ("lr=inf", "lr must be a number"),
    ("lr=0.01&min_lr=0.1", "cannot be above the peak lr"),
    ("n_embd=100&n_head=3", "must divide evenly"),
    ("n_layer=1000000", "n_layer must be between"),
    ("bias=yes", "bias must be 1 or 0"),
    ("pos=alibi", "pos must be one of"),
    ("corpus=/etc/passwd", "corpus must be one of"),
    ("tokenizer=word", "tokenizer must be char or bpe"),
    ("vocab_size=100", "vocab_size must be from 256"),
    ("temperature=9", "temperature must be between 0 and 2"),
    ("top_p=0", "top_p must be between"),
    ("max_new_tokens=0", "max_new_tokens must be between"),
    ("n_layer=2&n_layer=3", "gives the setting n_layer twice"),
    ("prompt=%ff%fe", "cannot be read"),
    ("prompt=" + "a" * 2001, "prompt is longer than 2,000"),
    ("a=" + "b" * MAX_QUERY_CHARS, "longer than 8,000"),
    ("&".join(f"k{i}=1" for i in range(101)), "cannot be read"),
])
def test_bad_links_are_refused_with_a_reason(query, message):
    with pytest.raises(ShareError, match=message):
        decode_settings(query)


def test_mappings_are_capped_too():
    with pytest.raises(ShareError, match="more than 100 settings"):
        decode_settings({f"k{i}": "1" for i in range(101)})
    with pytest.raises(ShareError, match="longer than"):
        decode_settings({"prompt": "a" * (MAX_QUERY_CHARS + 1)})
    with pytest.raises(ShareError, match="A link is text"):
        decode_settings(42)


@pytest.mark.parametrize("settings, message", [
    ({"colour": "blue"}, "not settings a link can carry: colour"),
    ({"n_layer": "two"}, "whole number"),
    ({"n_layer": True}, "must be a number"),
    ({"prompt": None}, "must be text"),
    ({"lr": float("nan")}, "must be a number"),
    ({"n_embd": 100, "n_head": 3}, "must divide evenly"),
])
def test_a_link_is_never_made_of_settings_that_fail_when_opened(settings, message):
    with pytest.raises(ShareError, match=message):
        encode_settings(settings)


# --- properties ---------------------------------------------------------------------------

@st.composite
def valid_settings(draw):
    """Any subset of settings, each valid, and valid together."""
    n_head = draw(st.sampled_from([1, 2, 4, 8]))
    head_size = draw(st.sampled_from([2, 4, 8, 16]))
    lr = draw(st.floats(1e-6, 1.0))
    grad_accum = draw(st.sampled_from([1, 2, 4]))
    candidates = {
        "corpus": st.sampled_from(["bundled", "hub", "upload", "paste"]),
        "tokenizer": st.sampled_from(["char", "bpe"]),
        "vocab_size": st.integers(256, 16_384),
        "block_size": st.integers(1, 4096),
        "n_layer": st.integers(1, 256),
        "n_head": st.just(n_head),
        "n_embd": st.just(n_head * head_size),
        "dropout": st.floats(0.0, 0.9),
        "bias": st.booleans(),
        "pos": st.sampled_from(["learned", "sinusoidal", "rope", "none"]),
        "norm": st.sampled_from(["layernorm", "rmsnorm"]),
        "norm_placement": st.sampled_from(["pre", "post"]),
        "activation": st.sampled_from(["gelu", "relu", "relu2", "swiglu"]),
        "mlp_ratio": st.floats(0.25, 64.0),
        "tie_weights": st.booleans(),
        "qk_norm": st.booleans(),
        "zero_init": st.booleans(),
        "token_shift": st.booleans(),
        "max_steps": st.integers(1, 10_000_000),
        "batch_size": st.integers(1, 100).map(lambda b: b * grad_accum),
        "grad_accum": st.just(grad_accum),
        "lr": st.just(lr),
        "min_lr": st.floats(0.0, 1.0).map(lambda f: f * lr),
        "seed": st.integers(0, 2**63 - 1),
        "dtype": st.sampled_from(["auto", "float32", "bfloat16", "float16"]),
        "compile": st.booleans(),
        "prompt": st.text(max_size=200),
        "max_new_tokens": st.integers(1, 2000),
        "temperature": st.floats(0.0, 2.0),
        "top_k": st.integers(0, 200),
        "top_p": st.floats(0.05, 1.0),
        "sample_seed": st.integers(0, 2**63 - 1),
    }
    keys = draw(st.sets(st.sampled_from(sorted(candidates))))
    if {"n_head", "n_embd"} & keys:
        keys |= {"n_head", "n_embd"}  # they only fit together
    if {"lr", "min_lr"} & keys:
        keys |= {"lr", "min_lr"}
    if {"batch_size", "grad_accum"} & keys:
        keys |= {"batch_size", "grad_accum"}
    return {k: draw(candidates[k]) for k in keys}


@settings(max_examples=300, deadline=None)
@given(valid_settings())
def test_every_valid_setting_survives_the_round_trip(chosen):
    query = encode_settings(chosen)
    assert len(query) < MAX_QUERY_CHARS
    shared = decode_settings(query)
    assert shared.settings == {**DEFAULTS_V1, **chosen}
    assert shared.ignored == []
    assert decode_settings("https://host/app?" + query) == shared


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_read_or_refused_with_a_share_error(text):
    try:
        shared = decode_settings(text)
    except ShareError:
        return
    assert set(shared.settings) == set(DEFAULTS_V1)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(list(KEYS) + ["v", "junk"]) | st.text(max_size=10),
                       st.text(max_size=20) | st.floats().map(str) | st.integers().map(str),
                       max_size=12))
def test_hostile_key_values_are_read_or_refused_with_a_share_error(params):
    query = "&".join(f"{quote(k)}={quote(v)}" for k, v in params.items())
    for link in (query, params):
        try:
            shared = decode_settings(link)
        except ShareError:
            continue
        # whatever was accepted is usable by the configs
        shared.train_config  # noqa: B018 (building the config must not raise)
        shared.model_config(vocab_size=300)


# --- the page's language ------------------------------------------------------------------

@pytest.mark.parametrize("link, english, names", [
    ("v=2", "This link's format ('2') is unknown here: it was made by another version of the app. "
            "Open it there, or update this one.", ("'2'",)),
    ("n_layer=lots", "The link's setting n_layer must be a whole number, got 'lots'.", ("n_layer", "'lots'")),
    ("lr=nan", "The link's setting lr must be a number, got 'nan'.", ("lr", "'nan'")),
    ("bias=yes", "The link's setting bias must be 1 or 0 (on or off), got 'yes'.", ("bias", "'yes'")),
    ("corpus=/etc/passwd", "The link's corpus must be one of bundled, hub, upload, paste, got '/etc/passwd'.",
     ("bundled, hub, upload, paste", "'/etc/passwd'")),
    ("tokenizer=word", "The link's tokenizer must be char or bpe, got 'word'.", ("char", "bpe", "'word'")),
    ("vocab_size=100", "The link's BPE vocab_size must be from 256 to 16,384, got 100.", ("vocab_size",)),
    ("prompt=" + "a" * 2001, "The link's prompt is longer than 2,000 characters.", ()),
    ("temperature=9", "The link's setting temperature must be between 0 and 2, got 9.", ("temperature",)),
    ("n_layer=2&n_layer=3", "The link gives the setting n_layer twice; keep one.", ("n_layer",)),
    ("a=" + "b" * MAX_QUERY_CHARS, "The link is longer than 8,000 characters; it is not a link to "
                                   "these settings.", ()),
    ({f"k{i}": "1" for i in range(101)}, "The link holds more than 100 settings; it is not a link to "
                                         "these settings.", ()),
    (42, "A link is text, got int.", ("int",)),
], ids=lambda value: str(value)[:30] if isinstance(value, (str, int)) else None)
def test_link_errors_read_the_same_in_english_and_translate(link, english, names):
    with pytest.raises(ShareError) as caught:
        decode_settings(link)
    assert_translated(caught.value, english, names)


@pytest.mark.parametrize("settings, english, names", [
    ({"colour": "blue"}, "These are not settings a link can carry: colour.", ("colour",)),
    ({"n_layer": True}, "The setting n_layer must be a number, got True.", ("n_layer", "True")),
    ({"prompt": None}, "The setting prompt must be text, got None.", ("prompt", "None")),
])
def test_settings_a_link_cannot_carry_are_refused_in_both_languages(settings, english, names):
    with pytest.raises(ShareError) as caught:
        encode_settings(settings)
    assert_translated(caught.value, english, names)


@pytest.mark.parametrize("link, english_start, chinese_start", [
    ("n_embd=100&n_head=3", "The link's settings cannot be used: ", "链接中的设置无法使用："),
    ("prompt=%ff%fe", "The link cannot be read (", "无法读取这个链接（"),
])
def test_link_errors_with_a_reason_from_elsewhere_translate_around_it(link, english_start, chinese_start):
    with pytest.raises(ShareError) as caught:
        decode_settings(link)
    english = str(caught.value)
    assert english.startswith(english_start)
    chinese = error_text(caught.value, "zh-CN")
    assert chinese.startswith(chinese_start)
    assert all(number in chinese for number in re.findall(r"\d+", english))
