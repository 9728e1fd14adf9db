"""One browser session's state, and the conventions every handler follows.

Each visitor gets their own ``Session`` (held by ``gr.State``): corpus, tokenizer, the
trained model with its history (one core ``playground.trained.TrainedModel``), the run's state (``RunState``), the loss
plot's options (``PlotOptions``), the finished runs, the last generation, cached attention.
Nothing model-like lives at module level, so two visitors never see each other's work. Handlers receive the session, change it
in place and return it; a handler that fails raises ``gr.Error`` with a message for people
(``friendly_errors``) and leaves the session as it was.

>>> s = Session()
>>> s.corpus_or_default().name, s.trained is None
('Tiny Shakespeare', True)
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import gradio as gr

from playground.insight.attention import AttentionMaps
from playground.checkpoint import BundleError
from playground.config import ConfigError
from playground.i18n import DEFAULT_LANGUAGE, Message, error_text, localize, msg, t
from playground.corpus import Corpus, CorpusError, load_tiny_shakespeare
from playground.insight.memorization import CopyIndex
from playground.runtime.disk import (DiskBudget, bundle_estimate, check_room, folder_bytes,
                                     returns_dir)
from playground.insight.baselines import ReferenceLine
from playground.insight.runs import RunLog
from playground.tokenizer import Tokenizer, TokenizerError
from playground.trained import TrainedModel

log = logging.getLogger("playground.ui")


@functools.lru_cache(maxsize=1)
def default_corpus() -> Corpus:
    """Tiny Shakespeare, read once per process: a frozen text all sessions can share."""
    return load_tiny_shakespeare("bundled")


def app_temp_dir() -> Path:
    """The app's own temporary folder; everything it hands to the page lives under it."""
    root = os.environ.get("GRADIO_TEMP_DIR") or os.path.join(tempfile.gettempdir(), "gradio")
    return Path(root) / "playground"


class LiveFiles:
    """The files in the folders of sessions still alive, for Gradio's cache sweep to skip.

    ``delete_cache`` removes every file the page has served once it is an hour old, a live
    session's bundle too (Export then failed with Gradio's FileNotFoundError naming the
    server path). The sweep spares the paths in each block's ``keep_in_cache``; the page's
    ``gr.State`` holds this object there, which lists the live sessions' files when asked.
    Only session ids are kept here, never anything a session made.
    """

    def __init__(self) -> None:
        self.sessions: set[str] = set()  # ids of sessions with a folder, until released
        self.extra: set[str] = set()  # anything Gradio itself asks to keep

    def add(self, path: str) -> None:
        self.extra.add(path)

    def __iter__(self):
        yield from self.extra
        for session_id in list(self.sessions):
            for path in (app_temp_dir() / session_id).rglob("*"):
                if path.is_file():
                    yield os.path.abspath(path)


LIVE_FILES = LiveFiles()


def check_bundle_room(trained: TrainedModel, workdir: Path) -> None:
    """Refuse (``ConfigError``), before anything is written, a bundle of ``trained`` that would
    take this session's files or all the app's past their disk budget (``runtime.disk``). The
    bundles of earlier runs in ``workdir`` go once the new one is written, so they do not count."""
    replaced = sum(p.stat().st_size for p in workdir.glob("playground-model-step*.zip"))
    check_room(bundle_estimate(trained.model, len(trained.history), trained.trainer_state),
               session_used=folder_bytes(workdir),
               app_used=folder_bytes(app_temp_dir()) + folder_bytes(returns_dir()),
               budget=DiskBudget.from_hosting(), replaced=replaced)


@dataclass
class RunState:
    """A run's life: pending (Start accepted, waiting in the queue) -> running -> neither.

    Plain bools, not a threading.Event: gr.State must be able to deep-copy a fresh Session.
    """

    pending: bool = False
    running: bool = False
    stop_requested: bool = False
    released: bool = False  # freed (tab closed or time-to-live passed): a run going ends unsaved
    # the going run's own stop (LocalRun.stop, ChunkedRun.stop) while it goes, so Stop reaches
    # the trainer at once, inside an evaluation too (no record comes for the handler to see)
    stop: Callable[[], None] | None = None


@dataclass
class PlotOptions:
    """How the loss plot is drawn, and the notes shown beside it, for the last run."""

    x: str = "step"  # the x axis: "step" | "tokens" | "elapsed"
    show_references: bool = True  # what good looks like, drawn from the first run on
    references: list[ReferenceLine] = field(default_factory=list)  # of the last run
    coach: str = ""  # the training coach's notes (markdown) of the last run


