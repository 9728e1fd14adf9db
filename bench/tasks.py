"""The toy tasks: each preset from nothing to its last step, with its held-out accuracy.

One row per task: the steps, the wall and CPU seconds (tokenizer, data, training and every
evaluation included) and the exact-match accuracy on the task's held-out problems, held to
the accuracy the task states (``Task.expected_accuracy``); for tasks with expected positions,
a second row: the head whose attention sits most on them, and how much (``tasks.best_head``).
"""

from __future__ import annotations

import time

from bench.core import Context, Row, check
from playground.config import replace
from playground.prepare import prepare_run
from playground.tasks import TASKS, best_head, task_corpus
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord


def run_task(name: str, quick: bool) -> dict:
    """Train the task's preset (``quick``: 6 steps of a narrower model) and measure it."""
    task = TASKS[name]
    wall, cpu = time.perf_counter(), time.process_time()
    corpus = task_corpus(name)
    tokenizer = train_tokenizer("char", corpus.text)
    model_cfg, train_cfg = task.preset.model, replace(task.preset.train, device="cpu")
    if quick:
        model_cfg = replace(model_cfg, n_layer=1, n_embd=16)
        train_cfg = replace(train_cfg, max_steps=6, eval_interval=3, eval_iters=1)
    run = prepare_run(corpus, tokenizer, model_cfg, train_cfg)
    last = [r for r in run.trainer().run() if isinstance(r, EvalRecord)][-1]
    return dict(steps=last.step, accuracy=last.accuracy, wall_s=time.perf_counter() - wall,
                cpu_s=time.process_time() - cpu,
                head=best_head(task, run.trained.model, tokenizer))


def tasks(ctx: Context) -> list[Row]:
    rows = []
    for name, task in TASKS.items():
        r = run_task(name, ctx.quick)
        target = 0.0 if ctx.quick else task.expected_accuracy
        rows.append(Row("tasks", f"{name}: held-out accuracy", r["accuracy"], "",
                        f">= {target:g}", met=check(r["accuracy"], target, True),
                        note=f"{r['steps']:,} steps in {r['wall_s']:.1f} s wall, "
                             f"{r['cpu_s']:.1f} s CPU; preset {task.preset.name}"))
        if r["head"] is not None:
            layer, head, mass = r["head"]
            rows.append(Row("tasks", f"{name}: attention on the expected positions", mass, "",
                            note=f"layer {layer} head {head}, the most of any head"))
    return rows
