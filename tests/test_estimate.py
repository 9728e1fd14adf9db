"""The time estimate: FLOPs against PyTorch's own FLOP counter, evaluation counts against the
trainer, the speed fit and the refinement from a run's records."""

import dataclasses
import math

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from playground import estimate as est
from playground.config import PRESETS, ModelConfig, TrainConfig
from playground.model import GPT
from playground.runtime.execution import cpu_threads
from playground.runtime.hosting import Hosting
from playground.train import EndRecord, EvalProgress, EvalRecord, StepRecord, Trainer

from checks import TINY_MODEL, TINY_TRAIN


@pytest.mark.parametrize("variant", [dict(), dict(activation="swiglu"), dict(tie_weights=False),
                                     dict(pos="rope", n_layer=2)])
def test_step_flops_match_pytorchs_flop_counter(variant):
    """Forward and backward of one batch: torch.utils.flop_counter counts every matmul of the
    model (its CPU attention kernel it does not count), our formula the same matmuls plus the
    attention, which is counted on its own below."""
    model_cfg = ModelConfig(**{**dict(vocab_size=65, block_size=32, n_layer=1, n_head=4,
                                      n_embd=64), **variant})
    train_cfg = TrainConfig(batch_size=3)
    model = GPT(model_cfg)
    x = torch.randint(0, 65, (3, 32))
    with FlopCounterMode(display=False) as counter:
        model(x, x)[1].backward()
    tokens = 3 * 32
    attention = 3 * 4 * model_cfg.n_layer * model_cfg.block_size * model_cfg.n_embd * tokens
    assert est.step_flops(model_cfg, train_cfg) - attention == counter.get_total_flops()


def test_the_attention_flops_are_those_of_its_two_matmuls():
    """Scores q kᵀ and the weighted sum att v, forward and backward, over the full context."""
    B, n_head, T, hs = 2, 4, 32, 16
    q, k, v = (torch.randn(B, n_head, T, hs, requires_grad=True) for _ in range(3))
    with FlopCounterMode(display=False) as counter:
        att = (q @ k.transpose(-2, -1)).softmax(-1)  # (B, nh, T, T)
        (att @ v).sum().backward()
    model_cfg = ModelConfig(vocab_size=65, block_size=T, n_layer=1, n_head=n_head, n_embd=64)
    per_token = est.forward_flops_per_token(model_cfg) - 2 * est.matmul_params(model_cfg)
    assert 3 * per_token * B * T == counter.get_total_flops()


def test_eval_flops_match_the_forward_passes_of_an_evaluation():
    model_cfg = ModelConfig(vocab_size=65, **TINY_MODEL)
    train_cfg = TrainConfig(batch_size=4, grad_accum=2, eval_iters=3)
    model = GPT(model_cfg)
    with FlopCounterMode(display=False) as counter:  # forward only: no backward follows
        for _ in range(2 * train_cfg.eval_iters):  # each split, micro-batches of 2
            x = torch.randint(0, 65, (2, model_cfg.block_size))
            model(x, x)
    tokens = 2 * train_cfg.eval_iters * 2 * model_cfg.block_size
    attention = 4 * model_cfg.n_layer * model_cfg.block_size * model_cfg.n_embd * tokens
    assert est.eval_flops(model_cfg, train_cfg) - attention == counter.get_total_flops()


def test_muon_flops_match_the_counted_newton_schulz_iterations():
    model_cfg = ModelConfig(vocab_size=65, block_size=16, n_layer=2, n_head=2, n_embd=32)
    model = GPT(model_cfg)
    matrices = [p for name, p in model.named_parameters() if p.ndim == 2 and "blocks" in name]
    for p in matrices:
        p.grad = torch.randn_like(p)
    muon = torch.optim.Muon(matrices, lr=0.02)
    with FlopCounterMode(display=False) as counter:
        muon.step()
    assert est.muon_flops(model_cfg) == counter.get_total_flops()
    with_muon = TrainConfig(batch_size=2, optimizer="muon")
    assert (est.step_flops(model_cfg, with_muon)
            == est.step_flops(model_cfg, TrainConfig(batch_size=2)) + est.muon_flops(model_cfg))


@pytest.mark.parametrize("max_steps, eval_interval, done", [(6, 3, 0), (7, 3, 0), (7, 3, 4),
                                                            (5, 10, 0), (9, 3, 6)])
def test_evaluations_left_are_the_evaluations_the_trainer_runs(max_steps, eval_interval, done):
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=16, **TINY_MODEL))
    cfg = TrainConfig(**{**TINY_TRAIN, "max_steps": max_steps, "eval_interval": eval_interval})
    ids = torch.arange(400) % 16
    trainer = Trainer(model, ids[:300], ids[300:], cfg)
    if done:
        list(trainer.run(max_steps=done))
    first_owed = not trainer.history
    evals = [r for r in trainer.run() if isinstance(r, EvalRecord)]
    assert est.evaluations_left(done, max_steps, eval_interval, first_owed) == len(evals)


