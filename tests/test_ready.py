"""The ready-made models (``playground.ready``): the shipped bundles load through the loader
every upload goes through, a fresh workspace writes and draws attention with one before any
training, training replaces it, and the script that made them makes them again."""

import dataclasses

import numpy as np
import pytest
import torch

from playground import ready, runs
from playground.checkpoint import BundleError, load_bundle
from playground.config import PRESETS, ConfigError, SampleConfig, TrainConfig
from playground.generate import generate_text
from playground.i18n import msg
from playground.insight.attention import attention_maps
from playground.tasks import TASKS, task_corpus
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord
from playground.workspace import Workspace

from checks import TINY_MODEL, TINY_TRAIN

MAX_SHIPPED_BYTES = 3 * 2**20  # all of them together (2.7 MB when written)


def test_the_package_ships_one_bundle_per_name_and_they_are_small():
    files = sorted(ready.READY_DIR.glob("*.zip"))
    assert sorted(p.stem for p in files) == sorted(ready.SHIPPED)
    assert set(ready.SHIPPED) == {"quick", *(f"task-{name}" for name in TASKS)}
    assert sum(p.stat().st_size for p in files) <= MAX_SHIPPED_BYTES


@pytest.mark.parametrize("name", ready.SHIPPED)
def test_each_shipped_bundle_is_its_preset_trained_on_its_text(name):
    trained = load_bundle(ready.ready_path(name))  # the upload's loader, every check
    preset, corpus = ready.ready_preset(name), ready.ready_corpus(name)
    assert trained.tokenizer.to_json() == train_tokenizer("char", corpus.text).to_json()
    assert trained.model_config == dataclasses.replace(
        preset.model, vocab_size=trained.tokenizer.vocab_size)
    assert trained.train_config == dataclasses.replace(preset.train, device="cpu", threads=1)
    assert trained.trainer_state is None  # not continued: half the bytes
    assert {p.dtype for p in trained.model.parameters()} == {torch.float32}
    last = [r for r in trained.history if isinstance(r, EvalRecord)][-1]
    assert last.step == preset.train.max_steps
    task = TASKS.get(name.removeprefix("task-"))
    if task is not None:  # about what its preset promises on the held-out problems (reverse:
        assert last.accuracy >= task.expected_accuracy - 0.05  # 0.94 here against 0.95)
    else:
        assert last.val_loss <= preset.expected_val_loss + 0.05


