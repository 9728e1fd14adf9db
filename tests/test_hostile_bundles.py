"""Hostile bundles (issue 14): every crafted upload is refused before it costs memory, and the
refusal says what is wrong.

Each attack here was accepted before: the JSON bomb under the 100:1 zip-bomb guard took
+511 MB of memory for a 0.22 MB file (about 2.3 GB per uploaded MB), a long RoPE context built
gigabytes of cos/sin tables a weights check never saw, NaN weights and crafted trainer states
loaded and failed later with "Something unexpected went wrong". The bounds are checked by
recording what the loader reads, parses and builds, not by timing it.
"""

import json
import re
import zipfile
import zlib
from pathlib import Path

import pytest
import safetensors.torch
import torch

from bench.hostile import json_bomb, rewritten  # the replay's own crafted files
from playground import checkpoint
from playground.checkpoint import BundleError, load_bundle, save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.corpus import from_text
from playground.model import GPT, inference_memory
from playground.prepare import prepare_run
from playground.runtime import hosting
from playground.runtime.hosting import Hosting
from playground.tokenizer import train_tokenizer

from checks import TINY_MODEL, TINY_TRAIN, assert_translated

TEXT = "to be or not to be, that is the question. " * 30


def members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def rewrite(src, dest, changes: dict, encrypted: bool = False):
    """A copy of bundle ``src`` with members replaced (bytes or JSON-able) or dropped (None);
    ``encrypted`` sets every entry's encryption flag: the bench's replay builds its crafted
    bundles the same way."""
    return rewritten(Path(src), Path(dest), changes, encrypted)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A bundle of a real (tiny) run, with the trainer state the app saves."""
    corpus = from_text(TEXT)
    tok = train_tokenizer("char", corpus.text)
    run = prepare_run(corpus, tok, ModelConfig(**TINY_MODEL), TrainConfig(**TINY_TRAIN),
                      check_free_memory=False)
    trainer = run.trainer()
    list(trainer.run())
    path = tmp_path_factory.mktemp("trained") / "run.zip"
    return save_bundle(path, run.trained.model, tok, run.trained.train_config, trainer.history, trainer.state_dict())


@pytest.fixture
def reads(monkeypatch):
    """The names of the zip members read from here on, in order (clear it before the load)."""
    names = []
    real = zipfile.ZipFile.read

    def recording_read(self, name, pwd=None):
        names.append(getattr(name, "filename", name))
        return real(self, name, pwd)

    monkeypatch.setattr(zipfile.ZipFile, "read", recording_read)
    return names


@pytest.fixture
def parsed(monkeypatch):
    """The sizes of the JSON texts parsed from here on (clear it before the load)."""
    sizes = []
    real = checkpoint.json.loads

    def recording_loads(text, *args, **kwargs):
        sizes.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(checkpoint.json, "loads", recording_loads)
    return sizes


# --- the JSON bomb ----------------------------------------------------------------------------

def test_a_json_bomb_under_the_zip_bomb_ratio_is_refused_before_it_is_read(trained, tmp_path, reads):
    bomb = json_bomb(2_000_000)
    assert 80 < len(bomb) / len(zlib.compress(bomb)) < 100  # the ratio guard alone lets it in
    path = rewrite(trained, tmp_path / "bomb.zip", {"meta.json": bomb})
    reads.clear()  # from here on: the loader's reads
    with pytest.raises(BundleError) as caught:
        load_bundle(path)
    assert_translated(caught.value, "In 'bomb.zip', meta.json would unpack to 1.9 MB, more than the "
                      "64.0 KB it can take in a bundle of these settings (the file is damaged or "
                      "was made to exhaust memory), so it was not loaded.", ("bomb.zip", "meta.json"))
    assert "meta.json" not in reads


def test_a_json_bomb_within_the_size_limit_is_refused_before_it_is_parsed(trained, tmp_path, parsed):
    bomb = json_bomb(3_000_000)  # under history.json's 8 MB
    path = rewrite(trained, tmp_path / "bomb.zip", {"history.json": bomb})
    parsed.clear()
    with pytest.raises(BundleError, match=r"history.json in 'bomb.zip' is not what this app writes: "
                                          r"it holds 1,000,00\d objects and lists in 2.9 MB of JSON"):
        load_bundle(path)
    assert len(bomb) not in parsed and max(parsed) < 10_000  # only the small settings were parsed


def test_json_nested_deeper_than_the_app_writes_is_refused(trained, tmp_path):
    state = json.loads(members(trained)["trainer_state.json"])
    state["elapsed"] = "DEEP"
    deep = "[ " * 900 + "]" * 900  # 900 deep (json.loads itself copes), spaced like indented JSON
    text = json.dumps(state, indent=1).replace('"DEEP"', deep).encode()
    path = rewrite(trained, tmp_path / "deep.zip", {"trainer_state.json": text})
    with pytest.raises(BundleError) as caught:
        load_bundle(path)
    assert_translated(caught.value, "trainer_state.json in 'deep.zip' is nested more than 20 levels "
                      "deep, far deeper than anything this app writes, so it was not read.",
                      ("trainer_state.json", "deep.zip"))


def test_the_json_this_app_writes_passes_the_container_bound(tmp_path, trained):
    """The densest JSON a bundle holds, a BPE tokenizer's merges, stays within the bound."""
    tok = train_tokenizer("bpe", TEXT * 5, vocab_size=1024)
    data = tok.to_json().encode()
    containers = data.count(b"{") + data.count(b"[")
    assert containers * checkpoint.JSON_BYTES_PER_CONTAINER < len(data)
    for name, data in members(trained).items():
        if name.endswith(".json"):
            assert (data.count(b"{") + data.count(b"[")) * checkpoint.JSON_BYTES_PER_CONTAINER < len(data)


