"""Faults, resumes and ended sessions, through the page's handlers and the launched app.

What tests/test_train.py and tests/test_checkpoint.py already prove about the trainer and
the bundle file is not repeated here; these tests go through what a visitor uses: the
Start/Stop handlers, the Download button's bundle, the upload box, a closed tab.
"""

import dataclasses
import json
import time
import uuid

import httpx
import pytest
import torch
from gradio_client import Client

from playground import describe
from playground.checkpoint import load_bundle
from playground.insight.coach import coach_notes
from playground.config import ModelConfig, TrainConfig
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, StepRecord, Trainer, prepare_data
from playground import prepare
from playground.ui import corpus_tab, tokenizer_tab, train_tab
from playground.ui.app import build_demo, launch
from playground.ui.session import Session, app_temp_dir

from checks import page_settings, sessions_of, wait_for

# the shared TINY run, longer, with dropout (so resuming must restore its random stream too)
RUN = dict(max_steps=12, eval_interval=4, seed=11, dropout=0.1,
           lr_decay_steps=12)  # the same schedule however many steps a run is given
# a long run: it is always still going when a test closes its tab
ENDLESS = dict(max_steps=1_000_000, eval_interval=100_000)


def settings(**changes):
    """Widget values in SETTINGS order: the tiny preset with TINY, RUN and ``changes`` applied."""
    return page_settings(RUN, **changes)


def ready_session(text: str) -> Session:
    session, _, _ = corpus_tab.use_corpus(None, "Paste text", None, text)
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    return session


def weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name


def downloaded(button) -> str:
    """The file a DownloadButton update hands to the page."""
    assert button.visible is True
    return button.value["path"] if isinstance(button.value, dict) else button.value


def finish(run):
    """Drain a train_model stream: (session, status, download button) of its last update.
    (Updates are (session, plot, status, samples, download, ...more panels).)"""
    final = list(run)[-1]
    return final[0], final[2], final[4]


def without_timing(records):
    return [(type(r), {k: v for k, v in dataclasses.asdict(r).items() if k not in ("elapsed", "tokens_per_s")})
            for r in records if not isinstance(r, EndRecord)]


# ---------------------------------------------------------------------------------------------
# Resume: stopped on the page, downloaded, uploaded into a new session, continued


def test_stop_download_upload_continue_equals_one_straight_run(monkeypatch, tiny_text):
    total = 12
    straight = ready_session(tiny_text)
    _, status, _ = finish(train_tab.train_model(straight, False, *settings(max_steps=total)))
    assert "Finished all 12 steps" in status

    first = ready_session(tiny_text)
    status_line = describe.status_line

    def press_stop_at_step_5(rec, *args):
        if rec.step == 5:  # Stop, pressed while step 5 shows: it reaches the trainer at once
            train_tab.stop_training(first)
        return status_line(rec, *args)

    monkeypatch.setattr(describe, "status_line", press_stop_at_step_5)
    session, status, download = finish(train_tab.train_model(
        first, False, *settings(max_steps=total)))
    monkeypatch.undo()
    assert status.startswith("**Stopped.** Stopped at step 5")
    assert session.trained.trainer_state["step"] == 5 and download.visible is True

    # a new visitor (a new session) uploads the downloaded bundle and continues
    resumed = ready_session(tiny_text)
    out = train_tab.upload_bundle(resumed, downloaded(download))
    assert out[1] is True  # "Continue training" ticked for them
    _, status, _ = finish(train_tab.train_model(resumed, True, *settings(max_steps=total)))
    assert "Finished all 12 steps" in status

    assert_same_weights(weights(resumed.trained.model), weights(straight.trained.model))
    assert without_timing(resumed.trained.history) == without_timing(straight.trained.history)


# ---------------------------------------------------------------------------------------------
# Faults during a page run: each ends or recovers with a message, and the download holds
# the last good weights


def fault_at_step(monkeypatch, k, fault):
    """Make the k-th training forward of the next model the page builds call ``fault(model)``.

    ``fault`` may raise (out of memory) or return a replacement loss (NaN).
    """
    build = prepare.new_model

    def new_model(model_cfg, seed):
        model = build(model_cfg, seed)
        forward, calls = model.forward, {"n": 0}

        def patched(*args, **kwargs):
            out = forward(*args, **kwargs)
            if model.training:
                calls["n"] += 1
                if calls["n"] == k:
                    return out._replace(loss=fault(model, out.loss))
            return out

        model.forward = patched
        return model

    monkeypatch.setattr(prepare, "new_model", new_model)


