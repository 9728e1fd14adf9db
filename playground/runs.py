"""The one run driver: every run a workspace trains starts, steps, stops and ends here.

Start, "same run, one change", the Inside tab's Step ×k, a closed page, an expired session and
SIGTERM all go through a ``Run``; the page only formats what it yields. A run's life:

1. Before the web server's queue, ``reserve`` marks the workspace's run pending (a second
   Start is refused while the first waits) and ``check_run`` makes every check once
   (``Run.check``: no run going, the tokenizer fits the corpus, the host takes the run, the
   memory is there), so a refusal comes at once; ``start_run`` then takes that checked run
   (or makes one, checked when it starts: an API call, Step ×k).
2. ``Run.events()`` builds the run in a turn of the machine (``prepare.prepare_run``), picks
   where it trains (here, or in chunks on a ZeroGPU Space: ``runtime.zerogpu``), holds its
   memory estimate against the runs checked after it, takes turns with every other visitor's
   runs (``runtime.fairshare``), applies the host's time cap, and yields what happens:
   ``Notice`` (something to say once), ``Planned``, ``fairshare.Waiting``, ``Started`` (from the first
   record on the workspace holds the run's model), ``EvalProgress``, the trainer's records,
   then ``Finished`` (``Run.finish``: history and state kept in the model, a bundle written,
   the run in the Compare log) or ``NotStarted`` (stopped while it waited for its first turn).
3. ``RunState.request_stop`` (the workspace's) asks the run to stop after its current step;
   a released workspace (its page closed, its session expired) ends the run writing nothing,
   and ``finish_interrupted`` later keeps what such a run left for the visitor's return.

>>> from playground.workspace import Workspace
>>> from playground.config import PRESETS
>>> settings = Configs(PRESETS["tiny"].model, PRESETS["tiny"].train)
>>> run = start_run(Workspace(), settings)
>>> run.continue_, run.steps
(False, None)
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol

from playground import estimate, ready
from playground.checkpoint import save_bundle
from playground.config import PRESETS, ConfigError, ModelConfig, TrainConfig
from playground.i18n import Message, msg
from playground.insight import board
from playground.insight.runs import RunRecord
from playground.model import count_params, estimate_memory
from playground.prepare import PreparedRun, check_memory, prepare_run
from playground.runtime import fairshare, hosting, zerogpu
from playground.runtime.device import pick_device
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalProgress, EvalRecord, StepRecord, keep_record
from playground.trained import TrainedModel
from playground.workspace import Workspace, check_bundle_room, make_room

log = logging.getLogger("playground.runs")


class Settings(Protocol):
    """What a run is asked for: the two configs, given the tokenizer's vocabulary."""

    def configs(self, vocab_size: int) -> tuple[ModelConfig, TrainConfig]: ...


@dataclass(frozen=True)
class Configs:
    """``Settings`` from two typed configs (the CLI's, a test's, a preset's)."""

    model: ModelConfig
    train: TrainConfig

    def configs(self, vocab_size: int) -> tuple[ModelConfig, TrainConfig]:
        return dataclasses.replace(self.model, vocab_size=vocab_size), self.train


class Busy(ConfigError):
    """The workspace already has a run going, or one waiting for its turn."""


BUSY = msg("A training run is already going (or waiting for its turn). Press Stop first, or "
           "wait for it to finish.")


# --- what a run yields besides the trainer's records -------------------------------------------

@dataclass(frozen=True)
class Notice:
    """Something to tell the visitor once (the page shows a toast): ``warning`` for a long run."""

    message: Message
    title: Message
    warning: bool = False


@dataclass(frozen=True)
class Planned:
    """The run is built and about to wait for its first turn."""

    trained: TrainedModel
    timing: estimate.Estimate | None  # how long it should take here (None: unknown)


@dataclass(frozen=True)
class Started:
    """The first record came: from now on the workspace holds ``trained``."""

    trained: TrainedModel
    train_ids: object  # the run's training tokens (a tensor): the loss plot's reference levels
    new_model: bool  # a model built for this run (not one trained further)


