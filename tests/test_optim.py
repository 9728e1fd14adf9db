"""The optimisers: Muon + AdamW against torch's own, the parameter split, resuming, learning."""

import copy

import pytest
import torch

from playground.checkpoint import load_bundle, save_bundle
from playground.config import ConfigError, TrainConfig
from playground.model import GPT
from playground.optim import (POLAR_EXPRESS, POLAR_EXPRESS_NORM_MARGIN, BatchedMuon, MuonAdamW,
                             _orthogonalised, build_optimizer, hidden_matrices, set_lr)
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord, StepRecord, Trainer, lr_at, prepare_data

from checks import BLOCK, assert_translated, token_stream
from checks import tiny_model as checks_tiny_model

def tiny_model(seed=0, **changes) -> GPT:
    """Two layers, so Muon has hidden matrices in more than one block."""
    return checks_tiny_model(seed, **{"n_layer": 2, **changes})


def muon_config(**changes) -> TrainConfig:
    cfg = dict(optimizer="muon", max_steps=12, batch_size=4, lr=1e-2, min_lr=1e-3, muon_lr=0.05,
               warmup_steps=2, eval_interval=5, eval_iters=2, device="cpu", dtype="float32")
    return TrainConfig(**{**cfg, **changes})


def step_losses(records) -> list[float]:
    return [r.loss for r in records if isinstance(r, StepRecord)]


def assert_same_weights(a: torch.nn.Module, b: torch.nn.Module) -> None:
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(x, y), name


# ---------------------------------------------------------------------------------------------
# Which weights Muon gets


@pytest.mark.parametrize("changes", [
    dict(),
    dict(tie_weights=False, bias=True),
    dict(tie_weights=False, activation="swiglu", norm="rmsnorm", pos="rope"),
])
def test_muon_gets_exactly_the_blocks_matrices(changes):
    model = tiny_model(**changes)
    mlp = ("gate", "up", "proj") if changes.get("activation") == "swiglu" else ("fc", "proj")
    expected = {f"blocks.{i}.{part}.weight" for i in range(2)
                for part in ("attn.qkv", "attn.proj", *(f"mlp.{m}" for m in mlp))}
    opt = build_optimizer(model, muon_config(), "cpu")
    assert isinstance(opt, MuonAdamW)
    names = {id(p): name for name, p in model.named_parameters()}
    muon = {names[id(p)] for g in opt.muon.param_groups for p in g["params"]}
    adamw = [names[id(p)] for g in opt.adamw.param_groups for p in g["params"]]
    assert muon == expected == {names[id(p)] for p in hidden_matrices(model)}
    # everything else, embeddings and head (tied or not) and norms and biases, goes to AdamW once
    assert sorted(adamw) == sorted(set(names.values()) - expected)
    assert "tok_emb.weight" in adamw
    assert ("lm_head.weight" in adamw) == (not model.config.tie_weights)  # tied: one tensor
    assert ("pos_emb.weight" in adamw) == (model.config.pos == "learned")


def test_adamw_stays_the_one_plain_optimiser_it_was():
    model = tiny_model()
    opt = build_optimizer(model, TrainConfig(), "cpu")
    assert type(opt) is torch.optim.AdamW
    assert sum(len(g["params"]) for g in opt.param_groups) == len(list(model.parameters()))


# ---------------------------------------------------------------------------------------------
# The same steps as torch.optim.Muon and torch.optim.AdamW used directly


def _reference(model: GPT, cfg: TrainConfig):
    """torch's Muon on the 2-D block weights and torch's AdamW on the rest, written out here
    (AdamW fused as ours is: the loop rounds differently, by ~1e-9 a step)."""
    blocks = {id(p) for p in model.blocks.parameters()}
    hidden = [p for p in model.blocks.parameters() if p.dim() == 2]
    rest = [p for p in model.parameters() if id(p) not in blocks or p.dim() != 2]
    muon = torch.optim.Muon(hidden, lr=cfg.muon_lr, weight_decay=cfg.weight_decay,
                            momentum=cfg.muon_momentum, nesterov=True)
    adamw = torch.optim.AdamW(
        [{"params": [p for p in rest if p.dim() >= 2], "weight_decay": cfg.weight_decay},
         {"params": [p for p in rest if p.dim() < 2], "weight_decay": 0.0}],
        lr=cfg.lr, betas=(cfg.beta1, cfg.beta2), fused=True)
    return muon, adamw


@pytest.fixture
def torch_format(monkeypatch):
    """Newton-Schulz in bf16, as torch's Muon has it, whatever the probe would pick here."""
    from playground import optim

    monkeypatch.setattr(optim, "newton_schulz_dtype", lambda device, rows, cols: torch.bfloat16)


