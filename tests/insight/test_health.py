"""How training is going: the gradient norm each step records (equal to one computed by hand),
kept through a bundle and absent from old ones; the learning rate as planned and as followed;
the health figure's traces; the history as CSV."""

import copy
import csv
import io
import math

import pytest
import torch

from playground.checkpoint import _upgrade_history, load_bundle, records_from_json, records_to_json, save_bundle
from playground.config import TrainConfig
from playground.insight.health import clipped, health_figure, history_csv, planned_lr
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord, Trainer, separate_streams

from checks import CJK, BLOCK, VOCAB, tiny_model, token_stream

RUN = dict(batch_size=4, lr=1e-2, min_lr=1e-3, warmup_steps=2, eval_interval=3, eval_iters=1,
           sample_tokens=0, device="cpu", dtype="float32", seed=5)


def trained(grad_clip, max_steps=6, **changes):
    ids = token_stream()
    config = TrainConfig(max_steps=max_steps, grad_clip=grad_clip, **{**RUN, **changes})
    model = tiny_model()
    before = copy.deepcopy(model)
    trainer = Trainer(model, ids[:500], ids[500:], config)
    return before, ids[:500], config, list(trainer.run())


def first_step_norm(model, train_ids, config) -> float:
    """The gradient norm of the first batch, computed here with autograd and a plain sum."""
    starts = separate_streams(None, config.seed).train_starts(len(train_ids), config.batch_size,
                                                              BLOCK)
    windows = torch.stack([train_ids[s: s + BLOCK + 1] for s in starts.tolist()])
    model.train()
    model(windows[:, :-1], windows[:, 1:]).loss.backward()
    return math.sqrt(sum(float(p.grad.double().square().sum()) for p in model.parameters()
                         if p.grad is not None))


@pytest.mark.parametrize("grad_clip", [0.0, 1e-3])
def test_each_step_records_its_gradient_norm_before_clipping(grad_clip):
    before, train_ids, config, records = trained(grad_clip, max_steps=2)
    steps = [r for r in records if isinstance(r, StepRecord)]
    assert all(r.grad_norm is not None and r.grad_norm > 0 for r in steps)
    assert steps[0].grad_norm == pytest.approx(first_step_norm(before, train_ids, config), rel=1e-5)
    # with clipping at 1e-3 every step is clipped, and the norm is the one before clipping
    assert [r.step for r in clipped(records, grad_clip)] == ([] if grad_clip == 0 else [1, 2])


def test_the_gradient_norm_goes_through_a_bundle_and_old_histories_load_without_it(tmp_path):
    _, _, config, records = trained(1.0)
    tok = train_tokenizer("char", "".join(chr(97 + i) for i in range(VOCAB)))
    path = save_bundle(tmp_path / "run.zip", tiny_model(), tok, config, records)
    assert load_bundle(path).history == records
    as_json = records_to_json(records)
    assert all("grad_norm" in r for r in as_json if r["kind"] == "step")
    old = [{k: v for k, v in r.items() if k != "grad_norm"} for r in as_json]  # an older bundle
    loaded = records_from_json(_upgrade_history(old), "old.zip")  # format 1, upgraded as loaded
    assert [r.grad_norm for r in loaded if isinstance(r, StepRecord)] == [None] * 6
    # a record without it is written with the key, null (format 2: every field, always)
    assert records_to_json([StepRecord(1, 64, 4.0, 1e-3, 900.0, 0.1)]) == [
        {"kind": "step", "step": 1, "tokens": 64, "loss": 4.0, "lr": 1e-3, "tokens_per_s": 900.0,
         "elapsed": 0.1, "grad_norm": None}]


def test_the_planned_schedule_is_the_one_the_run_follows():
    _, _, config, records = trained(1.0, max_steps=9, warmup_steps=3)
    plan_steps, plan_lrs = planned_lr(config)
    followed = {r.step: r.lr for r in records if isinstance(r, StepRecord)}
    assert plan_steps == list(range(1, 10))
    assert [followed[s] for s in plan_steps] == pytest.approx(plan_lrs, rel=1e-12)
    thinned_steps, _ = planned_lr(TrainConfig(max_steps=10_001), max_points=100)
    assert len(thinned_steps) <= 101 and thinned_steps[0] == 1 and thinned_steps[-1] == 10_001


def test_the_health_figure_draws_the_records_the_plan_and_the_clipped_steps():
    history = [EvalRecord(0, 0, 4.0, 4.1, 5.8, 5.9, 0.1)]
    history += [StepRecord(s, 64 * s, 4.0 - s / 10, 1e-3 * s, 900.0 + s, s / 10,
                           grad_norm=[0.5, 2.0, 0.7, 3.0][s - 1]) for s in range(1, 5)]
    history.append(EndRecord(4, "done", "Finished."))
    config = TrainConfig(max_steps=4, grad_clip=1.0, warmup_steps=1)
    fig = health_figure(history, config)
    by_name = {trace.name: trace for trace in fig.data}
    assert list(by_name["gradient norm"].y) == [0.5, 2.0, 0.7, 3.0]
    assert list(by_name["clipped: 2 of 4 steps"].x) == [2, 4]
    assert list(by_name["followed"].y) == [1e-3, 2e-3, 3e-3, 4e-3]
    assert list(by_name["planned"].x) == [1, 2, 3, 4]
    assert list(by_name["tokens/s"].y) == [901.0, 902.0, 903.0, 904.0]
    # before Start: only the plan (and the threshold); no clipping marks without clipping
    empty = health_figure([], TrainConfig(max_steps=50, grad_clip=0.0))
    assert {t.name for t in empty.data if len(t.x or ())} == {"planned"}
    chinese = health_figure(history, config, lang="zh-CN")
    assert all(CJK.search(trace.name) for trace in chinese.data)


def test_a_history_without_gradient_norms_draws_gaps_not_errors():
    history = [StepRecord(1, 64, 4.0, 1e-3, 900.0, 0.1), StepRecord(2, 128, 3.9, 1e-3, 900.0, 0.2)]
    fig = health_figure(history, TrainConfig(max_steps=2))
    assert list(fig.data[0].y) == [None, None]


def test_the_history_downloads_as_csv_a_spreadsheet_reads():
    _, _, _, records = trained(1.0)
    rows = list(csv.DictReader(io.StringIO(history_csv(records))))
    kept = [r for r in records if isinstance(r, (StepRecord, EvalRecord))]
    assert [row["kind"] for row in rows] == [r.kind for r in kept]
    for row, record in zip(rows, kept):
        assert int(row["step"]) == record.step
        if isinstance(record, StepRecord):
            assert float(row["loss"]) == record.loss and float(row["grad_norm"]) == record.grad_norm
            assert row["val_loss"] == ""
        else:
            assert float(row["val_loss"]) == record.val_loss and row["loss"] == ""
