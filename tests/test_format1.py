"""A format-1 bundle made by the playground before format 2 (``tests/fixtures/format1-tiny.zip``)
loads through ``checkpoint._upgrade`` and then works as it did: the same history, the same
text generated, the same run continued, the same text from the standalone script. The
expected figures (``format1-tiny.expected.json``) were recorded with the format-1 code."""

import dataclasses
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from playground import checkpoint
from playground.checkpoint import BundleError, load_bundle, records_to_json, save_bundle
from playground.cli import main
from playground.config import SampleConfig
from playground.corpus import load_tiny_shakespeare
from playground.generate import generate_text
from playground.prepare import prepare_run
from playground.train import EvalRecord, StepRecord

FIXTURES = Path(__file__).parent / "fixtures"
FORMAT_1 = FIXTURES / "format1-tiny.zip"
EXPECTED = json.loads((FIXTURES / "format1-tiny.expected.json").read_text(encoding="utf-8"))


def members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_the_fixture_is_format_1():
    meta = json.loads(members(FORMAT_1)["meta.json"])
    assert meta["format_version"] == 1 < checkpoint.FORMAT_VERSION == 2


def test_it_loads_upgraded_with_its_history():
    trained = load_bundle(FORMAT_1)
    assert trained.meta["format_version"] == 2 and trained.meta["upgraded_from"] == 1
    stored = json.loads(members(FORMAT_1)["history.json"])
    # today's code wrote every grad_norm; evaluations' accuracy (toy tasks) came later: None
    assert records_to_json(trained.history) == [
        {**r, "accuracy": None} if r["kind"] == "eval" else r for r in stored]
    assert trained.trainer_state["history"] == trained.history
    assert trained.step == 20 and trained.corpus is None and trained.bundle_path is None


def test_it_generates_what_format_1_generated():
    trained = load_bundle(FORMAT_1)
    prompt = "ROMEO:"
    assert generate_text(trained.model, trained.tokenizer, prompt,
                         SampleConfig(40, temperature=0.0)) == EXPECTED["greedy"]
    assert generate_text(trained.model, trained.tokenizer, prompt,
                         SampleConfig(40, temperature=1.0, top_k=10, seed=3)) == EXPECTED["sampled"]


def test_it_continues_training_as_format_1_did():
    trained = load_bundle(FORMAT_1)
    run = prepare_run(load_tiny_shakespeare("bundled"), trained.tokenizer, trained.model_config,
                      dataclasses.replace(trained.train_config, max_steps=30),
                      model=trained.model, trainer_state=trained.trainer_state,
                      check_free_memory=False)
    records = list(run.trainer().run())
    steps = [r for r in records if isinstance(r, StepRecord)]
    assert [r.loss for r in steps] == pytest.approx(EXPECTED["resumed_losses"], rel=1e-5)
    assert [r.grad_norm for r in steps] == pytest.approx(EXPECTED["resumed_grad_norms"], rel=1e-4)
    evals = [(r.step, r.val_loss, r.sample) for r in records if isinstance(r, EvalRecord)]
    assert [(s, sample) for s, _, sample in evals] == [(s, sample) for s, _, sample in EXPECTED["resumed_val"]]
    assert [v for _, v, _ in evals] == pytest.approx([v for _, v, _ in EXPECTED["resumed_val"]], rel=1e-5)


def test_saved_again_it_is_format_2_and_the_standalone_script_writes_the_same(tmp_path, script):
    trained = load_bundle(FORMAT_1)
    path = save_bundle(tmp_path / "again.zip", trained.model, trained.tokenizer,
                       trained.train_config, trained.history, trained.trainer_state)
    assert json.loads(members(path)["meta.json"])["format_version"] == 2
    model, tokenizer = script.load_bundle(str(path))
    assert "".join(script.generate(model, tokenizer, "ROMEO:", 40, 0.0)) == EXPECTED["standalone_greedy"]
    again = load_bundle(path)
    assert again.history == trained.history and "upgraded_from" not in again.meta