def test_muon_steps_equal_torch_muon_and_adamw_used_directly(torch_format):
    cfg = muon_config(weight_decay=0.1)
    ours_model, ref_model = tiny_model(tie_weights=False, bias=True), tiny_model(tie_weights=False, bias=True)
    ours = build_optimizer(ours_model, cfg, "cpu")
    ref_muon, ref_adamw = _reference(ref_model, cfg)
    # Newton-Schulz is compared on its own below: batching its bf16 products rounds some
    # elements the other way, so here both step with the normalised momentum alone
    for group in ours.muon.param_groups + ref_muon.param_groups:
        group["ns_steps"] = 0
    start = [p.detach().clone() for p in ours_model.parameters()]
    ids = token_stream()
    for step in range(6):
        batch = ids[step * 40:step * 40 + 4 * (BLOCK + 1)].view(4, BLOCK + 1)
        lr = lr_at(step, cfg)
        set_lr(ours, lr, cfg)
        for g in ref_muon.param_groups:
            g["lr"] = cfg.muon_lr * lr / cfg.lr  # the schedule's factor on Muon's own peak
        for g in ref_adamw.param_groups:
            g["lr"] = lr
        for model, opts in ((ours_model, [ours]), (ref_model, [ref_muon, ref_adamw])):
            model(batch[:, :-1], batch[:, 1:]).loss.backward()
            for opt in opts:
                opt.step()
                opt.zero_grad(set_to_none=True)
    for (name, a), b, w in zip(ours_model.named_parameters(), ref_model.parameters(), start):
        # exactly: a rounding difference in AdamW's part would grow through Muon's bf16 steps
        assert torch.equal(a, b), name
        assert name.startswith("ln") or not torch.equal(a, w), name
    assert [g["lr"] for g in ours.muon.param_groups] == [cfg.muon_lr * lr_at(5, cfg) / cfg.lr]


def test_the_trainer_schedules_both_learning_rates_alike():
    ids = token_stream()
    cfg = muon_config(max_steps=4)
    trainer = Trainer(tiny_model(), ids[:500], ids[500:], cfg)
    records = [r for r in trainer.run() if isinstance(r, StepRecord)]
    last = records[-1].lr
    assert last == lr_at(3, cfg) and last < cfg.lr
    assert [g["lr"] for g in trainer.optimizer.muon.param_groups] == [cfg.muon_lr * last / cfg.lr]
    assert {g["lr"] for g in trainer.optimizer.adamw.param_groups} == {last}


# ---------------------------------------------------------------------------------------------
# Training with Muon: it learns, in every precision, and resumes exactly


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_muon_run_lowers_the_loss(dtype):
    ids = token_stream()
    trainer = Trainer(tiny_model(), ids[:500], ids[500:], muon_config(max_steps=30, dtype=dtype))
    records = list(trainer.run())
    evals = [r for r in records if isinstance(r, EvalRecord)]
    assert records[-1].reason == "done"
    assert evals[-1].val_loss < evals[0].val_loss - 0.3
    assert ("scaler" in trainer.state_dict()) == (dtype == "float16")  # fp16 scales its loss


def test_a_muon_run_resumed_from_a_bundle_equals_one_straight_run(tmp_path):
    text = "the quick brown fox jumps over the lazy dog. " * 30
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, 0.2, block_size=BLOCK)
    cfg = muon_config(max_steps=14, eval_interval=4)

    def model():
        return tiny_model(0, vocab_size=tok.vocab_size, dropout=0.1, tie_weights=False)

    straight_model = model()
    straight = list(Trainer(straight_model, train_ids, val_ids, cfg).run())

    first = Trainer(model(), train_ids, val_ids, cfg)
    head = list(first.run(max_steps=8))
    saved = first.state_dict()["optimizer"]
    path = save_bundle(tmp_path / "run.zip", first.model, tok, cfg, first.history, first.state_dict())
    torch.manual_seed(123)  # whatever happened in between must not matter
    bundle = load_bundle(path)
    loaded = bundle.trainer_state["optimizer"]
    assert loaded.keys() == {"adamw", "muon"}
    assert loaded["muon"]["param_groups"] == saved["muon"]["param_groups"]
    for i, per_param in saved["muon"]["state"].items():
        assert torch.equal(loaded["muon"]["state"][i]["momentum_buffer"], per_param["momentum_buffer"])
    resumed = Trainer(bundle.model, train_ids, val_ids, bundle.train_config)
    resumed.load_state_dict(bundle.trainer_state)
    tail = list(resumed.run())

    assert resumed.step == 14 and tail[-1].reason == "done"
    assert step_losses(head) + step_losses(tail) == step_losses(straight)
    straight_evals = [(r.step, r.val_loss) for r in straight if isinstance(r, EvalRecord)]
    resumed_evals = [(r.step, r.val_loss) for r in head + tail if isinstance(r, EvalRecord)]
    assert resumed_evals == straight_evals
    assert_same_weights(bundle.model, straight_model)