def test_a_damaged_ready_bundle_is_refused_as_an_upload_would_be(tmp_path, monkeypatch):
    data = ready.ready_path("task-copy").read_bytes()
    (tmp_path / "task-copy.zip").write_bytes(data[: len(data) // 2])
    monkeypatch.setattr(ready, "READY_DIR", tmp_path)
    with pytest.raises(BundleError, match="task-copy.zip"):
        ready.load_ready("task-copy")


def test_a_fresh_workspace_writes_and_draws_attention_before_any_training():
    ws = Workspace(ready=ready.DEFAULT)
    assert ws.trained is None  # nothing is loaded until something needs a model
    trained = runs.require_model(ws, msg("generate with"), ready_made=True)
    assert trained is ws.trained and trained.ready_made == "quick"
    assert trained.corpus.name == "Tiny Shakespeare" and not ready.has_own_model(ws)
    text = generate_text(trained.model, trained.tokenizer, "ROMEO:",
                         SampleConfig(max_new_tokens=60, temperature=0.8, seed=1))
    assert len(text) == 60 and set(text) <= set(trained.corpus.text)
    line = "ROMEO:\nWhat say you?"
    maps = attention_maps(trained.model, trained.tokenizer, line)
    cfg = PRESETS["quick"].model
    assert maps.weights.shape == (cfg.n_layer, cfg.n_head, len(line), len(line))
    np.testing.assert_allclose(maps.weights.sum(-1), 1.0, rtol=1e-5)
    # for looking and writing only: export and continuing ask for one's own
    with pytest.raises(ConfigError, match="ready-made one .* then export it"):
        runs.require_model(ws, msg("export"))
    # a bare workspace (the CLI's, a notebook's) has none
    with pytest.raises(ConfigError, match="no model to generate with yet"):
        runs.require_model(Workspace(), msg("generate with"), ready_made=True)


def test_a_task_corpus_brings_its_ready_model_and_training_replaces_it():
    ws = Workspace(ready=ready.DEFAULT)
    ready.use_ready(ws)
    ws.corpus = task_corpus("reverse")
    assert ready.follow_corpus(ws) and ws.trained is None and ws.ready == "task-reverse"
    trained = ready.use_ready(ws)
    assert trained.ready_made == "task-reverse" and trained.corpus.name == "reverse"

    model = dataclasses.replace(TASKS["reverse"].preset.model, **TINY_MODEL)
    run = runs.start_run(ws, runs.Configs(model, TrainConfig(**TINY_TRAIN)),
                         continue_=ready.has_own_model(ws))
    for _ in run.events():
        pass
    assert ws.trained is not trained and ws.trained.ready_made == ""
    assert ready.has_own_model(ws) and ws.trained.step == TINY_TRAIN["max_steps"]
    assert not ready.follow_corpus(ws)  # one's own model stays, whatever the corpus


@pytest.mark.slow
def test_the_script_makes_the_shipped_bundle_again(tmp_path):
    """Re-train the fastest one (task-copy, 300 steps: about 10 s) as the script does. On the CPU
    kind that made them (an AVX512-BF16 EPYC) the weights come out bit for bit; another kind's
    float32 kernels round some sums the other way, and 300 steps carry that into the weights
    (on an AVX2-only EPYC 10% of their size). So: the model learns the same (its last
    evaluation), and its weights lie far nearer the shipped ones than another seed's do (on the
    AVX2 EPYC 0.10 against 0.82)."""
    path = ready.save_ready(ready.train_ready("task-copy"), tmp_path / "task-copy.zip")
    made, shipped = load_bundle(path), load_bundle(ready.ready_path("task-copy"))
    other = ready.train_ready("task-copy", seed=ready.ready_preset("task-copy").train.seed + 1)
    assert made.model_config == shipped.model_config
    assert [r.step for r in made.history] == [r.step for r in shipped.history]

    def distance(trained) -> float:  # relative to the shipped weights, over the whole model
        a, b = (torch.cat([w.float().flatten() for w in m.model.state_dict().values()])
                for m in (trained, shipped))
        return float((a - b).norm() / b.norm())

    assert distance(made) <= 0.25 * distance(other), (distance(made), distance(other))
    last_made, last_shipped = (next(r for r in reversed(m.history) if isinstance(r, EvalRecord))
                               for m in (made, shipped))
    assert last_made.val_loss == pytest.approx(last_shipped.val_loss, abs=0.02)
    assert last_made.accuracy == pytest.approx(last_shipped.accuracy, abs=0.02)


def test_the_script_writes_where_it_is_told(tmp_path, monkeypatch):
    """scripts/make_ready_models.py trains what it is named and writes it under --out (the
    training itself stubbed with a tiny model: the slow test above re-trains for real)."""
    import runpy

    made = []

    def tiny_train(name):
        corpus = ready.ready_corpus(name)
        ws = Workspace(corpus=corpus)
        model = dataclasses.replace(ready.ready_preset(name).model, **TINY_MODEL)
        run = runs.start_run(ws, runs.Configs(model, TrainConfig(**TINY_TRAIN)))
        for _ in run.events():
            pass
        made.append(name)
        return ws.trained

    monkeypatch.setattr(ready, "train_ready", tiny_train)
    script = runpy.run_path(str(ready.READY_DIR.parents[2] / "scripts" / "make_ready_models.py"))
    assert script["main"](["task-copy", "--out", str(tmp_path)]) == 0
    assert made == ["task-copy"] and load_bundle(tmp_path / "task-copy.zip").trainer_state is None
