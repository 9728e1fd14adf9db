"""Ready-made models: small trained bundles that ship with the package, so a first visit can
generate, draw attention and look inside before anything is trained.

One bundle per name in ``SHIPPED``, in ``data/ready/``: the ``quick`` preset trained on Tiny
Shakespeare, and each toy task's preset (``task-reverse``, ...) trained on its task corpus.
``scripts/make_ready_models.py`` writes them with ``train_ready`` and ``save_ready``: the
preset's own seed, one CPU thread and float32 Newton-Schulz steps, so rerunning the script
gives the same weights (a test re-trains one and compares). A bundle keeps the run's history
(its samples show on the Inside tab) but no trainer state, and its weights as float16: half the
bytes, and the loader reads any floating-point weights into the float32 model.

A ready-made model is read by ``checkpoint.load_bundle``, the loader that checks every upload,
and marked with ``TrainedModel.ready_made``. A workspace names the one it falls back on in
``Workspace.ready`` (the page's sessions: ``DEFAULT``; a bare ``Workspace()``: none), and
``use_ready`` loads it the first time something needs a model, never at start-up. It is for
looking at and writing with: training replaces it, and export and "Continue training" ask for
a model of one's own (``runs.require_model``).

>>> from playground.workspace import Workspace
>>> w = Workspace(ready="task-reverse")
>>> use_ready(w).ready_made, w.trained.corpus.name, has_own_model(w)
('task-reverse', 'reverse', False)
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import torch

from playground.checkpoint import load_bundle, save_bundle
from playground.config import PRESETS, Preset
from playground.corpus import Corpus
from playground.optim import fixed_newton_schulz
from playground.prepare import prepare_run
from playground.tasks import TASKS, task_corpus, task_of
from playground.tokenizer import train_tokenizer
from playground.trained import TrainedModel
from playground.workspace import Workspace, default_corpus

READY_DIR = Path(__file__).parent / "data" / "ready"
SHIPPED = ("quick", *(f"task-{name}" for name in TASKS))
DEFAULT = "quick"  # what the page's sessions start with
WEIGHTS_DTYPE = torch.float16  # a shipped bundle's weights; the model itself is float32


def ready_path(name: str) -> Path:
    return READY_DIR / f"{name}.zip"


def _task(name: str) -> str | None:
    """The toy task a ready-made model name stands for ("task-reverse" -> "reverse")."""
    task = name.removeprefix("task-")
    return task if name.startswith("task-") and task in TASKS else None


def ready_preset(name: str) -> Preset:
    task = _task(name)
    return TASKS[task].preset if task else PRESETS[name]


def ready_corpus(name: str) -> Corpus:
    """The text the ready-made model ``name`` trained on: its task's corpus, or Tiny Shakespeare."""
    task = _task(name)
    return task_corpus(task) if task else default_corpus()


def ready_for(corpus: Corpus | None) -> str:
    """The ready-made model for a corpus: its toy task's when one ships, else ``DEFAULT``.

    >>> ready_for(task_corpus("sort", lines=5)), ready_for(None)
    ('task-sort', 'quick')
    """
    task = task_of(corpus)
    return f"task-{task.name}" if task and ready_path(f"task-{task.name}").is_file() else DEFAULT


def load_ready(name: str) -> TrainedModel:
    """The shipped bundle ``name``, through the same checks as any upload, marked as ready-made
    and with the corpus it trained on (the text is known here, unlike an upload's)."""
    trained = load_bundle(ready_path(name))
    trained.ready_made, trained.corpus = name, ready_corpus(name)
    return trained


def use_ready(workspace: Workspace) -> TrainedModel | None:
    """The workspace's model: its own, else its ready-made one, loaded on first need (None when
    it names none)."""
    if workspace.trained is None and workspace.ready:
        workspace.trained = load_ready(workspace.ready)
    return workspace.trained


def follow_corpus(workspace: Workspace) -> bool:
    """After the corpus changed: a workspace falling back on a ready-made model (none of its
    own) takes the one for its corpus (``ready_for``), loaded on next need. Whether it now
    uses a toy task's.

    >>> w = Workspace(ready=DEFAULT, corpus=task_corpus("reverse", lines=5))
    >>> follow_corpus(w), w.ready
    (True, 'task-reverse')
    """
    if not workspace.ready or has_own_model(workspace):
        return False
    name = ready_for(workspace.corpus)
    if name != workspace.ready:
        workspace.ready, workspace.trained = name, None  # the other ready-made model goes
    return name != DEFAULT


def has_own_model(workspace: Workspace) -> bool:
    """Whether the workspace holds a model its visitor trained or uploaded (not a ready-made one)."""
    shell = workspace.model_shell  # (a model set aside on disk stays there)
    return shell is not None and not shell.ready_made


# --- making the bundles (scripts/make_ready_models.py) -------------------------------------------


def train_ready(name: str, seed: int | None = None) -> TrainedModel:
    """Train the ready-made model ``name`` from its preset, the same way every time: the preset's
    seed (or ``seed``), the CPU, one thread (sums then run in one order), float32 Newton-Schulz
    (the probe's choice depends on the machine). A few minutes for ``quick`` on a laptop CPU;
    the tasks take seconds to a minute."""
    preset = ready_preset(name)
    corpus = ready_corpus(name)
    train_config = dataclasses.replace(preset.train, device="cpu", threads=1, compile=False,
                                       seed=preset.train.seed if seed is None else seed)
    run = prepare_run(corpus, train_tokenizer("char", corpus.text), preset.model, train_config,
                      device=torch.device("cpu"))
    trainer = run.trainer(device="cpu")
    with fixed_newton_schulz(torch.float32):
        for _ in trainer.run():
            pass
    run.trained.history = list(trainer.history)
    return run.trained


def save_ready(trained: TrainedModel, path: str | Path) -> Path:
    """Write ``trained`` as a shipped bundle: its weights as ``WEIGHTS_DTYPE``, its history, no
    trainer state (a ready-made model is not continued)."""
    model = copy.deepcopy(trained.model).to(WEIGHTS_DTYPE)  # the buffers are not saved (RoPE's)
    return save_bundle(path, model, trained.tokenizer, trained.train_config, trained.history)