@pytest.mark.parametrize("saved, asked", [("adamw", "muon"), ("muon", "adamw")])
def test_continuing_with_the_other_optimiser_is_refused_in_plain_words(saved, asked):
    ids = token_stream()
    first = Trainer(tiny_model(), ids[:500], ids[500:], muon_config(optimizer=saved, max_steps=4))
    list(first.run(max_steps=2))
    resumed = Trainer(first.model, ids[:500], ids[500:], muon_config(optimizer=asked, max_steps=4))
    with pytest.raises(ConfigError) as info:
        resumed.load_state_dict(first.state_dict())
    assert_translated(info.value, f"This run was trained with optimizer={saved}, so it can only "
                      f"continue with it: set optimizer={saved}, or start a new run to try "
                      f"optimizer={asked}.", [f"optimizer={saved}", f"optimizer={asked}"])


@pytest.mark.parametrize("nesterov, rule", [(True, None), (False, "match_rms_adamw")])
def test_batched_muon_steps_as_torch_muon_for_matrices_of_every_orientation(nesterov, rule,
                                                                             torch_format):
    """Wide, tall and square matrices, two of a shape and one alone: bit for bit torch's step
    (momentum, Nesterov, weight decay, step size, orientation) with the normalised momentum,
    and torch's state dict loads into the batched one mid-run."""
    shapes = [(6, 10), (10, 6), (6, 10), (8, 8), (4, 12)]
    torch.manual_seed(0)
    start = [torch.randn(s) for s in shapes]
    ours = [torch.nn.Parameter(w.clone()) for w in start]
    ref = [torch.nn.Parameter(w.clone()) for w in start]
    kw = dict(lr=0.05, weight_decay=0.1, momentum=0.9, nesterov=nesterov, adjust_lr_fn=rule,
              ns_steps=0)
    opt_ours, opt_ref = BatchedMuon(ours, **kw), torch.optim.Muon(ref, **kw)
    for step in range(4):
        if step == 2:  # continue from torch's own saved state (a copy, as a bundle holds)
            opt_ours = BatchedMuon(ours, **kw)
            opt_ours.load_state_dict(copy.deepcopy(opt_ref.state_dict()))
        grads = [torch.randn(s) for s in shapes]
        for params, opt in ((ours, opt_ours), (ref, opt_ref)):
            for p, g in zip(params, grads):
                p.grad = g.clone()
            opt.step()
    for a, b, w in zip(ours, ref, start):
        assert torch.equal(a, b) and not torch.equal(a, w)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_batched_newton_schulz_orthogonalises_as_torch_does(dtype):
    """The five iterations, batched, in either format the probe may pick, against torch's one
    matrix at a time (bf16) on a 128-wide model's shapes: the same up to bf16's rounding (a few
    in a thousand of the update's size in bf16; float32 differs from torch's bf16 by about 1%,
    what bf16 rounds away over five iterations, and from the same iterations in float64 by
    float32's rounding), and far from the momentum that went in."""
    from torch.optim._muon import _zeropower_via_newtonschulz

    torch.manual_seed(0)
    updates = [torch.randn(s) for s in [(384, 128), (128, 128), (512, 128), (128, 512)] * 2]
    group = BatchedMuon([torch.nn.Parameter(u) for u in updates]).param_groups[0]
    formats = {}
    ours = _orthogonalised(updates, group, formats, dtype=dtype)
    assert formats == {(128, 384): dtype, (128, 128): dtype, (128, 512): dtype}
    for u, o in zip(updates, ours):
        ref = _zeropower_via_newtonschulz(u, group["ns_coefficients"], group["ns_steps"],
                                          group["eps"]).float()
        assert o.shape == u.shape and o.dtype == dtype
        assert (o.float() - ref).norm() / ref.norm() < (0.01 if dtype == torch.bfloat16 else 0.02)
        assert (u / u.norm() - ref / ref.norm()).norm() > 0.2
        if dtype == torch.float32:
            exact = _newton_schulz_float64(u, group["ns_coefficients"], group["ns_steps"])
            assert (o.double() - exact).norm() / exact.norm() < 1e-5


