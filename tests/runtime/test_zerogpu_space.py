"""The ZeroGPU path through a stand-in for the ``spaces`` package (``fake_spaces/spaces.py``)
that enforces a daily quota and pickles every argument and every yielded item, as ZeroGPU's
forked GPU process does: chunks ask for the time they need, a run whose quota is spent goes
on on the CPU and ends as a straight run would, and compile is refused. (The same path through
the real ``spaces`` package: ``test_zerogpu_spaces.py``.)"""

import importlib.util
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import gradio as gr
import pytest
import torch

from playground.config import ConfigError, TrainConfig
from playground.train import StepRecord
from playground.runtime import hosting, zerogpu
from playground.runtime.hosting import Hosting
from playground.ui import train_tab

from checks import REPO, TINY, assert_translated, page_settings

FAKE = Path(__file__).with_name("fake_spaces")
SPEC = importlib.util.spec_from_file_location("fake_spaces", FAKE / "spaces.py")
fake_spaces = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(fake_spaces)

# With a chunk budget of 0 s, every chunk trains one step (the first also the first evaluation,
# and a chunk the evaluation due after its step). The first asks for the budget and the margin
# of a run whose speed is not known yet; the later ones from the speed measured.
FIRST_ASK = math.ceil(0.0 + zerogpu.FIRST_CHUNK_MARGIN)


def on_zero_gpu(monkeypatch, seconds: float) -> fake_spaces.Quota:
    """This process as a ZeroGPU Space whose visitor has ``seconds`` of quota left; chunks of
    no budget at all (one step, or a step and its evaluation, each)."""
    quota = fake_spaces.Quota(seconds)
    hosting.use(Hosting(on_zero_gpu=True, chunk_s=0.0))  # SPACES_ZERO_GPU, PLAYGROUND_CHUNK_SECONDS=0
    # what importing zerogpu does with the spaces package installed (checked in a subprocess
    # below): train_chunk decorated with its own duration
    monkeypatch.setattr(zerogpu, "train_chunk",
                        fake_spaces.GPU(zerogpu.train_chunk, duration=zerogpu.chunk_duration,
                                        quota=quota))
    return quota


def train(session, continue_training=False, **changes):
    return list(train_tab.train_model(session, continue_training, *page_settings(**changes)))


