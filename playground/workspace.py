"""One visitor's work: the corpus, the tokenizer, the trained model, the runs, the language.

A ``Workspace`` is what a person makes in the playground, whoever drives it: the page keeps
one per browser session (``ui.session.Session`` adds what only the page shows: the plot's
options, the attention cached for a prompt), and ``playground.runs`` starts, stops and
finishes its runs. Nothing model-like lives at module level, so two visitors never see each
other's work; the app's folder (``app_temp_dir``) holds one subfolder per workspace, deleted
when the workspace is released.

>>> w = Workspace()
>>> w.corpus_or_default().name, w.trained is None, w.run.running
('Tiny Shakespeare', True, False)
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from playground.corpus import Corpus, load_tiny_shakespeare
from playground.insight.runs import RunLog
from playground.runtime.device import available_memory, collect_and_trim
from playground.runtime.disk import (DiskBudget, bundle_estimate, check_room, folder_bytes,
                                     returns_dir)
from playground.tokenizer import Tokenizer
from playground.trained import TrainedModel

if TYPE_CHECKING:
    from playground.runs import Run

log = logging.getLogger("playground.workspace")


@functools.lru_cache(maxsize=1)
def default_corpus() -> Corpus:
    """Tiny Shakespeare, read once per process: a frozen text all workspaces can share."""
    return load_tiny_shakespeare("bundled")


def app_temp_dir() -> Path:
    """The app's own temporary folder; everything it hands to the page lives under it."""
    root = os.environ.get("GRADIO_TEMP_DIR") or os.path.join(tempfile.gettempdir(), "gradio")
    return Path(root) / "playground"


class LiveFiles:
    """The files in the folders of workspaces still alive, for the web server's cache sweep
    to skip.

    Gradio's ``delete_cache`` removes every file the page has served once it is an hour old,
    a live session's bundle too (Export then failed naming the server path). The sweep spares
    the paths its blocks keep in cache; the page hands it this object, which lists the live
    workspaces' files when asked. Only workspace ids are kept here, never anything one made.
    """

    def __init__(self) -> None:
        self.sessions: set[str] = set()  # ids of workspaces with a folder, until released
        self.extra: set[str] = set()  # anything the server itself asks to keep

    def add(self, path: str) -> None:
        self.extra.add(path)

    def __iter__(self):
        yield from self.extra
        for workspace_id in list(self.sessions):
            for path in (app_temp_dir() / workspace_id).rglob("*"):
                if path.is_file():
                    yield os.path.abspath(path)


LIVE_FILES = LiveFiles()


def check_bundle_room(trained: TrainedModel, workdir: Path) -> None:
    """Refuse (``ConfigError``), before anything is written, a bundle of ``trained`` that would
    take this workspace's files or all the app's past their disk budget (``runtime.disk``). The
    bundles of earlier runs in ``workdir`` go once the new one is written, so they do not count."""
    replaced = sum(p.stat().st_size for p in workdir.glob("playground-model-step*.zip"))
    check_room(bundle_estimate(trained.model, len(trained.history), trained.trainer_state),
               session_used=folder_bytes(workdir),
               app_used=folder_bytes(app_temp_dir()) + folder_bytes(returns_dir()),
               budget=DiskBudget.from_hosting(), replaced=replaced)


@dataclass
class RunState:
    """A workspace's run: pending (Start accepted, waiting in the queue) -> running -> neither.

    Plain values, not a threading.Event: the page's state must be able to deep-copy a fresh
    workspace. ``current`` is the ``runs.Run`` going (None between runs); ``checked`` a run
    whose checks passed before the queue, for the queued half of Start to take
    (``runs.start_run``).
    """

    pending: bool = False
    running: bool = False
    stop_requested: bool = False
    released: bool = False  # freed (tab closed or time-to-live passed): a run going ends unsaved
    current: Run | None = None
    checked: Run | None = None

    def request_stop(self) -> bool:
        """Ask the run to stop after its current step (at once inside an evaluation; before
        its first step, while it waits for its turn, it ends without starting). Whether a run
        was going or pending to be asked."""
        if not (self.running or self.pending):
            return False
        self.stop_requested = True
        if self.current is not None:
            self.current.stop()
        return True