@dataclass(frozen=True)
class NotStarted:
    """Stopped while it waited for its first turn: nothing changed."""


@dataclass(frozen=True)
class Finished:
    """The run ended and what it made is kept: ``end`` says how (None: the trainer gave no end),
    ``bundle`` the file written (None with ``bundle_error`` when the disk refused it: the model
    is still in the workspace), ``record`` its line in the Compare log (None for Step ×k)."""

    trained: TrainedModel
    end: EndRecord | None
    last_eval: EvalRecord | None
    last_step: StepRecord | None
    start_step: int
    step: int
    seconds: float
    bundle: str | None
    bundle_error: Exception | None
    record: RunRecord | None


def estimate_here(model_config: ModelConfig, train_config: TrainConfig, *,
                  done: int = 0) -> estimate.Estimate | None:
    """How long a run of these configs takes on this machine, ``done`` steps in; None where
    that cannot be known here (on ZeroGPU the GPU comes with each chunk, or the device is
    missing). The probe steps the run's own model, in a turn of the machine as any job."""
    if hosting.current().on_zero_gpu:
        return None
    try:
        with fairshare.MACHINE.turn():
            speed = estimate.run_speed(model_config, train_config)
    except ConfigError:  # a device this machine lacks: the settings line says so
        return None
    except Exception:  # a failed probe must not stop the page; the run refines its own
        log.exception("the speed probe failed")
        return None
    return estimate.estimate_run(model_config, train_config, speed, done=done)


def on_cpu(train_config: TrainConfig) -> bool:
    """Whether a run of ``train_config`` would train on this machine's CPU."""
    try:
        return pick_device(train_config.device).type == "cpu"
    except Exception:  # a device this machine lacks: the settings line says so
        return False


def require_model(workspace: Workspace, action: Message, *,
                  ready_made: bool = False) -> TrainedModel:
    """The workspace's trained model, or a ``ConfigError`` saying what to do first.

    ``ready_made`` says whether the workspace's ready-made model will do (``ready.use_ready``
    loads it on first need): it does to write with and look at, not to export or train further.
    """
    trained = ready.use_ready(workspace) if ready_made else workspace.trained
    if trained is None:
        raise ConfigError(msg("There is no model to {action} yet. Train one on the 'Model & "
                              "training' tab (or upload a bundle there) first.", action=action))
    if trained.ready_made and not ready_made:
        raise ConfigError(msg("The model here is the ready-made one that comes with the "
                              "playground, not one of yours. Train your own on the 'Model & "
                              "training' tab (press Start training, with 'Continue training the "
                              "current model' unticked), then {action} it.", action=action))
    return trained


def tokenizer_mismatch(name: str) -> ConfigError:
    return ConfigError(msg("The tokenizer was trained on a different text than the corpus now "
                           "chosen ({name}). Train the tokenizer again (tab 2) first.", name=name))


def save_model(trained: TrainedModel, workdir: Path) -> str:
    """Write ``trained`` into ``workdir``, then remove the bundle of an earlier run (so a save
    that fails, a full disk, leaves that one), and keep its path in ``trained.bundle_path``."""
    check_bundle_room(trained, workdir)  # the disk budgets (runtime.disk), before any writing
    path = workdir / f"playground-model-step{trained.step}.zip"
    save_bundle(path, trained.model, trained.tokenizer, trained.train_config, trained.history,
                trained.trainer_state)
    for old in workdir.glob("playground-model-step*.zip"):
        if old != path:
            old.unlink(missing_ok=True)
    trained.bundle_path = str(path)
    return str(path)


def log_run(workspace: Workspace, trained: TrainedModel) -> RunRecord | None:
    """Keep the run that just ended (done or stopped) in the workspace's Compare log, under
    ``next_run_name`` (or the log's next "run N"), with the text and tokenizer it read."""
    if not trained.history or trained.corpus is None:
        return None
    corpus, tokenizer = trained.corpus, trained.tokenizer
    record = RunRecord.create(workspace.next_run_name, trained.model_config,
                              trained.train_config, tokenizer.kind, trained.history,
                              corpus_name=corpus.name, corpus_source=corpus.source,
                              n_params=count_params(trained.model_config))
    workspace.runs.add(record)
    workspace.next_run_name = ""
    workspace.run_data = {name: data for name, data in workspace.run_data.items()
                          if name in workspace.runs.names()}
    workspace.run_data[record.name] = (corpus, tokenizer)
    return record