@dataclass
class Session:
    """Everything one visitor has made. ``tokenizer`` is the one on the Tokenizer tab;
    ``trained.tokenizer`` the one the model was trained with (they differ after retraining
    the tokenizer, until the next training run)."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    corpus: Corpus | None = None  # None: the default, Tiny Shakespeare
    tokenizer: Tokenizer | None = None
    tokenizer_corpus: Corpus | None = None  # the corpus the tokenizer was trained on
    trained: TrainedModel | None = None  # None until a run starts or a bundle is uploaded
    run: RunState = field(default_factory=RunState)
    plot: PlotOptions = field(default_factory=PlotOptions)
    runs: RunLog = field(default_factory=RunLog)  # every finished run, for the Compare tab
    run_data: dict[str, tuple[Corpus, Tokenizer]] = field(default_factory=dict)  # run name ->
    #   the corpus and tokenizer it trained on, so "same run, one change" reuses the same data
    next_run_name: str = ""  # the name the next finished run gets ("" -> "run N")
    lang: str = "en"  # "en" | "zh-CN": the browser's Accept-Language on page load, then the
    #   language the page shows (Settings included), as the page reports it (ui.lang)
    lang_from_page: bool = False  # lang is the one the page shows (reported by the browser)
    last_prompt: str = ""
    last_text: str = ""  # the last generation, prompt included
    attention: AttentionMaps | None = None
    attention_text: str = ""
    copy_index: CopyIndex | None = None  # built once per corpus (the memorisation check)
    copy_index_corpus: Corpus | None = None

    def corpus_or_default(self) -> Corpus:
        return self.corpus if self.corpus is not None else default_corpus()

    def workdir(self) -> Path:
        """This session's folder inside the app's temporary folder (made on first use); its
        files are kept out of Gradio's cache sweep until the session is released."""
        path = app_temp_dir() / self.id
        path.mkdir(parents=True, exist_ok=True)
        LIVE_FILES.sessions.add(self.id)
        return path

    def release(self) -> None:
        """Free the model and delete this session's files (``gr.State``'s delete_callback).

        A run still going sees ``run.released`` at its next record, stops after that step and
        writes nothing more: no bundle, no state for a session no one holds.
        """
        self.run.released = self.run.stop_requested = True
        if self.run.stop is not None:
            self.run.stop()  # at once, inside an evaluation too
        self.trained = self.attention = None
        self.runs, self.run_data = RunLog(), {}
        self.copy_index = self.copy_index_corpus = None
        LIVE_FILES.sessions.discard(self.id)
        shutil.rmtree(app_temp_dir() / self.id, ignore_errors=True)


def new_session() -> Session:
    """``gr.State``'s initial value: a function, called once per visitor.

    (Not the class itself: Gradio would take a dataclass type for a value and try to
    serialise it.)
    """
    return Session()


def ensure(session: Session | None) -> Session:
    """The handler's session: a fresh one when called without (API clients, tests)."""
    return session if session is not None else Session()


# Errors whose message is written for people: shown as they are.
PEOPLE_ERRORS = (ConfigError, CorpusError, TokenizerError, BundleError, ValueError)


def _to_gr_error(error: Exception, lang: str) -> gr.Error:
    if isinstance(error, PEOPLE_ERRORS):
        # expected: the person changes the input; no traceback in the server log
        return gr.Error(error_text(error, lang), title=t("Cannot do that yet", lang),
                        print_exception=False)
    log.exception("unexpected error in a handler")
    return gr.Error(t("Something unexpected went wrong (the details are in the server log). "
                      "Nothing you made so far was lost; try again, or change the settings.",
                      lang), title=t("Unexpected error", lang))


def _language(args: tuple, kwargs: dict) -> str:
    """The language of the session a handler was called with (English without one)."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, Session):
            return value.lang
    return DEFAULT_LANGUAGE


def friendly_errors(fn: Callable) -> Callable:
    """Turn any exception of a handler into a ``gr.Error`` the page shows as a message.

    Our errors (``ValueError`` subclasses with messages for people) are shown as they are;
    anything else is logged with its traceback on the server and shown as a generic line.
    Generator handlers stay generators, so Gradio still streams them.

    >>> @friendly_errors
    ... def bad():
    ...     raise ConfigError("n_head must divide n_embd.")
    >>> try:
    ...     bad()
    ... except gr.Error as e:
    ...     print(e.message)
    n_head must divide n_embd.
    """
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator_wrapper(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as error:
                raise _to_gr_error(error, _language(args, kwargs)) from error
        return generator_wrapper

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as error:
            raise _to_gr_error(error, _language(args, kwargs)) from error
    return wrapper


def require_model(session: Session, action: Message) -> TrainedModel:
    """The session's trained model, or a message saying what to do first when there is none.

    ``action`` says what the visitor wanted, e.g. ``msg("generate with")``. A model that is
    training is refused too (with ``PLAYGROUND_CONCURRENCY`` above 1, a Generate during the
    run switched the model to eval mode and changed the run's result).
    """
    if session.trained is None:
        text = localize(msg("There is no model to {action} yet. Train one on the 'Model & "
                            "training' tab (or upload a bundle there) first.",
                            action=action), session.lang)
        raise gr.Error(text, title=t("No model yet", session.lang), print_exception=False)
    if session.run.running:  # its weights change every step, and eval mode would change its run
        text = localize(msg("The model is training right now: wait for the run to end (or press "
                            "Stop), then {action} it.", action=action), session.lang)
        raise gr.Error(text, title=t("Already training", session.lang), print_exception=False)
    return session.trained