# --- settings whose buffers and cache would not fit -------------------------------------------

def long_context_bundle(src, dest, **shape):
    """``src`` rewritten for a model of ``shape`` with matching (zero) weights: a legal bundle."""
    config = {**json.loads(members(src)["model_config.json"]), **shape}
    with torch.device("meta"):
        expected = GPT(ModelConfig(**config)).state_dict()
    weights = {k: torch.zeros(v.shape) for k, v in expected.items() if k != "lm_head.weight"}
    data = safetensors.torch.save(weights, metadata={"format": "pt", "lm_head.weight": "tok_emb.weight"})
    return rewrite(src, dest, {"model_config.json": config, "model.safetensors": data})


def test_a_small_model_with_a_huge_context_is_refused_before_it_is_built(trained, tmp_path, monkeypatch):
    """256 layers with RoPE at block_size 65,536: a few thousand weights in a 60 KB file, but
    1 GB of cos/sin tables on every load and as much again for the KV cache of a Generate."""
    shape = dict(block_size=65_536, n_layer=256, n_head=1, n_embd=8, pos="rope")
    path = long_context_bundle(trained, tmp_path / "long.zip", **shape)
    need = inference_memory(ModelConfig(**{**json.loads(members(trained)["model_config.json"]), **shape}))
    assert path.stat().st_size < 200_000 and need > 2 * 2**30
    built = []
    real_gpt = checkpoint.GPT

    def recording_gpt(config):
        model = real_gpt(config)
        built.append(next(model.parameters()).device.type)
        return model

    monkeypatch.setattr(checkpoint, "GPT", recording_gpt)
    with pytest.raises(BundleError) as caught:
        load_bundle(path, max_memory=2**30)
    assert_translated(caught.value, f"'long.zip' holds a model that needs about "
                      f"{checkpoint.human_bytes(need + 8 * 6_176)} of memory to load and generate "
                      "with (its weights, the position tables and a KV cache over its 65,536-token "
                      "context), but only 1.0 GB can be given to it here. It was not loaded.",
                      ("long.zip",))
    assert "cpu" not in built
    # the default limit is the free memory (less the headroom): the same refusal on a small machine
    monkeypatch.setattr(checkpoint, "available_memory", lambda device: 2 * 2**30)
    with pytest.raises(BundleError, match=r"can be given to it here"):
        load_bundle(path)
    assert "cpu" not in built


def test_on_shared_hosting_one_model_gets_its_share_however_much_is_free(trained, tmp_path,
                                                                         monkeypatch):
    """A model that would fit the free memory is still refused past PLAYGROUND_MAX_MODEL_MB
    (512 MB by default) on shared hosting: one visitor's sessions could otherwise fill the
    machine with such models, each fitting what is left (1.4 GB a load, measured)."""
    shape = dict(block_size=32_768, n_layer=160, n_head=1, n_embd=8, pos="rope")  # ~700 MB
    path = long_context_bundle(trained, tmp_path / "long.zip", **shape)
    monkeypatch.setattr(checkpoint, "available_memory", lambda device: 64 * 2**30)
    # (strict_state off: the trainer state is the small run's, which this shape cannot resume)
    hosting.use(Hosting())
    load_bundle(path, strict_state=False)  # locally: it fits, so it loads
    hosting.use(Hosting.from_env({"SPACE_ID": "someone/playground"}))
    with pytest.raises(BundleError, match=r"but only 512.0 MB can be given to it here"):
        load_bundle(path, strict_state=False)
    # the host lifts the limit
    hosting.use(Hosting.from_env({"SPACE_ID": "someone/playground", "PLAYGROUND_MAX_MODEL_MB": "0"}))
    load_bundle(path, strict_state=False)