def clean_weights_after(tiny_text, steps):
    session = ready_session(tiny_text)
    list(train_tab.train_model(session, False, *settings(max_steps=steps)))
    return weights(session.trained.model)


def raise_oom(model, loss):
    raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")


@pytest.mark.parametrize("fault, reason_text", [
    (lambda model, loss: loss * float("nan"), "The loss became nan at step 7"),
    (lambda model, loss: loss + float("inf"), "The loss became inf at step 7"),
    (raise_oom, "Ran out of memory at step 7"),
], ids=["nan", "inf", "oom"])
def test_a_fault_ends_the_run_with_a_message_and_the_last_good_weights_download(
        monkeypatch, tiny_text, fault, reason_text):
    good = clean_weights_after(tiny_text, 6)
    fault_at_step(monkeypatch, 7, fault)
    session = ready_session(tiny_text)
    session, status, download = finish(train_tab.train_model(session, False, *settings()))
    assert status.startswith("**Problem:**") and reason_text in status
    assert session.run.running is False and session.trained.trainer_state["step"] == 6

    bundle = load_bundle(downloaded(download))  # what the Download button hands out
    assert bundle.trainer_state["step"] == 6
    assert all(torch.isfinite(t).all() for t in bundle.model.state_dict().values())
    assert_same_weights(weights(bundle.model), good)
    assert isinstance(bundle.history[-1], EndRecord) and bundle.history[-1].step == 6


def test_a_loss_spike_is_survived_and_named_by_the_coach():
    """A step that wrecks the weights (as a bad batch or a too-high learning rate does) sends
    the loss up; the run goes on, clipped gradients bring the loss back down, and the coach
    names the spike."""
    text = "abcdefgh " * 400
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, 0.1, block_size=16)
    torch.manual_seed(3)
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=16, n_layer=1, n_head=2, n_embd=16))
    cfg = TrainConfig(max_steps=120, batch_size=8, lr=1e-2, min_lr=1e-3, warmup_steps=5,
                      eval_interval=1000, eval_iters=1, device="cpu", dtype="float32")
    trainer = Trainer(model, train_ids, val_ids, cfg)
    spike_step = 80
    records = []
    for record in trainer.run():
        records.append(record)
        if isinstance(record, StepRecord) and record.step == spike_step - 1:
            with torch.no_grad():  # the damage a bad update does, done by hand
                model.lm_head.weight.mul_(8.0)
    losses = {r.step: r.loss for r in records if isinstance(r, StepRecord)}
    before = sorted(losses[s] for s in range(spike_step - 20, spike_step))[10]
    assert losses[spike_step] > 3 * before  # the spike
    assert records[-1] == EndRecord(120, "done", "Finished all 120 steps.")
    assert losses[120] < 2 * before < losses[spike_step] / 100  # recovered
    assert all(torch.isfinite(p).all() for p in model.parameters())

    notes = coach_notes(trainer.history, vocab_size=tok.vocab_size, n_params=model.num_params(),
                        train_tokens=len(train_ids), config=cfg)
    spikes = [n for n in notes if n.kind == "spike"]
    # the coach names the latest step of the spike, while the loss was still far up
    assert len(spikes) == 1 and spike_step <= int(spikes[0].values["step"]) < spike_step + 10


# ---------------------------------------------------------------------------------------------
# The launched app: closed tabs and expired sessions free their training


@pytest.fixture
def app(monkeypatch):
    """A launched app whose closed tabs are noticed within a second (the default is 15 s)."""
    monkeypatch.setenv("GRADIO_HEARTBEAT_INTERVAL", "1")
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    yield demo, url
    demo.close()