def test_eval_progress_counts_every_batch_and_changes_nothing_else():
    """run(eval_progress=True) adds EvalProgress between the batches of each evaluation; the
    records (and the history) are those of a run without it."""
    def run(progress):
        torch.manual_seed(0)
        model = GPT(ModelConfig(vocab_size=16, **TINY_MODEL))
        ids = torch.arange(400) % 16
        trainer = Trainer(model, ids[:300], ids[300:], TrainConfig(**{**TINY_TRAIN, "eval_iters": 2}))
        return list(trainer.run(eval_progress=progress)), trainer.history

    plain, plain_history = run(False)
    with_progress, history = run(True)
    progress = [r for r in with_progress if isinstance(r, EvalProgress)]
    assert [(p.step, p.done, p.total) for p in progress] == [
        (step, done, 4) for step in (0, 3, 6) for done in range(1, 5)]
    records = [r for r in with_progress if not isinstance(r, EvalProgress)]
    def strip(rs):  # the clock's readings differ from run to run
        return [dataclasses.replace(r, elapsed=0, **({"tokens_per_s": 0} if isinstance(
            r, StepRecord) else {})) if hasattr(r, "elapsed") else r for r in rs]
    assert strip(records) == strip(plain) and strip(history) == strip(plain_history)


def test_fit_speed_recovers_the_overhead_and_the_rate():
    truth = est.Speed(flops_per_s=5e10, overhead_s=0.003)
    small, large = 1e8, 4e9
    fitted = est.fit_speed((small, truth.step_seconds(small)), (large, truth.step_seconds(large)))
    assert fitted.flops_per_s == pytest.approx(5e10) and fitted.overhead_s == pytest.approx(0.003)


def test_an_estimate_adds_steps_and_evaluations_and_samples():
    model_cfg = ModelConfig(vocab_size=65, **TINY_MODEL)
    train_cfg = TrainConfig(max_steps=10, batch_size=4, eval_interval=5, eval_iters=2,
                            sample_tokens=0)
    speed = est.Speed(flops_per_s=1e9, overhead_s=0.01)
    e = est.estimate_run(model_cfg, train_cfg, speed)
    step = 0.01 + est.step_flops(model_cfg, train_cfg) / 1e9
    evaluation = 4 * 0.005 + est.eval_flops(model_cfg, train_cfg) / 1e9
    assert (e.steps_left, e.evals_left) == (10, 3)
    assert e.seconds == pytest.approx(10 * step + 3 * evaluation)
    sampled = est.estimate_run(model_cfg, dataclasses.replace(train_cfg, sample_tokens=50), speed)
    assert sampled.eval_s == pytest.approx(evaluation + 50 * speed.forward_seconds(
        est.forward_flops_per_token(model_cfg)))
    continued = est.estimate_run(model_cfg, train_cfg, speed, done=5)
    assert (continued.steps_left, continued.evals_left) == (5, 1)


def test_the_refined_estimate_follows_the_measured_steps_and_evaluations():
    e = est.Estimate(step_s=0.1, eval_s=2.0, done=0, max_steps=100, eval_interval=50,
                     first_owed=True, tokens_per_step=1000)
    assert e.seconds == pytest.approx(100 * 0.1 + 3 * 2.0)
    # the first evaluation took 1 s, and the steps run at 20,000 tokens/s: 0.05 s each
    history = [EvalRecord(0, 0, 4.2, 4.2, 6, 6, 1.0)] + [
        StepRecord(s, 1000 * s, 3.0, 1e-3, 20_000.0, 1.0 + 0.05 * s) for s in range(1, 11)]
    refined = e.refined(history)
    assert (refined.done, refined.steps_left, refined.evals_left) == (10, 90, 2)
    assert refined.step_s == pytest.approx(0.05) and refined.eval_s == pytest.approx(1.0)
    assert refined.seconds == pytest.approx(90 * 0.05 + 2 * 1.0)
    # halfway through an evaluation: half of one is left on top of the rest
    assert e.refined([], evaluating=0.5).seconds == pytest.approx(100 * 0.1 + 2 * 2.0 + 1.0)
    # before any evaluation was measured, the evaluations scale with the steps
    steps_only = e.refined([StepRecord(1, 1000, 4.0, 1e-3, 20_000.0, 0.05)])
    assert steps_only.eval_s == pytest.approx(1.0)
    assert e.refined(history + [EndRecord(10, "stopped", "")]).seconds == refined.seconds


def test_measure_speed_is_measured_once_and_leaves_the_random_state_alone():
    est.measure_speed.cache_clear()
    before = torch.get_rng_state()
    speed = est.measure_speed("cpu", "float32")
    assert torch.equal(torch.get_rng_state(), before)
    assert speed.flops_per_s > 0 and speed.overhead_s >= 0 and speed.device == "cpu"
    assert est.measure_speed("cpu", "float32") is speed