def share_with_class(workspace: Workspace, record: RunRecord) -> bool:
    """Put a finished run on the workspace's class board when its visitor chose to share
    (``insight.board``: the settings, curve, figures and one sample; nothing else). Whether it
    went."""
    if not (workspace.class_code and workspace.share_as):
        return False
    try:
        board.BOARD.share(workspace.class_code, workspace.id, workspace.share_as, record)
    except board.BoardError:  # (both were checked when the page set them)
        log.warning("a run could not go to its class board", exc_info=True)
        return False
    return True


class Run:
    """One run of a workspace (see the module's docstring). ``steps`` trains at most that many
    more steps (Step ×k: no estimate, no Compare log line); ``chunk_seconds`` forces ZeroGPU's
    chunked path (tests); ``device`` overrides where a run of local steps trains; ``preset``
    names the preset the settings are, when they are one (a GPU recipe on a CPU is said);
    ``network`` the client address the run comes from (``server.guard.address_of``): its turns
    are that network's, shared with its other runs (None, as locally: the workspace's own)."""

    def __init__(self, workspace: Workspace, settings: Settings, *, continue_: bool = False,
                 steps: int | None = None, chunk_seconds: float | None = None,
                 device: str | None = None, preset: str | None = None,
                 network: str | None = None):
        self.workspace, self.settings, self.preset = workspace, settings, preset
        self.network = network
        self.continue_, self.steps = continue_, steps
        self.chunk_seconds, self.device = chunk_seconds, device
        self.checked = False
        self.model_config: ModelConfig | None = None
        self.train_config: TrainConfig | None = None
        self.timing: estimate.Estimate | None = None
        self.trained: TrainedModel | None = None
        self.capped = False  # stopped by the host's time cap
        self._held_seen: int | None = None  # the memory others held when ``check`` measured
        self._notices: list[Notice] = []
        self._executor = None
        self._stop_asked = False

    def same_request(self, other: Run) -> bool:
        return (self.workspace is other.workspace and self.continue_ == other.continue_
                and self.steps == other.steps and self._configs()[:2] == other._configs()[:2])

    def _configs(self) -> tuple[ModelConfig, TrainConfig, int]:
        ws = self.workspace
        if self.continue_:
            trained = require_model(ws, msg("continue training"))
            _, train_config = self.settings.configs(trained.tokenizer.vocab_size)
            return trained.model_config, train_config, trained.step
        corpus, tokenizer = ws.corpus_or_default(), ws.tokenizer
        if tokenizer is not None and ws.tokenizer_corpus is not corpus:
            raise tokenizer_mismatch(corpus.name)
        vocab = tokenizer.vocab_size if tokenizer is not None else len(set(corpus.text))
        return *self.settings.configs(vocab), 0

    def check(self) -> None:
        """Refuse (``ConfigError``, ``Busy``) what cannot train, before the run waits for
        anything: each of these checks is made here once."""
        ws = self.workspace
        if ws.run.running:
            raise Busy(BUSY)
        model_config, train_config, done = self._configs()
        self.model_config, self.train_config = model_config, train_config
        self.timing = None if self.steps else estimate_here(model_config, train_config, done=done)
        hosting.check_allowed(train_config, self.timing.seconds if self.timing else None)
        if not hosting.current().on_zero_gpu:  # there the GPU exists only inside a chunk
            self._held_seen = fairshare.MACHINE.memory_held()
            self._make_room(model_config, train_config, self._held_seen)
            check_memory(model_config, train_config, self._device(train_config),
                         data_tokens=len(ws.corpus_or_default().text), held_bytes=self._held_seen)
        self.checked = True

    def _device(self, train_config: TrainConfig):
        return pick_device(self.device or train_config.device)

    def _make_room(self, model_config: ModelConfig, train_config: TrainConfig, held: int) -> None:
        """Idle visitors' models go to disk (``workspace.make_room``) where this run, beside
        what the runs under way may still take (``held``), would not fit with them."""
        need = estimate_memory(model_config, train_config,
                               data_tokens=len(self.workspace.corpus_or_default().text))
        make_room(need + held, keep=self.workspace, device=self._device(train_config))

    def stop(self) -> None:
        """Stop after the current step (or evaluation batch); before its first turn, end."""
        self._stop_asked = True
        if self._executor is not None:
            self._executor.stop()

    def _planned(self) -> Iterator[fairshare.Waiting]:
        """The run built (``_plan``) in a turn of the machine, ahead of the runs in line: when
        a class presses Start at once the runs are built one at a time, each seeing what the
        ones before hold. While it waits for the turn it says where it stands (``Waiting``);
        returns the ``PreparedRun``."""
        def build() -> Iterator[None]:
            return self._plan()
            yield  # (a generator: take_turns computes it within a turn)

        return (yield from fairshare.MACHINE.take_turns(
            build(), id(self.workspace), priority=True, report=True, network=self.network))

    def _plan(self) -> PreparedRun:
        """The run built (``prepare_run``), inside its turn (``_planned``). The memory is
        checked again only if other runs took some since ``check``."""
        ws = self.workspace
        corpus = ws.corpus_or_default()
        held = fairshare.MACHINE.memory_held()
        again = not hosting.current().on_zero_gpu and held != self._held_seen
        if self.continue_:
            trained = require_model(ws, msg("continue training"))
            self._make_room(trained.model_config, self.train_config, held)
            return prepare_run(corpus, trained.tokenizer, trained.model_config,
                               self.train_config, model=trained.model,
                               trainer_state=trained.trainer_state,
                               check_free_memory=again, held_bytes=held)
        tokenizer = ws.tokenizer
        if tokenizer is None:  # straight to Start: the default tokenizer, said once
            tokenizer = train_tokenizer("char", corpus.text)
            ws.tokenizer, ws.tokenizer_corpus = tokenizer, corpus
            self._notices.append(Notice(msg(
                "No tokenizer was trained yet, so this run reads the text character by "
                "character ({vocab} distinct characters). The Tokenizer tab (tab 2) can train "
                "a BPE tokenizer instead.", vocab=f"{tokenizer.vocab_size:,}"), msg("Note")))
        if ws.tokenizer_corpus is not corpus:
            raise tokenizer_mismatch(corpus.name)
        model_config, train_config = self.settings.configs(tokenizer.vocab_size)
        self._make_room(model_config, train_config, held)  # (others may have trained since)
        return prepare_run(corpus, tokenizer, model_config, train_config,
                           check_free_memory=again, held_bytes=held)

    def _long_run_notice(self) -> Notice | None:
        if self.timing is None:
            return None
        took = estimate.duration_message(self.timing.seconds)
        if self.preset in PRESETS and PRESETS[self.preset].gpu_recipe and on_cpu(self.train_config):
            return Notice(msg("{preset} is a GPU recipe: on this machine's CPU it would take "
                              "about {time}. Stop ends it at any time and keeps the model "
                              "trained so far.", preset=self.preset, time=took), msg("Long run"),
                          True)
        if self.timing.seconds > estimate.long_run_limit():
            return Notice(msg("This run may take about {time} on this machine. Stop ends it at "
                              "any time and keeps the model trained so far.", time=took),
                          msg("Long run"), True)
        return None

    def _executor_for(self, plan: PreparedRun):
        """Where the run trains: a ZeroGPU Space's chunks, else this process. A few steps go
        on the CPU there: a GPU exists only inside a chunk, and starting one costs more."""
        workdir = self.workspace.workdir()
        if self.steps is not None:
            device = "cpu" if hosting.current().on_zero_gpu else self.device
            return zerogpu.LocalRun(plan, workdir=workdir, device=device)
        return zerogpu.start_run(plan, workdir=workdir, chunk_seconds=self.chunk_seconds)

    def events(self) -> Iterator:
        """Train; yield ``Notice``, ``Planned``, ``Waiting``, ``Started``, ``EvalProgress``, records, then
        ``Finished`` or ``NotStarted`` (see the module's docstring). Closing this ends the run
        where it is; the model keeps the steps it made."""
        ws = self.workspace
        ws.run.pending = False
        if ws.run.running:
            raise Busy(msg("A training run is already going in this session; press Stop first."))
        if not self.checked:
            self.check()
        if ws.run.stop_requested:  # Stop pressed while the run waited in the server's queue
            self._stop_asked = True
        ws.run.running, ws.run.current = True, self
        memory, started, stepped = None, False, False
        began = time.monotonic()  # again once it trains: the host's cap counts from there
        try:
            plan = yield from self._planned()
            trained = self.trained = plan.trained
            self.model_config, self.train_config = trained.model_config, trained.train_config
            notice = self._long_run_notice()
            yield from self._notices + ([notice] if notice else [])
            yield Planned(trained, self.timing)
            if ws.run.released:  # released while the page showed that: nothing to make
                return
            executor = self._executor = self._executor_for(plan)
            if self._stop_asked:
                executor.stop()
            records = (executor.records(eval_progress=True) if self.steps is None else
                       executor.records(eval_progress=True, max_steps=self.steps))
            if isinstance(executor, zerogpu.LocalRun):  # a chunk waits in ZeroGPU's own queue
                # a turn at a time with every other visitor's run and job; ahead of the runs
                # under way until its first step (fairshare.take_turns)
                records = fairshare.MACHINE.take_turns(records, owner=id(ws), report=True,
                                                       priority=lambda: not stepped,
                                                       network=self.network)
            memory = fairshare.MACHINE.hold_memory(estimate_memory(
                trained.model_config, trained.train_config, data_tokens=len(trained.corpus.text)))
            cap, start_step, last_eval, last_step, end = (hosting.run_time_cap(), plan.start_step,
                                                          None, None, None)
            began = time.monotonic()
            for rec in records:
                if ws.run.released:  # the page closed or the session expired: keep nothing
                    return  # (closing the records ends the trainer's loop)
                if isinstance(rec, fairshare.Waiting):
                    if self._stop_asked:  # stopped while it waits for a turn: end now
                        records.close()
                        if started:  # between two steps: the trainer's own words
                            end = EndRecord(executor.step, "stopped", msg(
                                "Stopped at step {step} as asked.", step=f"{executor.step:,}"))
                            executor.history.append(end)
                        break
                    yield rec
                    continue
                if not started:
                    started = True
                    ws.trained = trained
                    yield Started(trained, plan.data.train_ids, not self.continue_)
                if cap is not None and not self.capped and time.monotonic() - began > cap:
                    self.capped = True  # this shared server's limit per run: stop as Stop would
                    executor.stop()
                if not isinstance(rec, (EvalProgress, zerogpu.OnCpu)):  # (no records)
                    keep_record(trained.history, rec)  # thinned as the trainer's own history
                    stepped = stepped or isinstance(rec, StepRecord)
                    last_step = rec if isinstance(rec, StepRecord) else last_step
                    last_eval = rec if isinstance(rec, EvalRecord) else last_eval
                    end = rec if isinstance(rec, EndRecord) else end
                yield rec
            if ws.run.released:
                return
            if not started:
                yield NotStarted()
                return
            yield self.finish(end, last_eval, last_step, start_step, time.monotonic() - began)
        finally:
            if memory is not None:
                fairshare.MACHINE.release_memory(memory)
            if started and not ws.run.released:
                self.trained.history = list(self._executor.history)
                self.trained.trainer_state = self._executor.state()
            ws.run.running = ws.run.stop_requested = False
            ws.run.current = None

    def finish(self, end: EndRecord | None, last_eval: EvalRecord | None,
               last_step: StepRecord | None, start_step: int, seconds: float) -> Finished:
        """Keep what the run made: its history and state in the model, a bundle in the
        workspace's folder (a full disk is said, the model stays), the run in the Compare log."""
        trained, executor = self.trained, self._executor
        if self.capped and end is not None and end.reason == "stopped":
            end = dataclasses.replace(end, message=msg(
                "Stopped at the time limit of this shared server ({limit} per run), at step "
                "{step}, so everyone gets a turn. The model is kept: download it below, or tick "
                "Continue training and press Start to train it further.",
                limit=estimate.duration_message(hosting.run_time_cap()), step=f"{end.step:,}"))
        trained.history, trained.trainer_state = list(executor.history), executor.state()
        bundle, error = None, None
        try:
            bundle = save_model(trained, self.workspace.workdir())
        except ValueError as problem:  # a disk budget or a full disk: the model is still here
            error = problem
        record = log_run(self.workspace, trained) if self.steps is None else None
        if record is not None:
            share_with_class(self.workspace, record)
        return Finished(trained, end, last_eval, last_step, start_step, executor.step, seconds,
                        bundle, error, record)