@dataclass
class Workspace:
    """Everything one visitor has made. ``tokenizer`` is the one on the Tokenizer tab;
    ``trained.tokenizer`` the one the model was trained with (they differ after retraining
    the tokenizer, until the next training run)."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    corpus: Corpus | None = None  # None: the default, Tiny Shakespeare
    tokenizer: Tokenizer | None = None
    tokenizer_corpus: Corpus | None = None  # the corpus the tokenizer was trained on
    # None until a run starts or a bundle is loaded; a property (below the class): reading it
    # brings back a model ``make_room`` set aside on disk, and marks the workspace as used
    trained: TrainedModel | None = field(default=None, repr=False, compare=False)
    run: RunState = field(default_factory=RunState)
    runs: RunLog = field(default_factory=RunLog)  # every finished run, for the Compare tab
    run_data: dict[str, tuple[Corpus, Tokenizer]] = field(default_factory=dict)  # run name ->
    #   the corpus and tokenizer it trained on, so "same run, one change" reuses the same data
    next_run_name: str = ""  # the name the next finished run gets ("" -> "run N")
    lang: str = "en"  # "en" | "zh-CN": the language messages are written in
    ready: str = ""  # the ready-made model used while it has none of its own (playground.ready)
    class_code: str = ""  # the class board of the lesson link it opened (insight.board), if any
    share_as: str = ""  # the nickname its finished runs go to that board under ("": not shared)

    @property
    def has_model(self) -> bool:
        """Whether there is a trained model, in memory or set aside on disk (asking
        ``trained`` would bring it back)."""
        return self.model_shell is not None

    @property
    def model_shell(self) -> TrainedModel | None:
        """The trained model as it is now, without bringing one set aside back: for one on
        disk, its tokenizer, settings and history with no weights (``model`` None)."""
        shelf = self.__dict__.get("_shelf")
        return self.__dict__.get("_trained") or (shelf[0] if shelf is not None else None)

    def set_aside(self) -> int:
        """Move the trained model's weights and optimiser state to a file in this workspace's
        folder and drop them from memory; ``trained`` brings them back when next read. The
        bytes let go (0: nothing to set aside, or a run is using the model).

        What stays in memory is small: the tokenizer, the settings, the curve."""
        with _SHELF_LOCK:
            trained = self.__dict__.get("_trained")
            if trained is None or self.run.running or self.run.pending:
                return 0
            nbytes = held_bytes(trained)
            if trained.ready_made:  # a shipped model: loaded again from the package when needed
                self.__dict__["_trained"] = None
                return nbytes
            path = self.workdir() / "set-aside-model.pt"
            torch.save({"model": trained.model, "trainer_state": trained.trainer_state}, path)
            self.__dict__["_shelf"] = (dataclasses.replace(trained, model=None, trainer_state=None),
                                       path, nbytes)
            self.__dict__["_trained"] = None
        log.info("set aside an idle model (%.1f MB) to %s", nbytes / 2**20, path)
        return nbytes

    def corpus_or_default(self) -> Corpus:
        return self.corpus if self.corpus is not None else default_corpus()

    def workdir(self) -> Path:
        """This workspace's folder inside the app's temporary folder (made on first use); its
        files are kept out of the server's cache sweep until the workspace is released."""
        path = app_temp_dir() / self.id
        path.mkdir(parents=True, exist_ok=True)
        LIVE_FILES.sessions.add(self.id)
        return path

    def release(self) -> None:
        """Free the model and delete this workspace's files.

        A run still going stops at once and, at its next record, ends writing nothing more:
        no bundle, no state for a workspace no one holds.
        """
        self.run.released = self.run.stop_requested = True
        if self.run.current is not None:
            self.run.current.stop()
        self.trained = None
        self.runs, self.run_data = RunLog(), {}
        LIVE_FILES.sessions.discard(self.id)
        shutil.rmtree(app_temp_dir() / self.id, ignore_errors=True)


# --- one memory budget for every workspace's model -------------------------------------------

_SHELF_LOCK = threading.RLock()  # setting a model aside and bringing it back, one at a time
_LIVE: weakref.WeakValueDictionary[int, Workspace] = weakref.WeakValueDictionary()
_LAST_USED: dict[int, float] = {}  # id(workspace) -> when its model was last read or set


