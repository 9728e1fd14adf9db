"""One memory budget for every visitor's model (hostile round 3, finding 2): when a run or a
tokenizer would not fit beside the models finished runs left in memory, the idle ones go to
disk, the least recently used first, and come back unchanged when their visitor next uses
them; a model a run is using never goes."""

from __future__ import annotations

import dataclasses
import gc
import weakref

import pytest
import torch
from checks import run_settings

from playground import runs, workspace as workspace_module
from playground.corpus import from_text
from playground.tokenizer import train_tokenizer
from playground.workspace import Workspace, held_bytes, make_room

settings = run_settings  # (the tiny preset, smaller still: tests/checks.py)


@pytest.fixture
def visitors(tiny_text, tmp_path, monkeypatch):
    """Four workspaces, each with a model trained by the run driver (AdamW: optimiser state
    kept for "continue"); the first trained first, so it is the least recently used."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    # only these four count (a model other tests left alive in this process would be older)
    monkeypatch.setattr(workspace_module, "_LIVE", weakref.WeakValueDictionary())
    made = []
    for _ in range(4):
        corpus = from_text(tiny_text)
        ws = Workspace(corpus=corpus, tokenizer=train_tokenizer("char", corpus.text),
                       tokenizer_corpus=corpus)
        done = list(runs.start_run(ws, settings()).events())[-1]
        assert done.end.reason == "done"
        made.append(ws)
    yield made
    for ws in made:
        ws.release()


def snapshot(ws: Workspace) -> dict[str, torch.Tensor]:
    trained = ws.__dict__["_trained"]
    tensors = {f"model.{k}": v.clone() for k, v in trained.model.state_dict().items()}

    def walk(obj, name: str) -> None:  # every tensor of the trainer's state (the optimiser's)
        if isinstance(obj, torch.Tensor):
            tensors[name] = obj.clone()
        elif isinstance(obj, dict):
            for key, value in obj.items():
                walk(value, f"{name}.{key}")
        elif isinstance(obj, (list, tuple)):
            for i, value in enumerate(obj):
                walk(value, f"{name}.{i}")

    walk(trained.trainer_state, "state")
    assert len(tensors) > len(trained.model.state_dict())  # the optimiser's moments are there
    return tensors


def in_memory(ws: Workspace) -> bool:
    return ws.__dict__.get("_trained") is not None


def test_idle_models_go_to_disk_least_recently_used_first_and_come_back_the_same(visitors):
    first, second, third, asking = visitors
    assert second.trained is not None  # its visitor used it since: the third is older now
    one = held_bytes(first.__dict__["_trained"])
    assert one > 0
    before = {id(ws): snapshot(ws) for ws in (first, third)}
    gone = weakref.ref(first.__dict__["_trained"].model)

    # short by one and a half models: two go, the two used longest ago
    freed = make_room(int(2.5 * one), keep=asking, free=int(one / workspace_module.MEMORY_RESERVE))
    assert freed == 2 * one
    assert [in_memory(ws) for ws in visitors] == [False, True, False, True]
    assert all(ws.has_model for ws in visitors)
    gc.collect()
    assert gone() is None  # the weights really left memory

    for ws in (first, third):
        path = ws.workdir() / "set-aside-model.pt"
        assert path.exists()
        assert ws.trained is not None  # read: brought back
        back = snapshot(ws)
        assert back.keys() == before[id(ws)].keys()
        for name, value in before[id(ws)].items():
            assert torch.equal(back[name], value), name
        assert not path.exists() and in_memory(ws)


def test_nothing_goes_while_the_memory_suffices_and_a_run_keeps_its_model(visitors):
    first, *_, asking = visitors
    one = held_bytes(first.__dict__["_trained"])
    assert make_room(one, keep=asking, free=10 * one) == 0
    for ws in visitors[:3]:
        ws.run.running = True  # a run is using these models
    try:
        assert make_room(100 * one, keep=asking, free=one) == 0
        assert all(in_memory(ws) for ws in visitors)
    finally:
        for ws in visitors[:3]:
            ws.run.running = False


def test_continuing_a_model_brought_back_trains_exactly_as_if_it_had_stayed(visitors):
    kept, moved = visitors[0], visitors[1]
    # the same model in both: the second's replaced by a copy of the first's
    moved.trained = dataclasses.replace(
        kept.trained, model=torch.load(_saved(kept), weights_only=False)["model"],
        trainer_state=torch.load(_saved(kept), weights_only=False)["trainer_state"])
    assert moved.set_aside() > 0 and not in_memory(moved)
    for ws in (kept, moved):
        done = list(runs.start_run(ws, settings(max_steps=8), continue_=True).events())[-1]
        assert done.end.reason == "done" and done.step == 8
    for name, value in kept.trained.model.state_dict().items():
        assert torch.equal(moved.trained.model.state_dict()[name], value), name


def _saved(ws: Workspace):
    """A copy of ``ws``'s model and optimiser state, through the same file format."""
    path = ws.workdir() / "copy.pt"
    trained = ws.trained
    torch.save({"model": trained.model, "trainer_state": trained.trainer_state}, path)
    return path


def test_a_start_that_would_not_fit_sets_idle_models_aside_first(visitors, monkeypatch):
    """Through the run driver: the machine says too little is free for the next run beside
    the models held, so idle ones go to disk before it is built."""
    *others, asking = visitors
    one = held_bytes(others[0].__dict__["_trained"])
    monkeypatch.setattr(workspace_module, "available_memory", lambda device: one)
    done = list(runs.start_run(asking, settings()).events())[-1]
    assert done.end.reason == "done"
    assert [in_memory(ws) for ws in others] == [False, False, False]
    assert in_memory(asking)
    for ws in others:  # each comes back when its visitor generates, say
        assert ws.trained.model is not None and in_memory(ws)


def test_release_deletes_a_model_set_aside(visitors):
    ws = visitors[0]
    assert ws.set_aside() > 0
    path = ws.workdir() / "set-aside-model.pt"
    assert path.exists()
    ws.release()
    assert not path.exists() and not ws.has_model and ws.trained is None