def _newton_schulz_float64(u: torch.Tensor, coefficients, steps: int) -> torch.Tensor:
    """torch's ``_zeropower_via_newtonschulz`` written out in float64 (its X = aX + BX, B =
    bA + cA², A = XXᵀ, on the wide orientation)."""
    a, b, c = coefficients
    x = u.double().mT if u.size(0) > u.size(1) else u.double()
    x = x / x.norm().clamp(min=1e-7)
    for _ in range(steps):
        gram = x @ x.mT
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.mT if u.size(0) > u.size(1) else x


def test_the_newton_schulz_format_is_the_one_measured_faster(monkeypatch):
    """The probe times one iteration in each format and keeps the faster; a near tie goes to
    float32 (bf16 must be 1.2x faster), and one slow time of the faster format (its process
    lost the core) does not decide it.
    Its clock is replaced here, so each case is decided by the times it is given."""
    from playground import optim
    from playground.runtime import device

    cases = [([0.01], [0.02], torch.bfloat16), ([0.30], [0.01], torch.float32),
             ([0.01], [0.01], torch.float32), ([0.009], [0.010], torch.float32),
             # float32's first time caught the process without its core: 0.30 against 0.10
             ([0.10], [0.30, 0.01], torch.float32)]
    for bf16_s, fp32_s, expected in cases:
        times = {torch.bfloat16: list(bf16_s), torch.float32: list(fp32_s)}

        def fake_seconds(work, place, times=times):
            # the work is one iteration; its result's format says which format was timed
            said = times[work().dtype]
            return said.pop(0) if len(said) > 1 else said[0]

        monkeypatch.setattr(device, "timed_seconds", fake_seconds)
        optim.newton_schulz_dtype.cache_clear()
        assert optim.newton_schulz_dtype("cpu", 8, 24) == expected, (bf16_s, fp32_s)
    optim.newton_schulz_dtype.cache_clear()


def test_a_muon_step_records_the_format_each_shape_ran_in():
    model = tiny_model()
    opt = build_optimizer(model, muon_config(), "cpu")
    for p in hidden_matrices(model):
        p.grad = torch.randn_like(p)
    opt.step()
    d = model.config.n_embd
    assert set(opt.muon.formats) == {(d, 3 * d), (d, d), (d, 4 * d)}
    assert set(opt.muon.formats.values()) <= {torch.bfloat16, torch.float32}


def test_polar_express_coefficients_bring_every_singular_value_near_one():
    """The five published (a, b, c) (Amsel et al., 2025), composed on singular values from 1e-3
    to 1 after the 1.02 margin, end within 0.84-1.15 of 1; torch's one set, five times, leaves
    some at 0.47. And the batched iterations with them equal the same written out in float64."""
    assert len(POLAR_EXPRESS) == 5 and POLAR_EXPRESS[0] == (8.156554524902461,
                                                           -22.48329292557795,
                                                           15.878769915207462)
    sigma = torch.logspace(-3, 0, 500, dtype=torch.float64)

    def composed(s, schedule):
        for a, b, c in schedule:
            s = a * s + b * s ** 3 + c * s ** 5
        return s

    polar = composed(sigma / POLAR_EXPRESS_NORM_MARGIN, POLAR_EXPRESS)
    torch_once = composed(sigma, [(3.4445, -4.775, 2.0315)] * 5)
    assert 0.84 < polar.min() and polar.max() < 1.15
    assert torch_once.min() < 0.5

    torch.manual_seed(0)
    updates = [torch.randn(s) for s in [(384, 128), (128, 128)]]
    group = BatchedMuon([torch.nn.Parameter(u) for u in updates]).param_groups[0]
    ours = _orthogonalised(updates, group, dtype=torch.float32, polar_express=True)
    for u, o in zip(updates, ours):
        x = u.double().mT if u.size(0) > u.size(1) else u.double()
        x = x / (x.norm() * POLAR_EXPRESS_NORM_MARGIN)
        for a, b, c in POLAR_EXPRESS:
            gram = x @ x.mT
            x = a * x + (b * gram + c * gram @ gram) @ x
        exact = x.mT if u.size(0) > u.size(1) else x
        assert (o.double() - exact).norm() / exact.norm() < 1e-4
        singular = torch.linalg.svdvals(o.double())
        assert singular.max() < 1.15
        if u.size(0) != u.size(1):  # a square Gaussian has singular values near 0, far below 1e-3
            assert singular.min() > 0.84


def test_polar_express_is_the_trainers_switch():
    model = tiny_model()
    on = build_optimizer(model, muon_config(polar_express=True), "cpu")
    off = build_optimizer(model, muon_config(), "cpu")
    assert on.muon.polar_express and not off.muon.polar_express