def _get_trained(self: Workspace) -> TrainedModel | None:
    with _SHELF_LOCK:
        trained, shelf = self.__dict__.get("_trained"), self.__dict__.get("_shelf")
        if trained is None and shelf is not None:  # set aside by make_room: bring it back
            shell, path, nbytes = shelf
            make_room(nbytes, keep=self)  # (others' idle models may go to disk in its place)
            try:
                kept = torch.load(path, weights_only=False)  # our own file, in our own folder
            except (OSError, RuntimeError, EOFError):  # (deleted or cut short under us)
                log.exception("a model set aside at %s could not be read back", path)
                self.__dict__["_shelf"] = None
                return None
            trained = dataclasses.replace(shell, model=kept["model"],
                                          trainer_state=kept["trainer_state"])
            self.__dict__["_trained"], self.__dict__["_shelf"] = trained, None
            path.unlink(missing_ok=True)
            log.info("brought back a model set aside (%.1f MB)", nbytes / 2**20)
        if trained is not None:
            _LAST_USED[id(self)] = time.monotonic()
        return trained


def _set_trained(self: Workspace, trained: TrainedModel | None) -> None:
    with _SHELF_LOCK:
        shelf = self.__dict__.pop("_shelf", None)
        if shelf is not None:
            shelf[1].unlink(missing_ok=True)
        self.__dict__["_trained"] = trained
        if _LIVE.get(id(self)) is not self:
            _LIVE[id(self)] = self
            weakref.finalize(self, _LAST_USED.pop, id(self), None)
        _LAST_USED[id(self)] = time.monotonic()


# a property set after @dataclass, so the generated __init__ (and a subclass's) still takes
# ``trained=`` and assigns it through the setter
Workspace.trained = property(_get_trained, _set_trained)  # type: ignore[assignment]


def held_bytes(trained: TrainedModel | None) -> int:
    """Bytes of tensors a trained model holds: its weights and buffers, and the optimiser
    state kept for "continue" (each storage counted once).

    >>> from playground.config import ModelConfig, TrainConfig
    >>> from playground.model import GPT
    >>> from playground.tokenizer import train_tokenizer
    >>> tok = train_tokenizer("char", "hello world")
    >>> cfg = ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8)
    >>> model = GPT(cfg)
    >>> held_bytes(TrainedModel(model, tok, cfg, TrainConfig())) == 4 * sum(
    ...     t.numel() for t in [*model.parameters(), *model.buffers()])
    True
    """
    if trained is None:
        return 0
    seen, total = set(), 0

    def add(obj) -> None:
        nonlocal total
        if isinstance(obj, torch.Tensor):
            storage = obj.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
        elif isinstance(obj, dict):
            for value in obj.values():
                add(value)
        elif isinstance(obj, (list, tuple)):
            for value in obj:
                add(value)

    if trained.model is not None:
        add(list(trained.model.state_dict(keep_vars=True).values()))
    add(trained.trainer_state)
    return total


MEMORY_RESERVE = 0.8  # what may be taken of the free memory (prepare.MEMORY_HEADROOM's share)


def make_room(need: int, *, keep: Workspace | None = None,
              device: torch.device = torch.device("cpu"), free: int | None = None) -> int:
    """Before something takes about ``need`` bytes (a run, a tokenizer's training): when that
    is more than ``MEMORY_RESERVE`` of the free memory, the models of idle workspaces are set
    aside on disk (``Workspace.set_aside``), the least recently used first, until what they
    held covers the shortfall. ``keep`` (the asking visitor's) and any workspace with a run
    going or queued stay. Returns the bytes let go.

    What finished runs leave behind is counted this way: a server that admitted each run
    against what was free, and kept every model after, was killed by the next visitor's
    tokenizer. A model set aside comes back when its visitor next uses it."""
    if device.type != "cpu":
        return 0  # (a GPU's memory is the run's own; models wait on the CPU)
    free = available_memory(device) if free is None else free
    short = need - MEMORY_RESERVE * free if free is not None else 0
    if short <= 0:
        return 0
    with _SHELF_LOCK:
        idle = [ws for ws in list(_LIVE.values())
                if ws is not keep and ws.__dict__.get("_trained") is not None
                and not (ws.run.running or ws.run.pending)]
        idle.sort(key=lambda ws: _LAST_USED.get(id(ws), 0.0))
        freed = 0
        for ws in idle:
            if freed >= short:
                break
            freed += ws.set_aside()
    if freed:
        collect_and_trim()  # now: the memory is wanted at once, not after a quiet spell
        log.info("memory short by %.1f MB: set aside %.1f MB of idle models",
                 short / 2**20, freed / 2**20)
    return freed
