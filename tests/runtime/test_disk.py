"""Disk budgets, the bundle-size estimate, and the bundles kept over a restart (runtime.disk)."""

import os
import time

import pytest
from checks import assert_translated, tiny_model, token_stream

from playground.checkpoint import save_bundle
from playground.config import ConfigError, TrainConfig
from playground.runtime.hosting import Hosting
from playground.runtime.disk import (DiskBudget, ReturnStore, bundle_estimate, check_room,
                                     data_dir, folder_bytes)
from playground.tokenizer import train_tokenizer
from playground.train import Trainer

MB = 2**20


def test_budgets_come_from_the_environment():
    def budget(env):
        return DiskBudget.from_hosting(Hosting.from_env(env))

    assert budget({}) == DiskBudget(2048 * MB, 20 * 1024 * MB)
    assert budget({"PLAYGROUND_SESSION_DISK_MB": "0",
                   "PLAYGROUND_APP_DISK_MB": "1.5"}) == DiskBudget(None, int(1.5 * MB))
    for bad in ("-1", "nan", "lots"):
        assert budget({"PLAYGROUND_SESSION_DISK_MB": bad}).session_bytes == 2048 * MB


def test_a_save_past_a_budget_is_refused_with_what_to_do_and_the_replaced_bundle_is_free():
    budget = DiskBudget(session_bytes=10 * MB, app_bytes=100 * MB)
    check_room(6 * MB, session_used=8 * MB, app_used=50 * MB, budget=budget, replaced=5 * MB)
    with pytest.raises(ConfigError) as refused:
        check_room(6 * MB, session_used=8 * MB, app_used=50 * MB, budget=budget, replaced=3 * MB)
    assert_translated(refused.value, (
        "This model's bundle (about 6.0 MB) would take your saved files past this server's limit "
        "of 10.0 MB per visitor, so it was not saved; everything saved before is kept. The model "
        "is still here for the Generate and Attention tabs. To save a model, train a smaller one "
        "(fewer layers or a smaller n_embd, under Advanced)."), names=("n_embd",))
    with pytest.raises(ConfigError, match=r"space for saved models \(100\.0 MB for all visitors\)") as full:
        check_room(6 * MB, session_used=0, app_used=99 * MB, budget=budget)
    assert_translated(full.value, str(full.value))
    check_room(10**15, session_used=0, app_used=0, budget=DiskBudget(None, None))  # no limits


@pytest.mark.parametrize("optimizer", ["adamw", "muon"])
def test_the_estimate_is_a_little_over_what_save_bundle_writes(tmp_path, optimizer):
    tok = train_tokenizer("char", "".join(chr(65 + i) for i in range(16)))
    model = tiny_model(vocab_size=tok.vocab_size, n_layer=2, n_embd=32)
    ids = token_stream()
    cfg = TrainConfig(max_steps=30, batch_size=4, eval_interval=10, eval_iters=1,
                      sample_tokens=0, optimizer=optimizer, device="cpu", dtype="float32")
    trainer = Trainer(model, ids[:500], ids[500:], cfg)
    list(trainer.run())
    state = trainer.state_dict()
    path = save_bundle(tmp_path / "run.zip", model, tok, cfg, trainer.history, state)
    written, estimated = path.stat().st_size, bundle_estimate(model, len(trainer.history), state)
    assert written <= estimated <= 1.1 * written + 2 * 64 * 2**10
    assert bundle_estimate(model, 0) < written  # without the optimizer's state, far less


def test_folder_bytes_counts_every_file_below(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_bytes(b"1234")
    (tmp_path / "y").write_bytes(b"56")
    assert folder_bytes(tmp_path) == 6 and folder_bytes(tmp_path / "missing") == 0


def test_the_return_store_keeps_one_bundle_per_digest_for_its_time(tmp_path):
    store = ReturnStore(tmp_path / "returning", keep_s=60)
    source = tmp_path / "model.zip"
    source.write_bytes(b"weights")
    digest, other = "a" * 64, "b" * 64
    kept = store.put(digest, source)
    assert kept == tmp_path / "returning" / digest / "bundle.zip" and kept.read_bytes() == b"weights"
    assert store.find(digest) == kept and store.find(other) is None
    source.write_bytes(b"newer weights")
    store.put(digest, source)
    assert kept.read_bytes() == b"newer weights" and len(list(kept.parent.iterdir())) == 1
    (tmp_path / "returning" / "stray.txt").write_text("?")
    store.put(other, source)
    old = time.time() - 120
    os.utime(store.path(other), (old, old))
    assert store.find(other) is None  # past its time: not handed out...
    assert store.sweep() == 2  # ...and swept, with the stray file
    assert sorted(p.name for p in store.root.iterdir()) == [digest]
    store.discard(digest)
    assert store.find(digest) is None and store.used_bytes() == 0


@pytest.mark.parametrize("name", ["../../etc", "A" * 64, "a" * 63, "a" * 64 + "/x"])
def test_a_store_path_is_only_ever_a_digest(tmp_path, name):
    with pytest.raises(ValueError):
        ReturnStore(tmp_path, keep_s=1).path(name)


def test_the_data_folder_is_the_hosts_choice_first(tmp_path):
    assert data_dir(Hosting.from_env({"PLAYGROUND_DATA_DIR": str(tmp_path)})) == tmp_path
    assert data_dir(Hosting.from_env({})).name in ("playground", "transformer-playground")
