"""The class board: the runs a class chose to share, side by side, best first.

A teacher's lesson link may carry a class code (``export.lesson``, ``class=``); ``new_code``
makes one (96 random bits: a code is the only key to its board, so it must be hard to guess).
A learner on that page who ticks "share my runs with the class" picks a nickname, and each run
they finish then goes to the board as a ``RunRecord`` cut down to what the class may see
(``shareable``): the nickname as its name, the settings, the validation curve, the final
figures and one sample the model wrote. The learner's text, tokenizer, model and files never
leave their workspace, and unticking takes their runs off the board.

The board is bounded: at most ``MAX_PER_LEARNER`` runs of one learner and ``MAX_PER_CLASS`` of
a class (the oldest go first), forgotten ``KEEP_S`` after they were shared, and at most
``MAX_CLASSES`` classes (the one shared to longest ago goes). A board answers only for its own
code, so nothing of one class reaches another.

>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.train import EvalRecord
>>> def run(loss):
...     return RunRecord.create("run 1", ModelConfig(), TrainConfig(), "char",
...                             [EvalRecord(100, 6400, loss, loss, 0.0, 0.0, 1.0, "To be")])
>>> board, code = Board(), new_code()
>>> board.share(code, "learner-a", "Ada", run(1.9))
>>> board.share(code, "learner-b", "Bo", run(1.7))
>>> [(entry.name, entry.record.final_val_loss) for entry in board.entries(code)]
[('Bo', 1.7), ('Ada', 1.9)]
>>> board.entries(new_code())
[]
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass

from playground.i18n import msg
from playground.insight.runs import RunRecord, compare_unit
from playground.train import EndRecord, EvalRecord

CODE_BYTES = 12  # 96 random bits, written as 16 URL-safe characters
CODE_PATTERN = re.compile(r"[A-Za-z0-9_-]{16}")
MAX_NICKNAME_CHARS = 24
MAX_SAMPLE_CHARS = 240
MAX_POINTS = 40  # evaluations a shared curve keeps (evenly spread, the last always)
MAX_PER_LEARNER = 3
MAX_PER_CLASS = 40
MAX_CLASSES = 500  # bounds what boards hold: about 40 x 500 runs of a few KB each
KEEP_S = 6 * 3600.0  # a school day


class BoardError(ValueError):
    """A class code or nickname that cannot be used, said for a person (a ``Message``)."""


def new_code() -> str:
    """A fresh class code: 16 characters a link carries as they are.

    >>> bool(CODE_PATTERN.fullmatch(new_code())), new_code() != new_code()
    (True, True)
    """
    return secrets.token_urlsafe(CODE_BYTES)


def check_code(code: str) -> str:
    """``code`` when it is one ``new_code`` could have made, else ``BoardError``."""
    if not isinstance(code, str) or not CODE_PATTERN.fullmatch(code):
        raise BoardError(msg("The class code in this link is not one the playground makes (16 "
                             "letters, digits, - or _). Ask your teacher for the link again."))
    return code


def clean_nickname(name: str) -> str:
    """The nickname as the board shows it: without control characters, spaces collapsed, at
    most ``MAX_NICKNAME_CHARS``; ``BoardError`` when nothing is left.

    >>> clean_nickname("  Ada\\u200b  L. ")
    'Ada L.'
    """
    kept = "".join(c for c in str(name or "") if not unicodedata.category(c).startswith("C"))
    kept = " ".join(kept.split())
    if not kept:
        raise BoardError(msg("Choose a nickname first: the class board shows your runs under it "
                             "(not your real name, unless you want it to)."))
    return kept[:MAX_NICKNAME_CHARS]


def _sample(history) -> str:
    """The last sample the run wrote, without control characters but newlines, cut short."""
    last = next((r.sample for r in reversed(history) if isinstance(r, EvalRecord) and r.sample), "")
    kept = "".join(c for c in last if c == "\n" or not unicodedata.category(c).startswith("C"))
    return kept[:MAX_SAMPLE_CHARS].strip()


def shareable(record: RunRecord) -> tuple[RunRecord, str]:
    """What the board may keep of a finished run: its settings and evaluations (at most
    ``MAX_POINTS``, without their samples), its last step, and its last sample apart.

    >>> from playground.config import ModelConfig, TrainConfig
    >>> evals = [EvalRecord(s, s * 64, 2.0, 2.0, 3.0, 3.0, float(s), f"sample {s}") for s in range(100)]
    >>> kept, sample = shareable(RunRecord.create("run 1", ModelConfig(), TrainConfig(), "char", evals))
    >>> len(kept.history), kept.history[-1].step, kept.history[-1].sample, sample
    (40, 99, None, 'sample 99')
    """
    evals = [r for r in record.history if isinstance(r, EvalRecord)]
    if len(evals) > MAX_POINTS:
        last = len(evals) - 1
        evals = [evals[round(i * last / (MAX_POINTS - 1))] for i in range(MAX_POINTS)]
    history = [dataclasses.replace(r, sample=None) for r in evals]
    end = next((r for r in reversed(record.history) if isinstance(r, EndRecord)), None)
    if end is not None:
        history.append(EndRecord(end.step, end.reason, ""))
    kept = dataclasses.replace(record, history=history, corpus_source="",
                               model_config=dict(record.model_config),
                               train_config=dict(record.train_config))
    return kept, _sample(record.history)


@dataclass(frozen=True)
class Entry:
    """One shared run as the board shows it: ``name`` is the nickname (with the learner's run
    name when they shared several, and a number when two learners chose the same nickname),
    also the name of ``record``."""

    name: str
    record: RunRecord
    sample: str
    shared_at: float


@dataclass
class _Shared:
    learner: str  # the workspace's id: never shown, only tells one learner's runs apart
    run_name: str
    record: RunRecord
    sample: str
    shared_at: float


@dataclass
class _Class:
    runs: list[_Shared] = dataclasses.field(default_factory=list)
    nicknames: dict[str, str] = dataclasses.field(default_factory=dict)  # learner -> nickname
    version: int = 0
    touched: float = 0.0


class Board:
    """Every class's shared runs (one per process: ``BOARD``); thread-safe, bounded."""

    def __init__(self, clock=time.time):
        self._clock = clock
        self._classes: dict[str, _Class] = {}
        self._lock = threading.Lock()

    def share(self, code: str, learner: str, nickname: str, record: RunRecord) -> None:
        """Put ``record`` on class ``code``'s board under ``nickname`` (the learner's nickname
        for all their runs there), in place of that learner's earlier share of the same run."""
        code, nickname = check_code(code), clean_nickname(nickname)
        kept, sample = shareable(record)
        with self._lock:
            now = self._clock()
            self._forget(now)
            board = self._classes.setdefault(code, _Class())
            board.runs = [s for s in board.runs
                          if not (s.learner == learner and s.run_name == record.name)]
            board.runs.append(_Shared(learner, record.name, kept, sample, now))
            own = [s for s in board.runs if s.learner == learner]
            for old in own[:-MAX_PER_LEARNER]:
                board.runs.remove(old)
            del board.runs[:-MAX_PER_CLASS]
            board.nicknames = {s.learner: board.nicknames.get(s.learner, nickname)
                               for s in board.runs}
            board.nicknames[learner] = nickname
            board.version += 1
            board.touched = now
            while len(self._classes) > MAX_CLASSES:
                oldest = min(self._classes, key=lambda c: self._classes[c].touched)
                del self._classes[oldest]

    def withdraw(self, code: str, learner: str) -> int:
        """Take the learner's runs off class ``code``'s board; how many went."""
        with self._lock:
            board = self._classes.get(code)
            if board is None:
                return 0
            before = len(board.runs)
            board.runs = [s for s in board.runs if s.learner != learner]
            board.nicknames.pop(learner, None)
            board.version += 1
            return before - len(board.runs)

    def version(self, code: str) -> int:
        """A number that changes whenever class ``code``'s board does (0: none yet)."""
        with self._lock:
            self._forget(self._clock(), code)
            board = self._classes.get(code)
            return board.version if board is not None else 0

    def entries(self, code: str) -> list[Entry]:
        """Class ``code``'s shared runs, best first (``ranked``); none for an unknown code."""
        with self._lock:
            self._forget(self._clock(), code)
            board = self._classes.get(code)
            if board is None:
                return []
            runs, nicknames = list(board.runs), dict(board.nicknames)
        return ranked(_named(runs, nicknames))

    def _forget(self, now: float, code: str | None = None) -> None:
        """Drop the runs shared ``KEEP_S`` ago, and the classes left empty: of class ``code``
        only (a page's timer asks every few seconds), or of every class (a share)."""
        for name in [code] if code is not None else list(self._classes):
            board = self._classes.get(name)
            if board is None:
                continue
            kept = [s for s in board.runs if now - s.shared_at < KEEP_S]
            if len(kept) < len(board.runs):
                board.runs, board.version = kept, board.version + 1
            if not board.runs:
                del self._classes[name]


