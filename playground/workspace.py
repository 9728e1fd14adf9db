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

import functools
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from playground.corpus import Corpus, load_tiny_shakespeare
from playground.insight.runs import RunLog
from playground.runtime.disk import (DiskBudget, bundle_estimate, check_room, folder_bytes,
                                     returns_dir)
from playground.tokenizer import Tokenizer
from playground.trained import TrainedModel

if TYPE_CHECKING:
    from playground.runs import Run


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
    trained: TrainedModel | None = None  # None until a run starts or a bundle is loaded
    run: RunState = field(default_factory=RunState)
    runs: RunLog = field(default_factory=RunLog)  # every finished run, for the Compare tab
    run_data: dict[str, tuple[Corpus, Tokenizer]] = field(default_factory=dict)  # run name ->
    #   the corpus and tokenizer it trained on, so "same run, one change" reuses the same data
    next_run_name: str = ""  # the name the next finished run gets ("" -> "run N")
    lang: str = "en"  # "en" | "zh-CN": the language messages are written in
    ready: str = ""  # the ready-made model used while it has none of its own (playground.ready)

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
