"""The compute thread: every job of an enabled process on one thread, computed as it would have
been in its caller (results, exceptions, generators, PyTorch's thread-local settings), and
runs driven from several threads leaving one OpenMP pool, not one per thread."""

import inspect
import os
import select
import signal
import threading

import pytest
import torch

from playground.config import SampleConfig, TrainConfig
from playground.generate import generate_text
from playground.runtime import compute
from playground.runtime.device import cpu_limit
from playground.runtime.execution import cpu_threads
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, StepRecord, Trainer

from checks import TINY_RUN, VOCAB, tiny_model, token_stream


@pytest.fixture(autouse=True)
def as_found():
    """Each test starts with the compute thread off (a test that served the app before may
    have left it on), and the process is left as it was found."""
    was = compute.enabled()
    compute.disable()
    yield
    compute.enable() if was else compute.disable()


@pytest.fixture()
def enabled():
    """The process as a server runs it: compute on the compute thread (its ident)."""
    compute.enable()
    return compute.run(threading.get_ident)


def in_a_thread(fn, *args):
    """``fn(*args)`` called in a new thread: what it returned (or raised, raised here)."""
    out = {}

    def call():
        try:
            out["value"] = fn(*args)
        except BaseException as error:  # raised again in the test's thread
            out["error"] = error

    worker = threading.Thread(target=call)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_not_enabled_every_job_runs_in_the_calling_thread():
    assert not compute.enabled()
    assert compute.run(threading.get_ident) == threading.get_ident()
    assert in_a_thread(compute.run, threading.get_ident) != threading.get_ident()


def test_enabled_every_caller_s_jobs_run_on_one_other_thread(enabled):
    here = compute.run(threading.get_ident)
    there = in_a_thread(compute.run, threading.get_ident)
    assert here == there == enabled == compute.thread().ident != threading.get_ident()
    assert compute.thread().daemon


def test_a_job_started_by_a_job_runs_inline_on_the_compute_thread(enabled):
    assert compute.run(compute.run, threading.get_ident) == enabled


def test_results_and_exceptions_come_back_and_the_thread_serves_on(enabled):
    assert compute.run(divmod, 7, 2) == (3, 1) and compute.run(int, "11", base=2) == 3
    with pytest.raises(ZeroDivisionError):
        compute.run(divmod, 1, 0)
    with pytest.raises(KeyboardInterrupt):  # not an Exception: still the caller's to see
        compute.run(_interrupt)
    assert compute.run(threading.get_ident) == enabled


def _interrupt():
    raise KeyboardInterrupt


def test_a_generators_items_return_value_and_close_travel(enabled):
    seen = []

    def items():
        try:
            seen.append(threading.get_ident())
            yield 1
            seen.append(threading.get_ident())
            yield 2
            return "done"
        finally:
            seen.append(("finally", threading.get_ident()))

    def outer():
        return (yield from compute.iterate(items()))

    got, run = [], outer()
    while True:
        try:
            got.append(next(run))
        except StopIteration as end:
            assert end.value == "done"
            break
    assert got == [1, 2] and seen == [enabled, enabled, ("finally", enabled)]

    seen.clear()
    run = compute.iterate(items())
    assert next(run) == 1
    run.close()  # the visitor left: the generator's finally runs, on the compute thread
    assert seen == [enabled, ("finally", enabled)]


def test_an_exception_inside_a_generator_reaches_the_caller(enabled):
    def failing():
        yield 1
        raise ValueError("bad batch")

    run = compute.iterate(failing())
    assert next(run) == 1
    with pytest.raises(ValueError, match="bad batch"):
        next(run)


def test_routed_functions_keep_their_kind_and_compute_on_the_compute_thread(enabled):
    def tokens(n: int):
        for i in range(n):
            yield i, threading.get_ident()

    routed = compute.routed(tokens)
    assert inspect.isgeneratorfunction(routed) and routed.__name__ == "tokens"
    assert list(routed(2)) == [(0, enabled), (1, enabled)]
    assert compute.routed(threading.get_ident)() == enabled


