"""One browser session's state, and the conventions every handler follows.

Each visitor gets their own ``Session`` (held by ``gr.State``): the core's ``Workspace``
(corpus, tokenizer, trained model, the run's state, the finished runs) with the loss plot's
options (``PlotOptions``), the last generation and cached attention. Nothing model-like lives
at module level, so two visitors never see each other's work. Handlers receive the session,
change it in place and return it; a handler that fails raises ``gr.Error`` with a message for people
(``friendly_errors``) and leaves the session as it was.

>>> s = Session()
>>> s.corpus_or_default().name, s.trained is None
('Tiny Shakespeare', True)
"""

from __future__ import annotations

import functools
import inspect
import logging
from dataclasses import dataclass, field
from typing import Callable

import gradio as gr

from playground.insight.attention import AttentionMaps
from playground.checkpoint import BundleError
from playground.config import ConfigError
from playground.i18n import DEFAULT_LANGUAGE, Message, error_text, localize, msg, t
from playground.corpus import Corpus, CorpusError
from playground.insight.memorization import CopyIndex
from playground.insight.baselines import ReferenceLine
from playground.tokenizer import TokenizerError
from playground.trained import TrainedModel
from playground import ready, runs
from playground.runs import Busy
from playground.runtime.files import UPLOADS
from playground.workspace import (LIVE_FILES, LiveFiles, RunState,  # noqa: F401 (the page's names)
                                  Workspace, app_temp_dir, check_bundle_room, default_corpus)

log = logging.getLogger("playground.ui")


@dataclass
class PlotOptions:
    """How the loss plot is drawn, and the notes shown beside it, for the last run."""

    x: str = "step"  # the x axis: "step" | "tokens" | "elapsed"
    show_references: bool = True  # what good looks like, drawn from the first run on
    references: list[ReferenceLine] = field(default_factory=list)  # of the last run
    coach: str = ""  # the training coach's notes (markdown) of the last run


@dataclass
class Session(Workspace):
    """One visitor's workspace (``playground.workspace.Workspace``: corpus, tokenizer, trained
    model, runs, language) with what only the page adds: the plot's options, the last
    generation, the attention cached for a prompt, the memorisation index. ``lang`` is the
    browser's Accept-Language on page load, then the language the page shows (Settings
    included), as the page reports it (``ui.lang``)."""

    plot: PlotOptions = field(default_factory=PlotOptions)
    lang_from_page: bool = False  # lang is the one the page shows (reported by the browser)
    last_prompt: str = ""
    last_text: str = ""  # the last generation, prompt included
    attention: AttentionMaps | None = None
    attention_text: str = ""
    copy_index: CopyIndex | None = None  # built once per corpus (the memorisation check)
    copy_index_corpus: Corpus | None = None
    uploads: set[str] = field(default_factory=set)  # the files this page uploaded (resolved)

    def release(self) -> None:
        """Free the model and delete this session's files (``gr.State``'s delete_callback);
        a run still going ends unsaved (``Workspace.release``)."""
        super().release()
        self.attention = None
        self.copy_index = self.copy_index_corpus = None


def new_session() -> Session:
    """``gr.State``'s initial value: a function, called once per visitor. The visitor starts
    with the ready-made ``quick`` model (``playground.ready``), loaded when first needed.

    (Not the class itself: Gradio would take a dataclass type for a value and try to
    serialise it.)
    """
    return Session(ready=ready.DEFAULT)


def ensure(session: Session | None) -> Session:
    """The handler's session: a fresh one when called without (API clients, tests)."""
    return session if session is not None else Session()


def uploaded_files(session: Session, paths: list[str], request: gr.Request | None) -> list[str]:
    """``paths``, sent with a page's call (``request``), resolved, if this page uploaded each of
    them; else ``UploadRefused`` (a message for people) before any is read.

    Gradio lets a call name any file in its upload folder, every visitor's uploads included,
    and an upload names no page: the web server notes each upload with its client's address
    (``server.guard``), and a page takes one as its own the first time it sends it
    (``runtime.files.Uploads``); ``session.uploads`` holds what it took.
    """
    from playground.server.guard import client_address  # the server's door (it imports the tabs)

    address = client_address(getattr(request, "headers", None) or {},
                             getattr(getattr(request, "client", None), "host", None))
    return [UPLOADS.take(path, address, session.uploads) for path in paths]


# Errors whose message is written for people: shown as they are.
PEOPLE_ERRORS = (ConfigError, CorpusError, TokenizerError, BundleError, ValueError)


def _to_gr_error(error: Exception, lang: str) -> gr.Error:
    if isinstance(error, PEOPLE_ERRORS):
        # expected: the person changes the input; no traceback in the server log
        title = "Already training" if isinstance(error, Busy) else "Cannot do that yet"
        return gr.Error(error_text(error, lang), title=t(title, lang), print_exception=False)
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


def require_model(session: Session, action: Message, *, ready_made: bool = False) -> TrainedModel:
    """The session's trained model, or a message saying what to do first when there is none.

    ``action`` says what the visitor wanted, e.g. ``msg("generate with")``; ``ready_made``
    whether the session's ready-made model will do (``runs.require_model``). A model that is
    training is refused too (with ``PLAYGROUND_CONCURRENCY`` above 1, a Generate during the
    run switched the model to eval mode and changed the run's result).
    """
    try:
        runs.require_model(session, action, ready_made=ready_made)
    except ConfigError as none:
        raise gr.Error(error_text(none, session.lang), title=t("No model yet", session.lang),
                       print_exception=False) from None
    if session.run.running:  # its weights change every step, and eval mode would change its run
        text = localize(msg("The model is training right now: wait for the run to end (or press "
                            "Stop), then {action} it.", action=action), session.lang)
        raise gr.Error(text, title=t("Already training", session.lang), print_exception=False)
    return session.trained