def _named(runs: list[_Shared], nicknames: dict[str, str]) -> list[Entry]:
    """Each run under its learner's nickname, told apart where two learners chose the same one
    ("Ada", "Ada 2") and where one learner shared several ("Ada · run 3")."""
    learners = list(dict.fromkeys(s.learner for s in runs))  # in the order they first shared
    seen: Counter[str] = Counter()
    names = {}
    for learner in learners:
        nickname = nicknames.get(learner, "?")
        seen[nickname.casefold()] += 1
        count = seen[nickname.casefold()]
        names[learner] = nickname if count == 1 else f"{nickname} {count}"
    per_learner = Counter(s.learner for s in runs)
    entries = []
    for s in runs:
        name = names[s.learner]
        if per_learner[s.learner] > 1:
            name = f"{name} · {s.run_name}"
        entries.append(Entry(name, dataclasses.replace(s.record, name=name), s.sample, s.shared_at))
    return entries


def ranked(entries: list[Entry]) -> list[Entry]:
    """Best first: by a toy task's held-out accuracy when any run has one, then by the final
    validation loss (bits per character when the runs' tokenizers differ, as Compare does);
    runs with no figure yet last."""
    unit = compare_unit([e.record for e in entries])

    def loss(entry: Entry) -> float:
        value = entry.record.final_val_bpc if unit == "bpc" else entry.record.final_val_loss
        return value if value is not None else float("inf")

    def accuracy(entry: Entry) -> float:
        value = entry.record.final_accuracy
        return -value if value is not None else float("inf")

    return sorted(entries, key=lambda e: (accuracy(e), loss(e), e.shared_at))


BOARD = Board()