def start_run(workspace: Workspace, settings: Settings, *, continue_: bool = False,
              steps: int | None = None, chunk_seconds: float | None = None,
              device: str | None = None, preset: str | None = None,
              network: str | None = None) -> Run:
    """The workspace's run of ``settings``, coming from ``network``: the one ``check_run``
    checked for the same request, if any, else a new one (``Run.events`` checks it before it
    trains)."""
    run = Run(workspace, settings, continue_=continue_, steps=steps,
              chunk_seconds=chunk_seconds, device=device, preset=preset, network=network)
    checked, workspace.run.checked = workspace.run.checked, None
    if checked is not None and checked.same_request(run):
        checked.network = network
        return checked
    return run


def reserve(workspace: Workspace) -> None:
    """The first half of Start, before the server's queue: refuse a second run (``Busy``),
    else mark the workspace's run pending until its run begins (or ``release``)."""
    if workspace.run.running or workspace.run.pending:
        raise Busy(BUSY)
    workspace.run.pending, workspace.run.stop_requested = True, False


def check_run(workspace: Workspace, settings: Settings, *, continue_: bool = False,
              preset: str | None = None) -> Run:
    """Check a run before it waits for anything (``Run.check``); the queued ``start_run`` of
    the same request takes this one, so its checks are not made twice."""
    run = Run(workspace, settings, continue_=continue_, preset=preset)
    run.check()
    workspace.run.checked = run
    return run


