"""A test-only entry point: ``playground train`` in which one process fails at a given step.

torchrun runs this file instead of ``-m playground``: it reads ``FAIL_RANK`` and ``FAIL_STEP``
from the environment, makes the trainer of process ``FAIL_RANK`` raise in the training forward
pass of its ``FAIL_STEP``-th step (as a bad GPU or a full disk would), then runs the CLI. The
shipped package knows nothing of this.
"""

import os
import sys

from playground import cli, prepare

FAIL_RANK, FAIL_STEP = int(os.environ["FAIL_RANK"]), int(os.environ["FAIL_STEP"])
build_trainer = prepare.build_trainer


def failing_build_trainer(*args, **kwargs):
    trainer = build_trainer(*args, **kwargs)
    if trainer.dist.rank != FAIL_RANK:
        return trainer
    calls = 0

    def fail(module, inputs):
        nonlocal calls
        if module.training:  # evaluations and samples run in eval mode
            calls += 1
            if calls > (FAIL_STEP - 1) * trainer.config.grad_accum:
                raise RuntimeError(f"injected failure in process {FAIL_RANK} at step {FAIL_STEP}")

    trainer.model.register_forward_pre_hook(fail)
    return trainer


prepare.build_trainer = failing_build_trainer
sys.exit(cli.main(sys.argv[1:]))