def test_probe_speed_scales_the_probes_rate_by_the_runs_matrices(monkeypatch):
    est.measure_speed.cache_clear()
    monkeypatch.setattr(est, "measure_speed", lambda device, dtype: est.Speed(1e10, 0.002, device))
    rates = {64 * 4: 1e10}  # rows of the probe's matmul
    monkeypatch.setattr(est, "matmul_rate",
                        lambda device, dtype, rows, width: rates.get(rows, 4e10))
    preset = PRESETS["nanogpt-cpu"]
    speed = est.probe_speed(dataclasses.replace(preset.model, vocab_size=65),
                            dataclasses.replace(preset.train, device="cpu"))
    assert speed.flops_per_s == pytest.approx(4e10) and speed.overhead_s == 0.002


@pytest.mark.parametrize("optimizer", ["adamw", "muon"])
def test_run_speed_times_the_runs_own_step_once_per_configuration(monkeypatch, optimizer):
    """The estimate steps a Trainer of the run's own configs (its optimiser included) at two
    micro-batch sizes, and a run differing only in its length or seed reuses the measurement."""
    from playground.optim import BatchedMuon

    batches, muon_steps = [], []
    real_step, real_muon = Trainer._train_step, BatchedMuon.step

    def counted_step(self, elapsed):
        batches.append(self.micro_batch)
        threads.append(torch.get_num_threads())
        return real_step(self, elapsed)

    def counted_muon(self, closure=None):
        muon_steps.append(1)
        return real_muon(self, closure)

    monkeypatch.setattr(Trainer, "_train_step", counted_step)
    monkeypatch.setattr(BatchedMuon, "step", counted_muon)
    est._own_step_speed.cache_clear()
    model = ModelConfig(vocab_size=65, block_size=16, n_layer=1, n_head=2, n_embd=16)
    # the run asks for one thread while this thread computes with two: the probe steps as the
    # run would (runtime.execution.cpu_threads), and leaves this thread's count as it was
    train = TrainConfig(batch_size=8, optimizer=optimizer, device="cpu", dtype="float32",
                        threads=1)
    threads = []
    before = torch.get_rng_state()
    with cpu_threads(2):
        speed = est.run_speed(model, train)
        assert torch.get_num_threads() == 2
    assert torch.equal(torch.get_rng_state(), before)
    assert set(threads) == {1}
    assert sorted(set(batches)) == [2, 8]  # a quarter of the micro-batch, and all of it
    assert bool(muon_steps) == (optimizer == "muon") and len(muon_steps) in (0, len(batches))
    assert speed.flops_per_s > 0 and speed.overhead_s >= 0 and speed.forward_overhead_s >= 0
    steps = len(batches)
    again = est.run_speed(model, dataclasses.replace(train, max_steps=9, seed=4, eval_iters=3))
    assert again is speed and len(batches) == steps
    est._own_step_speed.cache_clear()


def test_a_run_too_large_to_step_here_is_priced_from_the_probe_models(monkeypatch):
    monkeypatch.setattr(est, "OWN_PROBE_MAX_BYTES", 1)
    priced = est.Speed(1e10, 0.002)
    monkeypatch.setattr(est, "probe_speed", lambda model, train: priced)
    monkeypatch.setattr(est, "own_step_speed", lambda model, train: pytest.fail("stepped"))
    assert est.run_speed(ModelConfig(), TrainConfig(device="cpu")) is priced


def test_an_evaluation_pays_the_measured_forward_overhead_per_pass():
    model, train = ModelConfig(vocab_size=65), TrainConfig(eval_iters=10, sample_tokens=0)
    plain = est.estimate_run(model, train, est.Speed(1e10, 0.010))
    measured = est.estimate_run(model, train, est.Speed(1e10, 0.010, forward_overhead_s=0.001))
    assert plain.eval_s - measured.eval_s == pytest.approx(20 * (0.005 - 0.001))


def test_the_warning_limit_and_durations():
    def limit(env):
        return est.long_run_limit(Hosting.from_env(env))

    assert limit({}) == 600.0
    assert limit({"PLAYGROUND_LONG_RUN_S": "90"}) == 90.0
    for bad in ("-5", "nan", "inf", "ten"):
        assert limit({"PLAYGROUND_LONG_RUN_S": bad}) == 600.0
    assert [est.duration_text(s) for s in (7.4, 65, 3600 * 18)] == ["7 s", "1 min 05 s", "18 h 00 min"]
    assert [est.duration_text(s, "zh-CN") for s in (7.4, 65, 3 * 86400)] == [
        "7 秒", "1 分 05 秒", "3 天 0 小时"]
    assert math.isclose(est.forward_flops_per_token(ModelConfig(vocab_size=65)) * 3,
                        6 * est.matmul_params(ModelConfig(vocab_size=65)) + 12 * 4 * 64 * 128)
