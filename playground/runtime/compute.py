"""One thread for all of a server's PyTorch compute, so at most one thread owns an OpenMP pool.

PyTorch's CPU kernels share work out to a pool of OpenMP threads, one pool per thread that
starts a parallel region. GNU OpenMP (libgomp, PyTorch's on Linux) lets a pool's idle workers
spin for the next region only while the process holds no more OpenMP threads than CPUs; as
soon as a second thread has its own pool, every region wakes its workers through the kernel
instead (measured on 2 cores: an in-place multiply of 100k floats 5.6 us alone, 30-46 us
once two threads had computed). A Gradio server runs each handler in one of its worker
threads, so the page's runs trained about 1.6x slower than the CLI's at the same two threads.
(With the cores oversubscribed by other processes, spinning costs more than it saves; the
CLI's main thread pays that too: docs/PERFORMANCE.md.)

So a server calls ``enable()`` once, and from then on every entry point of the core that
computes (``routed`` functions, ``Trainer.run`` and ``evaluate`` through
``execution.with_threads``) hands its work to one daemon thread and waits for it: one pool,
whichever handler thread asks. Each job computes with its caller's thread-local PyTorch
settings (grad mode, inference mode, autocast, the CPU thread count), so it runs as it would
have in the caller. Not enabled (the CLI, notebooks, the tests), everything runs inline in the
calling thread; on the compute thread itself, a nested call runs inline too. A job must never
wait for something its caller holds (a ``fairshare`` turn, a lock): the caller waits for it.

>>> run(divmod, 7, 2)  # on the compute thread once enabled, else here
(3, 1)
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import queue
import threading
from collections.abc import Generator
from typing import Any, Callable, TypeVar

import torch

Item = TypeVar("Item")

AUTOCAST_DEVICES = ("cpu", "cuda")  # the autocast states a job takes from its caller

_enabled = False
_jobs: queue.SimpleQueue = queue.SimpleQueue()
_thread: threading.Thread | None = None
_start_lock = threading.Lock()


def enable() -> None:
    """Compute every routed job on the compute thread from now on (a server calls this once,
    before it computes anything)."""
    global _enabled
    _enabled = True


def disable() -> None:
    """Compute inline in the calling thread again (the compute thread, if started, idles)."""
    global _enabled
    _enabled = False


def enabled() -> bool:
    return _enabled


def thread() -> threading.Thread | None:
    """The compute thread, once a job has started it."""
    return _thread


class _Job:
    __slots__ = ("fn", "args", "kwargs", "state", "done", "result", "error")

    def __init__(self, fn: Callable, args: tuple, kwargs: dict) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.state = _torch_state()
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


def _torch_state() -> tuple:
    """The calling thread's PyTorch settings that a job must compute under."""
    autocast = tuple((device, torch.get_autocast_dtype(device)) for device in AUTOCAST_DEVICES
                     if torch.is_autocast_enabled(device))
    return (torch.is_grad_enabled(), torch.is_inference_mode_enabled(), autocast,
            torch.get_num_threads())


@contextlib.contextmanager
def _under(state: tuple):
    """``state`` (``_torch_state``) in this thread inside the block; this thread's own after."""
    from playground.runtime.execution import cpu_threads  # (execution hops through this module)

    grad, inference, autocast, threads = state
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.inference_mode(inference))
        stack.enter_context(torch.set_grad_enabled(grad))
        for device, dtype in autocast:
            stack.enter_context(torch.autocast(device, dtype=dtype))
        # (also PyTorch's default for threads started later: back to this thread's own after)
        stack.enter_context(cpu_threads(threads))
        yield


def _serve() -> None:
    """The compute thread: jobs one at a time, in order, for ever (it sleeps on the queue)."""
    while True:
        job = _jobs.get()
        try:
            with _under(job.state):
                job.result = job.fn(*job.args, **job.kwargs)
        except BaseException as error:  # the caller raises it; this thread serves on
            job.error = error
        finally:
            job.done.set()
            del job  # nothing of a finished job is kept alive here


def _start() -> None:
    global _thread
    with _start_lock:
        if _thread is None:
            _thread = threading.Thread(target=_serve, name="playground-compute", daemon=True)
            _thread.start()


def _forget_after_fork() -> None:
    """A forked child (a ZeroGPU chunk's) has no compute thread, and no server's threads
    either: it computes inline, as before ``enable``."""
    global _enabled, _thread, _jobs, _start_lock
    _enabled, _thread, _jobs, _start_lock = False, None, queue.SimpleQueue(), threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def inline() -> bool:
    """Whether a job asked for now runs in the calling thread: not enabled, or on the compute
    thread already."""
    return not _enabled or threading.current_thread() is _thread


def run(fn: Callable[..., Item], *args: Any, **kwargs: Any) -> Item:
    """``fn(*args, **kwargs)`` computed on the compute thread, with the caller's PyTorch
    settings: its result, or its exception raised here. Inline when ``inline()``."""
    if inline():
        return fn(*args, **kwargs)
    _start()
    job = _Job(fn, args, kwargs)
    _jobs.put(job)
    job.done.wait()
    if job.error is not None:
        error, job.error = job.error, None
        raise error
    return job.result


def iterate(items: Generator[Item, None, Any]) -> Generator[Item, None, Any]:
    """``items``' items, each computed on the compute thread (``run``); closing this closes
    ``items`` there, and what ``items`` returns, this returns.

    >>> def squares():
    ...     yield 1
    ...     yield 4
    ...     return "done"
    >>> items = iterate(squares())
    >>> next(items), next(items)
    (1, 4)
    >>> next(items)
    Traceback (most recent call last):
    StopIteration: done
    """
    try:
        while True:
            try:
                item = run(next, items)
            except StopIteration as end:
                return end.value
            yield item
    finally:
        run(items.close)


def routed(fn: Callable) -> Callable:
    """``fn`` computed on the compute thread when enabled (``run``; a generator function's items
    one by one, ``iterate``); the wrapper keeps ``fn``'s name, signature and kind. Put it
    under an ``lru_cache``, so a cached answer does not travel.

    >>> @routed
    ... def tokens(n):
    ...     yield from range(n)
    >>> list(tokens(3)), inspect.isgeneratorfunction(tokens), str(inspect.signature(tokens))
    ([0, 1, 2], True, '(n)')
    """
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def items(*args: Any, **kwargs: Any):
            return (yield from iterate(fn(*args, **kwargs)))
        return items

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any):
        return run(fn, *args, **kwargs)
    return call