def test_weights_bigger_than_the_settings_allow_are_refused_before_they_are_read(trained, tmp_path, reads):
    weights = safetensors.torch.load(members(trained)["model.safetensors"])
    weights["padding"] = torch.rand(2**20)  # 4 MB more than the model's ~6,000 weights
    path = rewrite(trained, tmp_path / "padded.zip", {"model.safetensors": safetensors.torch.save(weights)})
    reads.clear()
    with pytest.raises(BundleError, match=r"model.safetensors would unpack to 4.0 MB, more than the "
                                          r"1.0 MB it can take"):
        load_bundle(path)
    assert "model.safetensors" not in reads


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_weights_that_are_not_finite_are_refused_naming_the_tensor(trained, tmp_path, value):
    weights = safetensors.torch.load(members(trained)["model.safetensors"])
    weights["blocks.0.mlp.fc.weight"][3, 1] = value
    path = rewrite(trained, tmp_path / "nan.zip", {"model.safetensors": safetensors.torch.save(
        weights, metadata={"format": "pt", "lm_head.weight": "tok_emb.weight"})})
    with pytest.raises(BundleError) as caught:
        load_bundle(path)
    assert_translated(caught.value, "The weights in 'nan.zip' do not fit its model settings: "
                      "blocks.0.mlp.fc.weight holds values that are not finite numbers (NaN or "
                      "infinity).", ("nan.zip", "blocks.0.mlp.fc.weight", "NaN"))


def test_an_encrypted_zip_is_refused_with_a_reason(trained, tmp_path):
    path = rewrite(trained, tmp_path / "locked.zip", {}, encrypted=True)
    with pytest.raises(BundleError) as caught:
        load_bundle(path)
    assert_translated(caught.value, "'locked.zip' is password-protected (encrypted). Bundles are "
                      "never encrypted: upload the .zip file as this app saved it.", ("locked.zip",))


# --- crafted trainer states -------------------------------------------------------------------

def state_parts(path):
    return (json.loads(members(path)["trainer_state.json"]),
            safetensors.torch.load(members(path)["trainer_state.safetensors"]))


def first_moment(state) -> str:
    """The tensor name of the first parameter's exp_avg in the encoded state."""
    entry = state["optimizer"]["state"]["__items__"][0][1]
    return entry["exp_avg"]["__tensor__"]


def craft(change):
    def make(state, tensors):
        change(state, tensors)
        return state, tensors
    return make