def test_the_script_refuses_format_1_saying_how_to_upgrade(script):
    with pytest.raises(ValueError, match=r"bundle format 1; this script reads format 2\. .*"
                                         r"python -m playground upgrade"):
        script.load_bundle(str(FORMAT_1))
    assert script.FORMAT_VERSION == checkpoint.FORMAT_VERSION


def test_the_cli_upgrades_a_bundle(tmp_path, capsys, script):
    old = shutil.copyfile(FORMAT_1, tmp_path / "old.zip")
    assert main(["upgrade", str(old), "--out", str(tmp_path / "new.zip")]) == 0
    assert "bundle format 2" in capsys.readouterr().out
    assert json.loads(members(tmp_path / "new.zip")["meta.json"])["format_version"] == 2
    model, tokenizer = script.load_bundle(str(tmp_path / "new.zip"))
    assert "".join(script.generate(model, tokenizer, "ROMEO:", 40, 0.0)) == EXPECTED["standalone_greedy"]


def rewritten(dest, **changes) -> Path:
    """The fixture with members' JSON changed by ``changes`` (member name with '.' as '_')."""
    parts = members(FORMAT_1)
    for key, change in changes.items():
        name = key.replace("_json", ".json")
        parts[name] = json.dumps(change(json.loads(parts[name]))).encode()
    with zipfile.ZipFile(dest, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return dest


def test_older_format_1_bundles_get_what_they_lack(tmp_path):
    """Format-1 bundles from before grad_norm, qk_norm, token_shift and next_starts existed."""
    def drop(*keys):
        return lambda d: {k: v for k, v in d.items() if k not in keys}

    def old_history(records):
        return [drop("grad_norm")(r) for r in records]

    path = rewritten(tmp_path / "older.zip", model_config_json=drop("qk_norm", "token_shift"),
                     history_json=old_history,
                     trainer_state_json=lambda s: {**drop("next_starts")(s),
                                                   "history": old_history(s["history"])})
    trained = load_bundle(path)
    assert not trained.model_config.qk_norm and not trained.model_config.token_shift
    assert {r.grad_norm for r in trained.history if isinstance(r, StepRecord)} == {None}
    assert trained.trainer_state["next_starts"] is None
    assert generate_text(trained.model, trained.tokenizer, "ROMEO:",
                         SampleConfig(40, temperature=0.0)) == EXPECTED["greedy"]


def test_a_cuda_runs_dropout_state_moves_to_torch_rng(tmp_path):
    """CUDA runs of format 1 kept the dropout generator's state in cuda_rng."""
    state = json.loads(members(FORMAT_1)["trainer_state.json"])
    upgraded = checkpoint._upgrade({checkpoint.META: {"format_version": 1},
                                    checkpoint.STATE_JSON: {**state, "cuda_rng": {"__tensor__": "t99"}}})
    assert upgraded[checkpoint.STATE_JSON]["torch_rng"] == {"__tensor__": "t99"}
    assert "cuda_rng" not in upgraded[checkpoint.STATE_JSON]


def test_old_bpe_merges_become_pairs():
    tokenizer = {"kind": "bpe", "tokenizer": {"model": {"type": "BPE", "merges": ["a b", ["c", "d"]]}}}
    upgraded = checkpoint._upgrade({checkpoint.META: {"format_version": 1}, checkpoint.TOKENIZER: tokenizer})
    assert upgraded[checkpoint.TOKENIZER]["tokenizer"]["model"]["merges"] == [["a", "b"], ["c", "d"]]


def test_a_newer_format_is_still_refused(tmp_path):
    path = rewritten(tmp_path / "newer.zip", meta_json=lambda m: {**m, "format_version": 3})
    with pytest.raises(BundleError, match=r"newer Transformer Playground \(bundle format 3; this one "
                                          r"reads format 2\)\. Update the playground"):
        load_bundle(path)
