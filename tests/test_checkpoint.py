"""Bundles: what is saved comes back exactly, and every bad file gets its own clear error."""

import json
import math
import pickle
import random
import re
import warnings
import zipfile

import numpy as np
import pytest
import safetensors.torch
import torch

from playground import checkpoint
from playground.checkpoint import BundleError, load_bundle, records_from_json, records_to_json, save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.i18n import error_text
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord

from checks import assert_translated

TRAIN = TrainConfig(max_steps=7, batch_size=4, lr=2e-3, min_lr=2e-4, warmup_steps=2, seed=3)
HISTORY = [
    EvalRecord(0, 0, 4.2, 4.3, 6.06, 6.2, 0.05),
    StepRecord(1, 64, 4.17, 1e-3, 900.5, 0.1),
    EvalRecord(2, 128, 3.9, 4.0, 5.63, 5.77, 0.3, sample="Thou 猫 🙂\r\n"),
    StepRecord(3, 192, float("nan"), 1e-3, 900.5, 0.4),
    EndRecord(3, "nan", "loss became nan"),
]
# The same history as format-1 bundles hold it in history.json: one object each, "kind" first,
# a step's grad_norm left out while it is None
HISTORY_JSON_1 = [
    {"kind": "eval", "step": 0, "tokens": 0, "train_loss": 4.2, "val_loss": 4.3, "train_bpc": 6.06,
     "val_bpc": 6.2, "elapsed": 0.05, "sample": None},
    {"kind": "step", "step": 1, "tokens": 64, "loss": 4.17, "lr": 1e-3, "tokens_per_s": 900.5, "elapsed": 0.1},
    {"kind": "eval", "step": 2, "tokens": 128, "train_loss": 3.9, "val_loss": 4.0, "train_bpc": 5.63,
     "val_bpc": 5.77, "elapsed": 0.3, "sample": "Thou 猫 🙂\r\n"},
    {"kind": "step", "step": 3, "tokens": 192, "loss": float("nan"), "lr": 1e-3, "tokens_per_s": 900.5,
     "elapsed": 0.4},
    {"kind": "end", "step": 3, "reason": "nan", "message": "loss became nan"},
]
# ... and as today's (format 2): every field of every record, a step's grad_norm null when None,
# an evaluation's accuracy null (not a toy task)
HISTORY_JSON = [{**r, "grad_norm": None} if r["kind"] == "step" else
                {**r, "accuracy": None} if r["kind"] == "eval" else r for r in HISTORY_JSON_1]


def make_model(vocab_size: int, **variant) -> GPT:
    """A tiny model whose weights are moved off their initial values.

    Loading builds a fresh GPT, which draws the same initial weights under the same seed;
    the noise makes sure equal logits can only come from the weights in the file.
    """
    shape = dict(block_size=16, n_layer=2, n_head=2, n_embd=16)
    cfg = ModelConfig(vocab_size=vocab_size, **{**shape, **variant})
    model = GPT(cfg)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return model.eval()


@pytest.fixture(scope="module")
def tokenizers(tiny_text):
    return {"char": train_tokenizer("char", tiny_text), "bpe": train_tokenizer("bpe", tiny_text, vocab_size=300)}


@pytest.fixture
def char_tok(tokenizers):
    return tokenizers["char"]


@pytest.fixture
def good(tmp_path, char_tok):
    """A valid bundle of a tied character-level model."""
    return save_bundle(tmp_path / "good.zip", make_model(char_tok.vocab_size), char_tok, TRAIN, HISTORY)


@pytest.fixture(autouse=True)
def no_unpickling(monkeypatch):
    """Any attempt to unpickle during a test fails it: checkpoints never unpickle."""

    def refuse(*args, **kwargs):
        raise AssertionError("something tried to unpickle")

    for name in ("load", "loads"):
        monkeypatch.setattr(pickle, name, refuse)
    monkeypatch.setattr(torch, "load", refuse)


def logits(model, tok, text="ROMEO: But soft!"):
    idx = torch.tensor([tok.encode(text)[:16]])
    with torch.no_grad():
        return model(idx).logits