def test_a_job_computes_under_its_callers_grad_mode_inference_mode_autocast_and_threads(enabled):
    def state():
        return (torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
                torch.is_autocast_enabled("cpu"), torch.get_num_threads())

    own_threads = compute.run(torch.get_num_threads)
    assert compute.run(state) == (True, False, False, torch.get_num_threads())
    with torch.no_grad():
        assert compute.run(state)[0] is False
    with torch.inference_mode():
        assert compute.run(state)[:2] == (False, True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert compute.run(state)[2] is True
        assert compute.run(torch.get_autocast_dtype, "cpu") == torch.bfloat16
    with cpu_threads(1):
        assert compute.run(state)[3] == 1
    # and the compute thread's own settings come back after each job
    assert compute.run(state) == (True, False, False, own_threads)

    # a generator's items too: each step of a generator started under no_grad
    def grads():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    with torch.no_grad():
        assert list(compute.iterate(grads())) == [False, False]


def run_config(**changes):
    return TrainConfig(**{**TINY_RUN, "max_steps": 4, "batch_size": 32, "warmup_steps": 1,
                          "eval_interval": 2, "eval_iters": 1, "threads": 2, **changes})


def train_and_generate(done: threading.Event, leave: threading.Event) -> str:
    """A page's visitor: a run (steps and evaluations), then a sample from its model; this
    thread stays alive until ``leave`` (a thread's OpenMP pool ends with the thread)."""
    ids = token_stream(2000)
    # wide enough (32 x 16 x 256 activations) that PyTorch shares its kernels out to threads
    trainer = Trainer(tiny_model(0, n_embd=64), ids[:1500], ids[1500:], run_config())
    records = list(trainer.run())
    assert isinstance(records[-1], EndRecord) and records[-1].reason == "done"
    tokenizer = train_tokenizer("char", "".join(chr(97 + i) for i in range(VOCAB)))
    text = generate_text(trainer.model, tokenizer, "ab", SampleConfig(max_new_tokens=8, seed=1))
    done.set()
    assert leave.wait(timeout=120)
    return text


def threads_started_by_two_visitors() -> set[int]:
    """The process's threads that appear while two threads each train and sample, besides
    those two themselves."""
    before = set(os.listdir("/proc/self/task"))
    visitors, leave = [], threading.Event()
    for _ in range(2):
        done = threading.Event()
        worker = threading.Thread(target=train_and_generate, args=(done, leave))
        worker.start()
        visitors.append((worker, done))
    try:
        for _, done in visitors:
            assert done.wait(timeout=120)
        during = set(os.listdir("/proc/self/task"))
        return {int(tid) for tid in during - before} - {w.native_id for w, _ in visitors}
    finally:
        leave.set()
        for worker, _ in visitors:
            worker.join(timeout=120)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or cpu_limit() < 2,
                    reason="needs Linux's /proc and two CPUs (one thread starts no pool)")
def test_two_visitors_runs_and_samples_leave_one_openmp_pool_the_compute_threads():
    # without the compute thread, each visitor's thread starts a pool of its own: the control
    # shows this test can see one
    assert threads_started_by_two_visitors(), "no OpenMP pool seen: the test would prove nothing"

    compute.enable()
    # the compute thread and its pool, at the size the runs use
    with cpu_threads(2):
        compute.run(lambda: torch.ones(2**20).mul_(2))
    assert threads_started_by_two_visitors() == set()


def test_stop_from_another_thread_ends_a_run_computing_on_the_compute_thread(enabled):
    ids = token_stream()
    trainer = Trainer(tiny_model(), ids[:500], ids[500:],
                      run_config(batch_size=4, max_steps=100_000, eval_interval=100_000, threads=0))
    stepping = threading.Event()
    last = []

    def visitor():
        for record in trainer.run():
            if isinstance(record, StepRecord):
                stepping.set()
            last[:] = [record]

    worker = threading.Thread(target=visitor)
    worker.start()
    assert stepping.wait(timeout=60)
    trainer.stop()  # the Stop button: another of the server's threads
    worker.join(timeout=60)
    assert not worker.is_alive()
    assert last[0].reason == "stopped" and 0 < trainer.step < 100_000


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_computes_inline(enabled):
    """A ZeroGPU chunk runs in a child forked from the server: no compute thread came with it,
    so a job there must not wait for one."""
    read, write = os.pipe()
    answered = []
    child = os.fork()
    if child == 0:  # the child: report where a job ran, then leave at once
        try:
            ran_here = compute.run(threading.get_ident) == threading.get_ident()
            os.write(write, b"inline" if ran_here and not compute.enabled() else b"elsewhere")
        finally:
            os._exit(0)
    os.close(write)
    try:
        answered, _, _ = select.select([read], [], [], 60)  # a child waiting for no one: never
        assert answered and os.read(read, 16) == b"inline"
    finally:
        if not answered:
            os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