def release(workspace: Workspace) -> None:
    """After a Start whose run never began: the reservation goes, Start works again at once."""
    if not workspace.run.running:
        workspace.run.pending, workspace.run.checked = False, None


def steps_trained(trained: TrainedModel) -> int:
    """The steps ``trained`` was trained: its trainer's, else its history's last."""
    if trained.trainer_state and "step" in trained.trainer_state:
        return int(trained.trainer_state["step"])
    return max((int(getattr(r, "step", 0)) for r in trained.history), default=0)


def finish_interrupted(workspace: Workspace) -> str | None:
    """The bundle of the workspace's model, saved if its run ended without one (a web server
    closes the run of a page that went away before it can save): the history gains a
    "stopped" end, the run joins the Compare log, the bundle is written. Returns its path
    (None when there is none: no model, a run still going, a save refused)."""
    trained = workspace.trained
    if trained is None or trained.ready_made or workspace.run.running or workspace.run.pending:
        return None
    # (a run trained here has its corpus; an uploaded or restored bundle is as it came)
    if trained.corpus is not None and trained.history \
            and not isinstance(trained.history[-1], EndRecord):
        step = steps_trained(trained)
        end = EndRecord(step, "stopped", msg(
            "Stopped at step {step}: the page was closed, and the model was kept for its "
            "return.", step=f"{step:,}"))
        trained.history = [*trained.history, end]
        if trained.trainer_state is not None:
            trained.trainer_state = {**trained.trainer_state, "history": list(trained.history)}
        try:
            save_model(trained, workspace.workdir())
        except Exception:  # a budget or a full disk: the model stays here for its return
            log.warning("the bundle of a run whose page closed was not saved", exc_info=True)
        log_run(workspace, trained)
    path = trained.bundle_path
    return path if path and Path(path).is_file() else None