def weights(model) -> dict:
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_with_the_spaces_package_train_chunk_asks_for_its_own_duration():
    """Imported on a ZeroGPU Space (``spaces`` installed, ``SPACES_ZERO_GPU`` set), the module
    runs chunked and decorates ``train_chunk`` with ``chunk_duration``."""
    env = {**os.environ, "SPACES_ZERO_GPU": "true",
           "PYTHONPATH": os.pathsep.join([str(FAKE), str(REPO)])}
    code = ("from playground.runtime import hosting, zerogpu as z; "
            "print(hosting.current().on_zero_gpu, z.train_chunk.zerogpu_duration is z.chunk_duration)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, cwd=REPO)
    assert out.stdout.split() == ["True", "True"], out.stderr


def test_a_run_through_zerogpu_chunks_equals_a_straight_run(monkeypatch, ready):
    straight = train(ready)[-1][0].trained
    expected = weights(straight.model)
    quota = on_zero_gpu(monkeypatch, seconds=10_000)
    chunked = train(ready)[-1][0].trained
    for name, tensor in weights(chunked.model).items():
        assert torch.equal(tensor, expected[name]), name
    steps = [r.step for r in chunked.history if isinstance(r, StepRecord)]
    assert steps == [r.step for r in straight.history if isinstance(r, StepRecord)]
    # one call per chunk (per step here): the first before the run's speed is known
    assert quota.asked[0] == FIRST_ASK and len(quota.asked) == TINY["max_steps"]
    assert all(zerogpu.START_SECONDS <= asked < FIRST_ASK for asked in quota.asked[1:])


def test_a_spent_quota_hands_the_run_to_the_cpu_and_it_ends_as_a_straight_run(
        monkeypatch, ready):
    straight = weights(train(ready)[-1][0].trained.model)
    # the first chunk (FIRST_ASK) and one more (about START_SECONDS) fit, a third does not,
    # and what is left then is too little for any chunk
    quota = on_zero_gpu(monkeypatch, seconds=FIRST_ASK + 2 * zerogpu.START_SECONDS - 1)
    updates = train(ready)
    session, _, status, _, download, _ = updates[-1]
    assert "**Done.**" in status and download.visible is True
    switch = [u[2] for u in updates if "training goes on on the CPU" in u[2]]
    assert all(line.count("training goes on on the CPU") == 1 for line in switch)
    assert switch[0].endswith("Your GPU time for today is used up; training goes on on the CPU.")
    # once a step on the CPU is timed, every line says about how long is left
    assert re.search(r"training goes on on the CPU, about \d+ min left\.$", switch[-1])
    trained = session.trained
    for name, tensor in weights(trained.model).items():
        assert torch.equal(tensor, straight[name]), name
    assert [r.step for r in trained.history if isinstance(r, StepRecord)] == \
        list(range(1, TINY["max_steps"] + 1))
    assert trained.trainer_state["step"] == TINY["max_steps"] and trained.history[-1].reason == "done"
    assert len(quota.asked) == 3  # the third was refused before any work, and not retried


def test_stop_reaches_the_run_once_it_is_on_the_cpu(monkeypatch, ready):
    on_zero_gpu(monkeypatch, seconds=FIRST_ASK - 1)  # not even the first chunk fits
    run = train_tab.train_model(ready, False, *page_settings(TINY))
    for update in run:
        if "training goes on on the CPU" in update[2]:
            ready.run.request_stop()  # what the Stop button calls
    assert ready.trained.history[-1].reason == "stopped"
    assert ready.trained.trainer_state["step"] < TINY["max_steps"]


def test_a_refusal_that_leaves_room_tries_once_more_with_a_chunk_that_fits(monkeypatch, ready):
    calls, real = [], zerogpu.train_chunk

    def refuse_first(*args):
        calls.append(args[-1])  # the chunk's budget in seconds
        if len(calls) == 1:
            raise gr.Error("You have exceeded your free ZeroGPU quota (65s requested vs. 40s "
                           "left). Try again in 23:59:00.", title="ZeroGPU quota exceeded")
        yield from real(*args)

    monkeypatch.setattr(zerogpu, "train_chunk", refuse_first)
    hosting.use(Hosting(on_zero_gpu=True, chunk_s=45.0))
    end = train(ready)[-1][0].trained.history[-1]
    assert end.reason == "done"
    # 40 s left of the 65 asked: a chunk of 40 s in all, less the first chunk's margin and a
    # second for rounding up
    assert calls == [45.0, 40 - zerogpu.FIRST_CHUNK_MARGIN - 1.0]


def test_a_gpu_call_that_fails_ends_the_run_stopped_with_the_last_chunks_weights(
        monkeypatch, ready):
    quota = on_zero_gpu(monkeypatch, seconds=10_000)
    real = zerogpu.train_chunk

    def lost_on_the_third(*args):
        if len(quota.asked) == 2:  # the third chunk, after steps 1 and 2
            raise gr.Error("GPU task aborted", title="ZeroGPU worker error")
        yield from real(*args)

    monkeypatch.setattr(zerogpu, "train_chunk", lost_on_the_third)
    session, _, status, _, download, _ = train(ready)[-1]
    assert "The GPU call failed (GPU task aborted). The run stopped at step 2" in status
    assert download.visible is True and session.trained.trainer_state["step"] == 2


def test_compile_is_refused_on_zerogpu_with_a_message(monkeypatch, ready):
    quota = on_zero_gpu(monkeypatch, seconds=10_000)
    with pytest.raises(gr.Error) as refused:
        train(ready, compile=True)
    assert "compile (torch.compile) does not work on ZeroGPU" in refused.value.message
    assert quota.asked == [] and ready.trained is None


def test_the_compile_refusal_and_the_stopped_ends_read_in_chinese_too(tmp_path):
    from playground.corpus import from_text
    from playground.i18n import localize
    from playground.prepare import prepare_run
    from playground.tokenizer import train_tokenizer

    corpus = from_text("abcdefgh" * 40)
    tok = train_tokenizer("char", corpus.text)
    from playground.config import ModelConfig

    plan = prepare_run(corpus, tok, ModelConfig(block_size=8, n_layer=1, n_head=2, n_embd=8),
                       TrainConfig(max_steps=2, batch_size=2, compile=True, device="cpu"),
                       check_free_memory=False)
    with pytest.raises(ConfigError) as refused:
        zerogpu.ChunkedRun(plan, workdir=tmp_path)
    assert_translated(refused.value, "compile (torch.compile) does not work on ZeroGPU, where "
                      "each stretch of training runs in a new GPU process: untick compile and "
                      "press Start again.", ("compile",))
    plan = prepare_run(corpus, tok, plan.trained.model_config, TrainConfig(max_steps=2, batch_size=2,
                       device="cpu"), check_free_memory=False)
    run = zerogpu.ChunkedRun(plan, workdir=tmp_path)
    error = RuntimeError("the GPU went away")
    message = run._lost(error).message
    chinese = localize(message, "zh-CN")
    assert chinese != str(message) and "第 0 步" in chinese and error.args[0][:6] in chinese
    for line in (zerogpu.OnCpu(3).message(), zerogpu.OnCpu(3, 150.0).message()):
        chinese = localize(line, "zh-CN")
        assert chinese != str(line) and "CPU" in chinese
    assert "3 分钟" in localize(zerogpu.OnCpu(3, 150.0).message(), "zh-CN")


# --- how much time a chunk asks for ---------------------------------------------------------

def state(step, elapsed, train_time, evals=1):
    from playground.train import EvalRecord

    return {"step": step, "elapsed": elapsed, "train_time": train_time,
            "history": [EvalRecord(0, 0, 1.0, 1.0, 1.0, 1.0, 0.0)] * evals}


CONFIG = TrainConfig(max_steps=10_000, eval_interval=100).to_dict()


def ask(trainer_state, seconds=45.0):
    return zerogpu.chunk_duration({}, {}, None, CONFIG, trainer_state, None, "", seconds)


def test_a_chunk_asks_for_its_budget_and_what_it_may_run_past_it():
    # 0.02 s a step, 0.5 s an evaluation: far from the end, the whole budget
    mid = state(200, elapsed=200 * 0.02 + 3 * 0.5, train_time=200 * 0.02, evals=3)
    assert ask(mid) == math.ceil(45 + zerogpu.START_SECONDS + 2 * 0.02 + 0.5)
    assert ask(None) == math.ceil(45 + zerogpu.FIRST_CHUNK_MARGIN)  # nothing known yet


def test_the_last_chunk_asks_only_for_what_the_run_has_left():
    near_end = state(9990, elapsed=9990 * 0.02 + 100 * 0.5, train_time=9990 * 0.02, evals=100)
    left = 10 * 0.02 + 1 * 0.5  # ten steps and the evaluation at step 10,000
    assert ask(near_end) == math.ceil(left + zerogpu.START_SECONDS + 2 * 0.02 + 0.5)
    assert ask(near_end) < ask(state(500, 15.0, 10.0, 6))


def test_only_zerogpus_quota_refusals_count_as_such():
    assert zerogpu.is_quota_refusal(gr.Error("x", title="ZeroGPU quota exceeded"))
    assert zerogpu.is_quota_refusal(gr.Error("x", title="ZeroGPU illegal duration"))
    assert not zerogpu.is_quota_refusal(gr.Error("x", title="ZeroGPU worker error"))
    assert not zerogpu.is_quota_refusal(RuntimeError("quota"))


# --- what a run costs of the quota, said before Start ---------------------------------------

def quota_seconds(line: str) -> int:
    return int(re.match(r"\*\*About (\d+) s of your daily ZeroGPU time\*\*", line).group(1))


def test_before_start_on_zerogpu_the_page_says_what_the_run_costs_of_the_quota(ready):
    assert "ZeroGPU" not in train_tab.describe_settings(ready, *page_settings(TINY))  # locally
    hosting.use(Hosting(on_zero_gpu=True))
    line = train_tab.describe_settings(ready, *page_settings(TINY))
    assert ("Visitors who are not signed in to Hugging Face get 2 min a day, signed-in ones 5 "
            "min: sign in for more. When it runs out, training goes on on the CPU") in line
    assert quota_seconds(line) < quota_seconds(
        train_tab.describe_settings(ready, *page_settings(TINY, max_steps=600)))
    ready.lang = "zh-CN"
    chinese = train_tab.describe_settings(ready, *page_settings(TINY))
    assert "每天 ZeroGPU 时间" in chinese and "2 分钟" in chinese and "5 分钟" in chinese