CRAFTED = {
    "negative step": (craft(lambda s, t: s.update(step=-5)), "step must be a whole number from 0 to 10,000,000"),
    "huge step": (craft(lambda s, t: s.update(step=2**70)), "step must be a whole number"),
    "missing key": (craft(lambda s, t: s.pop("torch_rng")), "torch_rng is missing"),
    "unknown key": (craft(lambda s, t: s.update(plan="x")), "'plan' is not a field of a trainer state"),
    "elapsed not finite": (craft(lambda s, t: s.update(elapsed=float("nan"))),
                           "elapsed must be a number of seconds, 0 or more"),
    "bad rng tensor": (craft(lambda s, t: t.update({s["torch_rng"]["__tensor__"]: torch.zeros(7, dtype=torch.uint8)})),
                       "torch_rng is not the state of a random number generator"),
    "rng of floats": (craft(lambda s, t: t.update({s["train_rng"]["__tensor__"]: torch.zeros(5056)})),
                      "train_rng is not the state of a random number generator"),
    "moment of the wrong shape": (craft(lambda s, t: t.update({first_moment(s): torch.zeros(3)})),
                                  r"optimizer.state[0].'exp_avg' must be a tensor of its parameter's shape"),
    "moment not finite": (craft(lambda s, t: t[first_moment(s)].fill_(float("inf"))),
                          "optimizer.state[0].'exp_avg' holds values that are not finite"),
    "groups of other parameters": (
        craft(lambda s, t: s["optimizer"]["param_groups"][0].update(params=[0, 0, 0])),
        "optimizer.param_groups do not match this model's parameters"),
    "betas not finite": (
        craft(lambda s, t: s["optimizer"]["param_groups"][0].update(betas={"__tuple__": [float("nan"), 0.9]})),
        "optimizer.param_groups[0].betas must be a finite number"),
    "starts of bytes": (craft(lambda s, t: s.update(next_starts=s["torch_rng"])),  # a uint8 tensor
                        "next_starts must be a list of positions in the text"),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_crafted_trainer_states_are_refused_naming_the_field(trained, tmp_path, case):
    make, said = CRAFTED[case]
    state, tensors = make(*state_parts(trained))
    path = rewrite(trained, tmp_path / "crafted.zip", {
        "trainer_state.json": json.dumps(state).encode(),
        "trainer_state.safetensors": safetensors.torch.save(tensors)})
    with pytest.raises(BundleError) as caught:
        load_bundle(path)
    english = str(caught.value)
    assert english.startswith("The trainer state in 'crafted.zip' cannot be used to continue "
                              "training: ") and said in english, english
    assert english.endswith(". The bundle was not loaded; save it again from a run.")
    assert_translated(caught.value, english, ("crafted.zip",))


def test_the_states_a_trainer_saves_pass_every_check(tmp_path):
    """AdamW and Muon, fp16's scaler aside (CUDA only): a real state loads and resumes."""
    corpus = from_text(TEXT)
    tok = train_tokenizer("char", corpus.text)
    for optimizer in ("adamw", "muon"):
        train = TrainConfig(**{**TINY_TRAIN, "optimizer": optimizer, "rng_stream": "nanogpt"})
        run = prepare_run(corpus, tok, ModelConfig(**TINY_MODEL), train, check_free_memory=False)
        trainer = run.trainer()
        list(trainer.run(max_steps=3))
        saved = trainer.state_dict()
        path = save_bundle(tmp_path / f"{optimizer}.zip", run.trained.model, tok, train, trainer.history, saved)
        bundle = load_bundle(path)
        assert bundle.trainer_state["step"] == 3
        assert torch.equal(bundle.trainer_state["torch_rng"], saved["torch_rng"])


# --- saving: no copies, nothing lost ----------------------------------------------------------

def test_a_save_that_would_not_fit_on_the_disk_is_refused_before_writing(trained, tmp_path, monkeypatch):
    bundle = load_bundle(trained)
    old = save_bundle(tmp_path / "keep.zip", bundle.model, bundle.tokenizer, bundle.train_config, [])
    before = old.read_bytes()
    usage = checkpoint.shutil.disk_usage(tmp_path)
    monkeypatch.setattr(checkpoint.shutil, "disk_usage",
                        lambda folder: usage._replace(free=5 * 2**20))
    with pytest.raises(BundleError) as caught:
        save_bundle(old, bundle.model, bundle.tokenizer, bundle.train_config, bundle.history,
                    bundle.trainer_state)
    english = str(caught.value)
    assert re.fullmatch(r"There is not enough free disk space to save the bundle 'keep.zip': it needs "
                        r"about 16\.\d MB and 5\.0 MB is free\. Nothing was written, and an earlier "
                        r"file of that name is kept as it was\.", english), english
    assert_translated(caught.value, english, ("keep.zip",))
    assert old.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["keep.zip"]


def test_saving_streams_the_tensors_without_a_second_copy(trained, tmp_path, monkeypatch):
    """safetensors.torch.save builds the whole file in memory (the 1.15 GB bundle of a 100M
    model took +2.2 GB in the save): the bundle is written tensor by tensor instead, and
    safetensors' own reader reads it back exactly, in every dtype a state holds."""
    def no_copies(*args, **kwargs):
        raise AssertionError("save_bundle built a safetensors file in memory")

    bundle = load_bundle(trained)
    state = {**bundle.trainer_state, "extra": {"bf16": torch.randn(3, 2).bfloat16(),
                                               "uint32": torch.arange(5).to(torch.uint32),
                                               "flag": torch.tensor([True, False]),
                                               "scalar": torch.tensor(2.5)}}
    monkeypatch.setattr(safetensors.torch, "save", no_copies)
    path = save_bundle(tmp_path / "s.zip", bundle.model, bundle.tokenizer, bundle.train_config,
                       bundle.history, state)
    monkeypatch.undo()
    with zipfile.ZipFile(path) as zf:
        weights = safetensors.torch.load(zf.read("model.safetensors"))
        extra = safetensors.torch.load(zf.read("trainer_state.safetensors"))
    for name, tensor in bundle.model.state_dict().items():
        assert name == "lm_head.weight" or torch.equal(weights[name], tensor), name
    assert {t.dtype for t in extra.values()} >= {torch.bfloat16, torch.uint32, torch.bool}
    again = load_bundle(path, strict_state=False).trainer_state
    for key, value in state["extra"].items():
        assert again["extra"][key].dtype == value.dtype and torch.equal(again["extra"][key], value), key


def test_a_bundle_of_a_tied_model_still_reads_with_safetensors_load_model(trained, tmp_path):
    bundle = load_bundle(trained)
    with zipfile.ZipFile(trained) as zf:
        (tmp_path / "w.safetensors").write_bytes(zf.read("model.safetensors"))
    fresh = GPT(bundle.model_config)
    safetensors.torch.load_model(fresh, tmp_path / "w.safetensors")
    idx = torch.tensor([[1, 2, 3]])
    assert torch.equal(fresh.eval()(idx).logits, bundle.model(idx).logits)