class Tab:
    """What a browser tab does over HTTP: a heartbeat connection, and queue jobs whose
    updates stream over one event stream. ``close()`` drops both, as closing the tab does."""

    def __init__(self, demo, url):
        self.url, self.hash = url, uuid.uuid4().hex[:11]
        self.fns = {fn.api_name: (i, fn) for i, fn in demo.fns.items() if fn.api_name}
        self._http = httpx.Client(timeout=None)
        self._heartbeat = self._http.stream("GET", f"{url}gradio_api/heartbeat/{self.hash}")
        self._heartbeat.__enter__()
        self._stream = None

    def submit(self, api_name, *args):
        """Join the queue; the values of State inputs are the server's, so they go as null."""
        index, fn = self.fns[api_name]
        values = iter(args)
        data = [None if type(block).__name__ == "State" else next(values) for block in fn.inputs]
        self._http.post(f"{self.url}gradio_api/queue/join", json={
            "data": data, "fn_index": index, "session_hash": self.hash,
            "event_data": None, "trigger_id": None}).raise_for_status()
        self._stream = self._http.stream("GET", f"{self.url}gradio_api/queue/data",
                                         params={"session_hash": self.hash})
        return self._messages(self._stream.__enter__())

    @staticmethod
    def _messages(response):
        for line in response.iter_lines():
            if line.startswith("data:"):
                yield json.loads(line[5:])

    def call(self, api_name, *args):
        """Submit and read to the end; the last message with output."""
        for message in self.submit(api_name, *args):
            if message["msg"] == "process_completed":
                assert message["success"], message
                last = message
            if message["msg"] == "close_stream":
                break
        self._stream.__exit__(None, None, None)
        return last["output"]["data"]

    def close(self):
        if self._stream is not None:
            self._stream.__exit__(None, None, None)
        self._heartbeat.__exit__(None, None, None)
        self._http.close()


def test_closing_the_tab_mid_training_stops_the_run_and_frees_the_session(app, tiny_text):
    demo, url = app
    tab = Tab(demo, url)
    tab.call("use_corpus", "Paste text", None, tiny_text)
    tab.call("train_tokenizer", "char", 512)
    updates = 0
    for message in tab.submit("train_model", False, *settings(**ENDLESS)):
        updates += message["msg"] == "process_generating"
        if updates == 3:
            break
    (session,) = sessions_of(demo, tab.hash)
    assert session.run.running and session.trained is not None
    folder = app_temp_dir() / session.id
    assert folder.is_dir()

    tab.close()
    wait_for(lambda: not session.run.running, "the run to end after the tab closed")
    wait_for(lambda: session.run.released, "the closed tab's session to be freed")
    assert sessions_of(demo, tab.hash) == []  # the server holds nothing of it any more
    assert session.trained is None  # the model, its state and its bundle's path
    assert not folder.exists()  # no bundle written for a tab no one holds


def test_cancelling_a_training_job_through_gradio_client_stops_it(app, tiny_text):
    demo, url = app
    client = Client(url, verbose=False, analytics_enabled=False)
    try:
        client.predict("Paste text", None, tiny_text, api_name="/use_corpus")
        client.predict("char", 512, api_name="/train_tokenizer")
        job = client.submit(False, *settings(**ENDLESS), api_name="/train_model")
        wait_for(lambda: any(s.run.running for s in sessions_of(demo, client.session_hash)),
                 "the run to start")
        (session,) = sessions_of(demo, client.session_hash)
        job.cancel()
        wait_for(lambda: not session.run.running, "the cancelled run to end")
        frozen = weights(session.trained.model)
        time.sleep(0.5)  # a run still going would change the weights in this time
        assert_same_weights(weights(session.trained.model), frozen)
    finally:
        client.close()


def test_a_session_past_its_time_to_live_is_freed(tiny_text):
    demo = build_demo(session_ttl_s=1.0)
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    client = Client(url, verbose=False, analytics_enabled=False)
    try:
        client.predict("Paste text", None, tiny_text, api_name="/use_corpus")
        (session,) = sessions_of(demo, client.session_hash)
        folder = session.workdir()  # as a run's bundle would make it
        assert session.corpus.text == tiny_text and folder.is_dir()
        wait_for(lambda: session.run.released, "the session's time-to-live to pass")
        # released first, then its files deleted and its entry dropped: wait for all of it
        # (the fresh-clone CI once looked between the two)
        wait_for(lambda: sessions_of(demo, client.session_hash) == [] and not folder.exists(),
                 "the session's files and entry to go")
    finally:
        client.close()
        demo.close()


def test_release_during_a_run_ends_it_without_writing_anything(tiny_text):
    """The delete callback may fire while a run goes (time-to-live, closed tab): the run
    ends after its current step and leaves no bundle behind."""
    session = ready_session(tiny_text)
    run = train_tab.train_model(session, False, *settings(**ENDLESS))
    next(run)
    session.release()
    assert list(run) == []  # no more updates, and no error
    assert session.run.running is False and session.trained is None
    assert not (app_temp_dir() / session.id).exists()