def members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def rewrite(src, dest, changes):
    """A copy of bundle ``src`` with members replaced (bytes or a JSON-able object) or dropped (None)."""
    parts = members(src)
    for name, value in changes.items():
        if value is None:
            parts.pop(name)
        else:
            parts[name] = value if isinstance(value, bytes) else json.dumps(value).encode()
    with zipfile.ZipFile(dest, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return dest


# ---------------------------------------------------------------------------------------------
# Round trips


@pytest.mark.parametrize("kind", ["char", "bpe"])
@pytest.mark.parametrize("tie", [True, False])
def test_save_then_load_reproduces_logits_exactly(tmp_path, tokenizers, tiny_text, kind, tie):
    tok = tokenizers[kind]
    model = make_model(tok.vocab_size, tie_weights=tie)
    path = save_bundle(tmp_path / "run.zip", model, tok, TRAIN, HISTORY)
    bundle = load_bundle(path)

    assert torch.equal(logits(bundle.model, tok), logits(model, tok))
    assert bundle.model_config == model.config
    assert bundle.tokenizer.kind == kind
    assert bundle.tokenizer.encode(tiny_text) == tok.encode(tiny_text)
    tied = bundle.model.lm_head.weight is bundle.model.tok_emb.weight
    assert tied == tie  # the tie is restored, not two equal copies


@pytest.mark.parametrize("variant", [
    dict(pos="sinusoidal", norm="rmsnorm", activation="swiglu", bias=True),
    dict(pos="rope", norm_placement="post", activation="relu", scale_embedding=True),
    dict(pos="none", mlp_ratio=2.0, tie_weights=False, dropout=0.1),
    dict(pos="rope", norm="rmsnorm", activation="relu2", qk_norm=True, zero_init=True,
         tie_weights=False),
    dict(pos="learned", norm_placement="post", qk_norm=True, bias=True, zero_init=True,
         token_shift=True),
    dict(pos="rope", token_shift=True, bigram=True, value_embed=True, logit_softcap=10.0),
])
def test_every_architecture_variant_round_trips(tmp_path, char_tok, variant):
    model = make_model(char_tok.vocab_size, **variant)
    bundle = load_bundle(save_bundle(tmp_path / "v.zip", model, char_tok, TRAIN, []))
    assert torch.equal(logits(bundle.model, char_tok), logits(model, char_tok))
    assert bundle.model_config == model.config


def same_records(a, b) -> bool:
    """Equal records, a NaN equal to a NaN (the stored loss of a failed step)."""
    nan_free = [[r if not (isinstance(r, StepRecord) and math.isnan(r.loss)) else r.step for r in x]
                for x in (a, b)]
    return nan_free[0] == nan_free[1] and [type(r) for r in a] == [type(r) for r in b]


def test_configs_history_and_meta_round_trip(good):
    bundle = load_bundle(good)
    assert bundle.train_config == TRAIN
    assert same_records(bundle.history, HISTORY) and math.isnan(bundle.history[3].loss)
    assert bundle.history[2].sample == "Thou 猫 🙂\r\n"
    assert bundle.trainer_state is None
    assert bundle.meta["format"] == "transformer-playground-bundle"
    assert bundle.meta["format_version"] == checkpoint.FORMAT_VERSION
    assert bundle.meta["num_params"] == bundle.model.num_params()
    assert bundle.model.training is False
    assert {p.device.type for p in bundle.model.parameters()} == {"cpu"}


def test_bundle_members_and_tied_matrix_stored_once(good):
    parts = members(good)
    assert set(parts) == {"meta.json", "model_config.json", "train_config.json", "tokenizer.json",
                          "history.json", "model.safetensors"}
    weights = safetensors.torch.load(parts["model.safetensors"])
    assert ("lm_head.weight" in weights) != ("tok_emb.weight" in weights)
    for data in parts.values():
        assert not data.startswith(b"\x80")  # no member is a pickle


def test_weights_load_with_safetensors_own_load_model(tmp_path, good, char_tok):
    """The weights follow safetensors' convention for shared tensors, so its loader reads them."""
    (tmp_path / "w.safetensors").write_bytes(members(good)["model.safetensors"])
    bundle = load_bundle(good)
    fresh = GPT(bundle.model_config).eval()
    missing, unexpected = safetensors.torch.load_model(fresh, tmp_path / "w.safetensors")
    assert (list(missing), list(unexpected)) == ([], [])
    assert torch.equal(logits(fresh, char_tok), logits(bundle.model, char_tok))


def test_compiled_model_is_saved_as_the_model_inside(tmp_path, char_tok):
    model = make_model(char_tok.vocab_size)
    path = save_bundle(tmp_path / "c.zip", torch.compile(model), char_tok, TRAIN.to_dict(), [])
    assert torch.equal(logits(load_bundle(path).model, char_tok), logits(model, char_tok))


def test_history_is_written_as_today_and_old_bundles_load_to_the_same_records(tmp_path, good):
    """history.json holds every field of every record (format 2), and a bundle written by hand
    in format 1 (grad_norm left out while None) loads to the same records."""
    today = json.dumps(HISTORY_JSON, indent=1, ensure_ascii=False).encode("utf-8")
    assert members(good)["history.json"] == today
    assert json.dumps(records_to_json(HISTORY)) == json.dumps(HISTORY_JSON)  # NaN != NaN: as text
    format_1 = {**json.loads(members(good)["meta.json"]), "format_version": 1}
    old = rewrite(good, tmp_path / "old.zip", {"meta.json": format_1, "history.json": json.dumps(
        HISTORY_JSON_1, indent=1, ensure_ascii=False).encode("utf-8")})
    assert same_records(load_bundle(old).history, HISTORY)


def test_a_trainers_history_round_trips_in_its_state_too(tmp_path, char_tok):
    """Trainer.state_dict() holds the records; in the bundle they are the same JSON objects."""
    from playground.train import Trainer

    model = make_model(char_tok.vocab_size)
    ids = torch.arange(600) % char_tok.vocab_size
    cfg = TrainConfig(max_steps=4, batch_size=2, eval_interval=2, eval_iters=1, device="cpu")
    trainer = Trainer(model, ids[:500], ids[500:], cfg)
    records = list(trainer.run())
    path = save_bundle(tmp_path / "t.zip", model, char_tok, cfg, trainer.history, trainer.state_dict())
    bundle = load_bundle(path)
    assert bundle.history == bundle.trainer_state["history"] == trainer.history == records
    assert {type(r) for r in bundle.history} == {StepRecord, EvalRecord, EndRecord}
    stored = json.loads(members(path)["trainer_state.json"])["history"]
    assert stored == json.loads(members(path)["history.json"]) == records_to_json(records)
    # a state saved before records were objects (the same JSON) resumes with the same records
    resumed = Trainer(bundle.model, ids[:500], ids[500:], bundle.train_config)
    resumed.load_state_dict(bundle.trainer_state)
    assert resumed.history == records


def test_records_to_json_takes_records_only():
    with pytest.raises(TypeError, match=r"must be a StepRecord, EvalRecord or EndRecord, got dict"):
        records_to_json([{"kind": "end", "step": 1, "reason": "done", "message": ""}])


def test_records_from_json_checks_every_field():
    end = {"kind": "end", "step": 3, "reason": "done", "message": "ok"}
    assert records_from_json([end], "a.zip") == [EndRecord(3, "done", "ok")]
    with pytest.raises(BundleError, match=r"Record 1 .* has step = '3', which should be a whole number"):
        records_from_json([{**end, "step": "3"}], "a.zip")
    with pytest.raises(BundleError, match=r"has step = True, which should be a whole number"):
        records_from_json([{**end, "step": True}], "a.zip")
    with pytest.raises(BundleError, match=r"Record 2 .* has sample = 7, which should be a text or null"):
        records_from_json([end, {**HISTORY_JSON[2], "sample": 7}], "a.zip")
    with pytest.raises(BundleError, match=r"lacks message: the history is damaged"):
        records_from_json([{k: v for k, v in end.items() if k != "message"}], "a.zip")
    evaluation = records_from_json([{**HISTORY_JSON[0], "train_loss": 4}], "a.zip")[0]
    assert evaluation.train_loss == 4 and evaluation.sample is None  # an int is a number
    without_sample = {k: v for k, v in HISTORY_JSON[0].items() if k != "sample"}
    # format 1 took a record without a field that has a default; the upgrade fills it in
    assert records_from_json(checkpoint._upgrade_history([without_sample]), "a.zip") == [HISTORY[0]]


def _train_steps(model, opt, batch, n):
    model.train()
    for _ in range(n):
        _, loss, _ = model(batch[:, :-1], batch[:, 1:])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


def test_trainer_state_round_trips_and_resumes_identically(tmp_path, char_tok):
    model = make_model(char_tok.vocab_size)
    opt = model.configure_optimizer(0.1, 1e-2, (0.9, 0.99), "cpu")
    batch = torch.randint(0, char_tok.vocab_size, (3, 17))
    _train_steps(model, opt, batch, 2)
    state = {
        "step": 2,
        "optimizer": opt.state_dict(),
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
        "best_val_loss": None,
        "__tensor__": "a key that looks like a tag",
    }
    path = save_bundle(tmp_path / "s.zip", model, char_tok, TRAIN, HISTORY, trainer_state=state)
    loaded = load_bundle(path, strict_state=False).trainer_state  # a state of the format, not a Trainer's

    assert loaded["step"] == 2 and loaded["best_val_loss"] is None
    assert loaded["__tensor__"] == "a key that looks like a tag"
    assert torch.equal(loaded["rng"]["torch"], state["rng"]["torch"])
    np_state = loaded["rng"]["numpy"]
    assert np_state[0] == "MT19937" and np.array_equal(np_state[1], state["rng"]["numpy"][1])
    assert np_state[2:] == state["rng"]["numpy"][2:]
    assert loaded["rng"]["python"] == state["rng"]["python"]
    saved_opt, loaded_opt = state["optimizer"], loaded["optimizer"]
    assert loaded_opt["param_groups"] == saved_opt["param_groups"]
    assert loaded_opt["state"].keys() == saved_opt["state"].keys()  # int keys stay ints
    for i, per_param in saved_opt["state"].items():
        assert loaded_opt["state"][i].keys() == per_param.keys()
        for key, value in per_param.items():
            assert torch.equal(loaded_opt["state"][i][key], value)

    # resuming from the bundle continues exactly like the run that never stopped
    resumed = load_bundle(path, strict_state=False).model
    resumed_opt = resumed.configure_optimizer(0.1, 1e-2, (0.9, 0.99), "cpu")
    resumed_opt.load_state_dict(loaded_opt)
    _train_steps(model, opt, batch, 2)
    _train_steps(resumed, resumed_opt, batch, 2)
    for (name, a), b in zip(model.state_dict().items(), resumed.state_dict().values()):
        assert torch.equal(a, b), name


def test_trainer_state_refuses_objects_it_would_have_to_pickle(tmp_path, char_tok):
    model = make_model(char_tok.vocab_size)
    with pytest.raises(BundleError, match=r"trainer_state.sched is a object.*never pickle"):
        save_bundle(tmp_path / "x.zip", model, char_tok, TRAIN, [], trainer_state={"sched": object()})
    assert list(tmp_path.iterdir()) == []


def test_save_refuses_a_name_that_is_not_zip_and_mismatched_parts(tmp_path, tokenizers):
    model = make_model(tokenizers["char"].vocab_size)
    with pytest.raises(BundleError, match=r"name it like 'model.zip'"):
        save_bundle(tmp_path / "model.pt", model, tokenizers["char"], TRAIN, [])
    with pytest.raises(BundleError, match=r"tokenizer has 300 tokens but the model was built for"):
        save_bundle(tmp_path / "m.zip", model, tokenizers["bpe"], TRAIN, [])
    assert list(tmp_path.iterdir()) == []


def test_save_creates_missing_folders(tmp_path, good, char_tok):
    path = save_bundle(tmp_path / "runs" / "a" / "b.zip", load_bundle(good).model, char_tok, TRAIN, [])
    assert path == tmp_path / "runs" / "a" / "b.zip" and path.is_file()


# ---------------------------------------------------------------------------------------------
# Interrupted writes


@pytest.mark.parametrize("fail_in", ["writestr", "fsync", "replace"])
@pytest.mark.parametrize("error", [OSError("No space left on device"), KeyboardInterrupt()])
def test_interrupted_write_leaves_no_partial_file(tmp_path, monkeypatch, char_tok, fail_in, error):
    model = make_model(char_tok.vocab_size)
    calls = []

    def fail(*args, **kwargs):
        raise error

    if fail_in == "writestr":  # die after three members are written
        real = zipfile.ZipFile.writestr

        def fail(self, *args, **kwargs):  # noqa: F811 - the writestr variant needs self
            calls.append(1)
            if len(calls) == 4:
                raise error
            return real(self, *args, **kwargs)

        monkeypatch.setattr(zipfile.ZipFile, "writestr", fail)
    else:
        monkeypatch.setattr(checkpoint.os, fail_in, fail)
    # a disk error becomes a message for people; Ctrl-C stays itself
    expected = (BundleError, "could not be written") if isinstance(error, OSError) else (type(error), None)
    with pytest.raises(expected[0], match=expected[1]):
        save_bundle(tmp_path / "run.zip", model, char_tok, TRAIN, HISTORY)
    assert list(tmp_path.iterdir()) == []  # neither the bundle nor a temporary file


def test_interrupted_overwrite_keeps_the_old_bundle(tmp_path, monkeypatch, good, char_tok):
    before = good.read_bytes()
    monkeypatch.setattr(checkpoint.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(BundleError, match=r"could not be written \(I/O error\)\. Nothing was replaced"):
        save_bundle(good, make_model(char_tok.vocab_size), char_tok, TRAIN, [])
    monkeypatch.undo()
    assert good.read_bytes() == before
    assert [p.name for p in good.parent.iterdir()] == ["good.zip"]
    load_bundle(good)


# ---------------------------------------------------------------------------------------------
# Bad files: each gets its own error


def _zip(path, entries):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate-name case
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return path


def _write(dest, data: bytes):
    dest.write_bytes(data)
    return dest


def _flip_byte_in_weights(good, dest):
    data = bytearray(good.read_bytes())
    weights = members(good)["model.safetensors"]
    at = data.find(weights[-200:]) + 100  # stored uncompressed, so the bytes are findable
    data[at] ^= 0xFF
    return _write(dest, bytes(data))


def _with_config(good, dest, **changes):
    config = json.loads(members(good)["model_config.json"])
    return rewrite(good, dest, {"model_config.json": {**config, **changes}})


def _other_weights(good, dest, toks, **variant):
    other = save_bundle(dest.with_name("other.zip"), make_model(toks["char"].vocab_size, **variant),
                        toks["char"], TRAIN, [])
    return rewrite(good, dest, {"model.safetensors": members(other)["model.safetensors"]})


def _weights_without(good, dest, key):
    tensors = safetensors.torch.load(members(good)["model.safetensors"])
    del tensors[key]
    return rewrite(good, dest, {"model.safetensors": safetensors.torch.save(tensors)})


def _state_history(good, dest, history):
    """``good`` with a trainer state whose history is ``history`` (JSON objects)."""
    bundle = load_bundle(good)
    saved = save_bundle(dest.with_name("other.zip"), bundle.model, bundle.tokenizer, TRAIN, [], {"step": 1})
    encoded = {**json.loads(members(saved)["trainer_state.json"]), "history": history}
    return rewrite(saved, dest, {"trainer_state.json": encoded})


def _torch_save_zip(dest):
    torch.save({"w": torch.zeros(2)}, dest)  # torch.save writes a zip holding data.pkl
    return dest


# case: (make the bad file from (good bundle, destination, tokenizers), the error it must get)
BAD_FILES = {
    "text file named .zip": (lambda g, d, t: _write(d, b"hello"), r"damaged or incomplete"),
    "empty file": (lambda g, d, t: _write(d, b""), r"damaged or incomplete"),
    "truncated download": (lambda g, d, t: _write(d, g.read_bytes()[:2000]), r"damaged or incomplete"),
    "flipped byte": (lambda g, d, t: _flip_byte_in_weights(g, d), r"damaged: a part of the zip cannot be read"),
    "foreign zip": (lambda g, d, t: _zip(d, [("hello.txt", "hi")]),
                    r"not a Transformer Playground bundle\. It holds: hello\.txt"),
    "zipped folder": (lambda g, d, t: _zip(d, [(f"run/{n}", b) for n, b in members(g).items()]),
                      r"sit in a folder \(run/\); zip the files themselves"),
    "other format name": (lambda g, d, t: rewrite(g, d, {"meta.json": {"format": "something-else"}}),
                          r"zip file, but not a Transformer Playground bundle"),
    "newer format": (lambda g, d, t: rewrite(g, d, {"meta.json": {"format": checkpoint.FORMAT, "format_version": 99}}),
                     r"newer Transformer Playground \(bundle format 99; this one reads format 2\)"),
    "missing member": (lambda g, d, t: rewrite(g, d, {"tokenizer.json": None}), r"incomplete: it lacks tokenizer\.json"),
    "invalid json": (lambda g, d, t: rewrite(g, d, {"history.json": b"[{oops"}), r"history\.json in 'bad.zip' is damaged \(not valid JSON"),
    "invalid model config": (lambda g, d, t: _with_config(g, d, n_embd=30, n_head=4),
                             r"model settings in this bundle cannot be used: The width n_embd=30 must divide"),
    "unknown train setting": (lambda g, d, t: rewrite(g, d, {"train_config.json": {"max_steps": 5, "turbo": True}}),
                              r"training settings .* cannot be used: Unknown TrainConfig settings: turbo"),
    "damaged tokenizer": (lambda g, d, t: rewrite(g, d, {"tokenizer.json": {"kind": "magic"}}),
                          r"tokenizer in 'bad.zip' cannot be rebuilt"),
    "tokenizer of another run": (lambda g, d, t: rewrite(g, d, {"tokenizer.json": t["bpe"].to_json().encode()}),
                                 r"tokenizer has 300 tokens but the model was built for \d+"),
    "history not a list": (lambda g, d, t: rewrite(g, d, {"history.json": {"loss": 1}}), r"history .* is damaged"),
    "history of numbers": (lambda g, d, t: rewrite(g, d, {"history.json": [1, 2]}), r"history .* is damaged"),
    "record of an unknown kind": (
        lambda g, d, t: rewrite(g, d, {"history.json": [HISTORY_JSON[1], {"kind": "checkpoint", "step": 2}]}),
        r"Record 2 of the training history in 'bad.zip' is of the unknown kind 'checkpoint' "
        r"\(a record is one of: step, eval, end\)"),
    "record without a kind": (lambda g, d, t: rewrite(g, d, {"history.json": [{"step": 2}]}),
                              r"Record 1 .* unknown kind None"),
    "record with an unknown field": (
        lambda g, d, t: rewrite(g, d, {"history.json": [{**HISTORY_JSON[1], "weight_norm": 0.5}]}),
        r"Record 1 .* \(kind 'step'\) has fields this version does not know: 'weight_norm'"),
    "record missing a field": (
        lambda g, d, t: rewrite(g, d, {"history.json": [{"kind": "eval", "step": 2, "val_loss": 4.0}]}),
        r"Record 1 .* \(kind 'eval'\) lacks tokens, train_loss, train_bpc, val_bpc, elapsed"),
    "record with a text loss": (
        lambda g, d, t: rewrite(g, d, {"history.json": [{**HISTORY_JSON[1], "loss": "low"}]}),
        r"Record 1 .* has loss = 'low', which should be a number"),
    "trainer state with a damaged record": (
        lambda g, d, t: _state_history(g, d, [{"kind": "step", "step": 1}]),
        r"Record 1 of the training history in 'bad.zip' \(kind 'step'\) lacks tokens"),
    "weights with fewer layers": (lambda g, d, t: _other_weights(g, d, t, n_layer=1),
                                  r"do not fit its model settings: blocks\.1\..* is missing"),
    "settings of another width": (lambda g, d, t: _with_config(g, d, n_embd=32),
                                  r"tok_emb\.weight is \(\d+, 16\) but these settings make it \(\d+, 32\)"),
    "missing tensor": (lambda g, d, t: _weights_without(g, d, "blocks.0.mlp.fc.weight"),
                       r"blocks\.0\.mlp\.fc\.weight is missing"),
    "untied weights under tied settings": (lambda g, d, t: _other_weights(g, d, t, tie_weights=False),
                                           r"different values for .* tie them"),
    "garbage weights": (lambda g, d, t: rewrite(g, d, {"model.safetensors": b"\x08" + bytes(7) + b"{not json"}),
                        r"tensors of the model in 'bad.zip' are damaged"),
    "zip bomb": (lambda g, d, t: _zip(d, [("meta.json", b"{}"), ("filler", bytes(8 * 2**20))]), r"zip bomb"),
    "path traversal": (lambda g, d, t: _zip(d, [("../evil.txt", "x"), *members(g).items()]),
                       r"suspicious entry \('\.\./evil\.txt'\)"),
    "absolute path": (lambda g, d, t: _zip(d, [("/tmp/evil.txt", "x")]), r"suspicious entry"),
    "duplicate entry": (lambda g, d, t: _zip(d, [*members(g).items(), ("meta.json", "{}")]), r"same entry twice"),
    "pickle named .zip": (lambda g, d, t: _write(d, pickle.dumps({"w": [1.0]}, protocol=4)),
                          r"is a Python pickle\. Checkpoints here are never unpickled"),
    "torch.save file named .zip": (lambda g, d, t: _torch_save_zip(d), r"holds pickled data .* never unpickled"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_gets_its_error(tmp_path, good, tokenizers, case):
    make, message = BAD_FILES[case]
    bad = make(good, tmp_path / "bad.zip", tokenizers)
    with pytest.raises(BundleError, match=message):
        load_bundle(bad)
    # nothing in a zip is ever extracted
    assert {p.name for p in tmp_path.iterdir()} <= {"bad.zip", "good.zip", "other.zip"}
    assert not (tmp_path.parent / "evil.txt").exists()


@pytest.mark.parametrize("suffix", [".pt", ".pth", ".pkl", ".bin", ".ckpt"])
def test_pickle_extensions_are_refused_by_name(tmp_path, good, suffix):
    path = tmp_path / f"model{suffix}"
    path.write_bytes(good.read_bytes())  # even a real bundle: the name promises a pickle
    with pytest.raises(BundleError, match=r"looks like a PyTorch pickle file.*never unpickled"):
        load_bundle(path)


def test_missing_path_and_folder(tmp_path):
    with pytest.raises(BundleError, match=r"There is no file at"):
        load_bundle(tmp_path / "nowhere.zip")
    with pytest.raises(BundleError, match=r"is a folder"):
        load_bundle(tmp_path)


def test_total_size_guard(monkeypatch, good):
    monkeypatch.setattr(checkpoint, "MAX_TOTAL_BYTES", 1000)
    with pytest.raises(BundleError, match=r"would unpack to .* more than"):
        load_bundle(good)


def test_damaged_trainer_state(tmp_path, good, char_tok):
    path = save_bundle(tmp_path / "s.zip", make_model(char_tok.vocab_size), char_tok, TRAIN, [],
                       trainer_state={"w": torch.ones(2)})
    with pytest.raises(BundleError, match=r"lacks trainer_state\.safetensors"):
        load_bundle(rewrite(path, tmp_path / "a.zip", {"trainer_state.safetensors": None}))
    with pytest.raises(BundleError, match=r"trainer state in 'b.zip' is damaged"):
        load_bundle(rewrite(path, tmp_path / "b.zip", {"trainer_state.json": {"w": {"__tensor__": "t9"}}}))


def test_bundle_error_is_a_value_error():
    """The UI catches ValueError to show the message in the page."""
    assert issubclass(BundleError, ValueError)


# ---------------------------------------------------------------------------------------------
# The page's language


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_errors_translate_keeping_names_and_numbers(tmp_path, good, tokenizers, case):
    make, _ = BAD_FILES[case]
    with pytest.raises(BundleError) as caught:
        load_bundle(make(good, tmp_path / "bad.zip", tokenizers))
    english = str(caught.value)
    assert_translated(caught.value, english, ("bad.zip",) if "'bad.zip'" in english else ())


def _state_bundle(tmp_path, tok, changes):
    path = save_bundle(tmp_path / "s.zip", make_model(tok.vocab_size), tok, TRAIN, [],
                       trainer_state={"w": torch.ones(2)})
    return load_bundle(rewrite(path, tmp_path / "b.zip", changes))


def _int_weights(tmp_path, good):
    tensors = safetensors.torch.load(members(good)["model.safetensors"])
    tensors["tok_emb.weight"] = tensors["tok_emb.weight"].long()
    return load_bundle(rewrite(good, tmp_path / "bad.zip", {"model.safetensors": safetensors.torch.save(tensors)}))


def _too_big(monkeypatch, good):
    monkeypatch.setattr(checkpoint, "MAX_TOTAL_BYTES", 1000)
    return load_bundle(good)


# (make the error from (tmp_path, good bundle, tokenizers, monkeypatch), its English, names)
BUNDLE_ERRORS = {
    "save suffix": (
        lambda tmp, g, t, mp: save_bundle(tmp / "model.pt", make_model(t["char"].vocab_size), t["char"], TRAIN, []),
        "A bundle is a .zip file; name it like 'model.zip', not 'model.pt'.", ("model.zip", "model.pt")),
    "numpy strings in the state": (
        lambda tmp, g, t, mp: save_bundle(tmp / "s.zip", make_model(t["char"].vocab_size), t["char"], TRAIN, [],
                                          trainer_state={"a": np.array(["x"])}),
        "trainer_state.a is a numpy array of <U1, which a bundle cannot store.", ("trainer_state.a", "<U1")),
    "object in the state": (
        lambda tmp, g, t, mp: save_bundle(tmp / "s.zip", make_model(t["char"].vocab_size), t["char"], TRAIN, [],
                                          trainer_state={"sched": object()}),
        "trainer_state.sched is a object; trainer_state may hold only tensors, numpy arrays, numbers, "
        "strings, None, lists, tuples and dicts (bundles never pickle).", ("trainer_state.sched",)),
    "version not a number": (
        lambda tmp, g, t, mp: load_bundle(rewrite(g, tmp / "bad.zip", {"meta.json": {"format": checkpoint.FORMAT,
                                                                                     "format_version": "1"}})),
        "'bad.zip' has an unknown bundle format version ('1'); it is damaged.", ("bad.zip", "'1'")),
    "pickle suffix": (
        lambda tmp, g, t, mp: load_bundle(_write(tmp / "model.pt", g.read_bytes())),
        "'model.pt' looks like a PyTorch pickle file (.pt). Checkpoints here are never unpickled, because "
        "unpickling a file can run any code hidden in it. Load a .zip bundle saved by Transformer "
        "Playground instead.", ("model.pt", "Transformer Playground")),
    "not a zip": (
        lambda tmp, g, t, mp: load_bundle(_write(tmp / "model.txt", b"hello")),
        "'model.txt' is not a Transformer Playground bundle (a .zip file).", ("model.txt",)),
    "too many entries": (
        lambda tmp, g, t, mp: load_bundle(_zip(tmp / "bad.zip", [(f"f{i}", "x") for i in range(65)])),
        "'bad.zip' holds 65 entries, far more than a bundle; it was not loaded.", ("bad.zip",)),
    "too big": (
        lambda tmp, g, t, mp: _too_big(mp, g),
        "'good.zip' would unpack to 0.0 GiB, more than the 0 GiB a bundle may hold; it was not loaded.",
        ("good.zip", "GiB")),
    "settings not an object": (
        lambda tmp, g, t, mp: load_bundle(rewrite(g, tmp / "bad.zip", {"model_config.json": [1]})),
        "The model settings in this bundle are damaged (expected a JSON object).", ("模型设置",)),
    "trainer state missing a tensor": (
        lambda tmp, g, t, mp: _state_bundle(tmp, t["char"], {"trainer_state.json": {"w": {"__tensor__": "t9"}}}),
        "The trainer state in 'b.zip' is damaged (KeyError('t9')).", ("b.zip", "KeyError('t9')")),
    "record of an unknown kind": (
        lambda tmp, g, t, mp: load_bundle(rewrite(g, tmp / "bad.zip", {"history.json": [{"kind": "note"}]})),
        "Record 1 of the training history in 'bad.zip' is of the unknown kind 'note' (a record is one "
        "of: step, eval, end). The bundle may come from a newer Transformer Playground: update the "
        "playground to load it.", ("bad.zip", "'note'", "step, eval, end", "Transformer Playground")),
    "record with an unknown field": (
        lambda tmp, g, t, mp: load_bundle(rewrite(g, tmp / "bad.zip", {
            "history.json": [{"kind": "end", "step": 1, "reason": "done", "message": "", "extra": 1}]})),
        "Record 1 of the training history in 'bad.zip' (kind 'end') has fields this version does not "
        "know: 'extra'. The bundle may come from a newer Transformer Playground: update the "
        "playground to load it.", ("bad.zip", "end", "'extra'")),
    "record missing a field": (
        lambda tmp, g, t, mp: load_bundle(rewrite(g, tmp / "bad.zip", {
            "history.json": [{"kind": "end", "step": 1, "reason": "done"}]})),
        "Record 1 of the training history in 'bad.zip' (kind 'end') lacks message: the history is "
        "damaged. Save the bundle again.", ("bad.zip", "end", "message")),
    "record with a wrong value": (
        lambda tmp, g, t, mp: load_bundle(rewrite(g, tmp / "bad.zip", {
            "history.json": [{"kind": "end", "step": 1.5, "reason": "done", "message": ""}]})),
        "Record 1 of the training history in 'bad.zip' has step = 1.5, which should be a whole "
        "number: the history is damaged. Save the bundle again.", ("bad.zip", "step = 1.5", "整数")),
    "integer weights": (
        lambda tmp, g, t, mp: _int_weights(tmp, g),
        "The weights in 'bad.zip' do not fit its model settings: lm_head.weight is missing; "  # tie lost
        "tok_emb.weight holds torch.int64 values, not floating-point weights.",
        ("bad.zip", "lm_head.weight", "tok_emb.weight", "torch.int64")),
}


@pytest.mark.parametrize("case", list(BUNDLE_ERRORS))
def test_bundle_errors_read_the_same_in_english_and_translate(tmp_path, good, tokenizers, monkeypatch, case):
    make, english, names = BUNDLE_ERRORS[case]
    with pytest.raises(BundleError) as caught:
        make(tmp_path, good, tokenizers, monkeypatch)
    assert_translated(caught.value, english, names)


def test_mismatched_parts_and_missing_paths_translate(tmp_path, tokenizers):
    char, bpe = tokenizers["char"], tokenizers["bpe"]
    with pytest.raises(BundleError) as caught:
        save_bundle(tmp_path / "m.zip", make_model(char.vocab_size), bpe, TRAIN, [])
    assert_translated(caught.value, f"The tokenizer has 300 tokens but the model was built for {char.vocab_size}; "
                              "they do not belong together, so no bundle was written.")
    with pytest.raises(BundleError) as caught:
        load_bundle(tmp_path / "nowhere.zip")
    assert_translated(caught.value, f"There is no file at '{tmp_path / 'nowhere.zip'}'.", (str(tmp_path),))
    with pytest.raises(BundleError) as caught:
        load_bundle(tmp_path)
    assert_translated(caught.value, f"'{tmp_path}' is a folder; choose the bundle's .zip file.", (str(tmp_path),))


def test_many_weight_problems_are_listed_then_counted_in_both_languages(tmp_path, good, tokenizers):
    bad = _other_weights(good, tmp_path / "bad.zip", tokenizers, n_layer=1)
    with pytest.raises(BundleError) as caught:
        load_bundle(bad)
    english = str(caught.value)
    problems = re.fullmatch(r"The weights in 'bad.zip' do not fit its model settings: (.*)\.", english).group(1)
    shown, more = problems.rsplit("; and ", 1)
    assert len(shown.split("; ")) == 4 and more.endswith(" more")
    chinese = error_text(caught.value, "zh-CN")
    assert all(f"缺少 {part.removesuffix(' is missing')}" in chinese for part in shown.split("; "))
    assert f"另外还有 {more.split()[0]} 处" in chinese
