"""A stand-in for Hugging Face's ``spaces`` package on a ZeroGPU Space, as far as a run can tell
(``tests/runtime/test_zerogpu_space.py``; the real one is read in ``spaces/zero/wrappers.py`` and
``client.py`` of spaces 0.51): ``GPU`` decorates a generator function; each call asks for its
``duration`` (a number, or a function of the call's arguments), is refused with ZeroGPU's own
``gr.Error`` when that is more than the quota left, and otherwise runs with its arguments and
every item it yields passed through pickle, as between the Space and its forked GPU process
(so nothing the call changes reaches the caller but what it yields). The quota is charged
what each call asked for: the worst case, and the same on every machine.

On the import path (``PYTHONPATH``) with ``SPACES_ZERO_GPU=1`` it makes ``playground.runtime.zerogpu``
take its ZeroGPU branch; ``QUOTA`` starts at ``FAKE_ZEROGPU_QUOTA`` seconds (no limit unset).
"""

import functools
import inspect
import math
import os
import pickle

import gradio as gr


class Quota:
    def __init__(self, seconds: float):
        self.left = seconds
        self.asked: list[int] = []  # what each call asked for, the refused ones too

    def charge(self, asked: int) -> None:
        self.asked.append(asked)
        if asked > self.left:  # ZeroGPU's words (spaces/zero/client.py), before any GPU work
            raise gr.Error(f"You have exceeded your free ZeroGPU quota ({asked}s requested vs. "
                           f"{int(self.left)}s left). Try again in 23:59:00.",
                           title="ZeroGPU quota exceeded", print_exception=False)
        self.left -= asked


QUOTA = Quota(float(os.environ.get("FAKE_ZEROGPU_QUOTA", "inf")))


def GPU(task=None, *, duration=60, size=None, quota: Quota | None = None):
    """``spaces.GPU`` with its call shapes: bare, or with ``duration`` and ``size``."""
    if task is None:
        return functools.partial(GPU, duration=duration, size=size, quota=quota)
    if not inspect.isgeneratorfunction(task):
        raise NotImplementedError("this stand-in covers generator functions only")
    charged = quota or QUOTA

    @functools.wraps(task)
    def call(*args, **kwargs):
        asked = duration(*args, **kwargs) if callable(duration) else duration
        charged.charge(math.ceil(asked))
        args, kwargs = pickle.loads(pickle.dumps((args, kwargs)))  # into the GPU process
        for item in task(*args, **kwargs):
            yield pickle.loads(pickle.dumps(item))  # and back

    call.zerogpu_duration = duration
    return call
