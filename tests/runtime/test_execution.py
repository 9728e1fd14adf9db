"""Runs that share one process (visitors of one Space): each keeps its own randomness and its
own CPU thread count, so two runs side by side give exactly what each gives alone, and the
process is left as it was found."""

import threading

import pytest
import torch

from playground.checkpoint import load_bundle, save_bundle
from playground.config import TrainConfig
from playground.model import Dropout
from playground.runtime.execution import cpu_threads, with_threads
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, Trainer

from checks import TINY_RUN, VOCAB, tiny_model, token_stream

IDS = token_stream()
# dropout on every site (embeddings, attention weights, residual branches, feed-forward)
DROPOUT = dict(dropout=0.2, n_layer=2)


def config(seed=0, **changes):
    return TrainConfig(**{**TINY_RUN, "max_steps": 8, "batch_size": 4, "warmup_steps": 2,
                          "eval_interval": 4, "eval_iters": 2, "seed": seed, **changes})


def trainer(seed=0, **changes):
    """A trainer of a two-layer model with dropout, weights and batches both from ``seed``."""
    return Trainer(tiny_model(seed, **DROPOUT), IDS[:500], IDS[500:], config(seed, **changes))


def weights(t: Trainer) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in t.model.state_dict().items()}


def losses(records) -> list[float]:
    return [r.loss for r in records if hasattr(r, "loss")]


def assert_same_weights(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


@pytest.fixture(scope="module")
def alone():
    """Each of two runs (seeds 1 and 2) trained by itself: its losses and final weights."""
    out = {}
    for seed in (1, 2):
        t = trainer(seed)
        out[seed] = (losses(t.run()), weights(t))
    return out


# --- dropout from the run's own generator ---------------------------------------------------

def test_our_dropout_draws_the_masks_pytorchs_dropout_draws():
    """With the global generator (no generator given), the same numbers as ``nn.Dropout``; with
    a generator seeded alike, the same numbers again, and the global generator untouched."""
    x = torch.randn(3, 5, 7, requires_grad=True)
    torch.manual_seed(11)
    reference = torch.nn.Dropout(0.3)(x)
    torch.manual_seed(11)
    assert torch.equal(Dropout(0.3)(x), reference)
    ours = Dropout(0.3)
    ours.generator = torch.Generator().manual_seed(11)
    before = torch.get_rng_state()
    assert torch.equal(ours(x), reference)
    assert torch.equal(torch.get_rng_state(), before)
    reference.sum().backward()  # the gradient flows through the kept values only, scaled
    assert torch.equal(x.grad, (reference != 0).float() / 0.7)


def test_a_run_with_dropout_leaves_the_global_generator_untouched():
    t = trainer(3)
    torch.manual_seed(1234)
    before = torch.get_rng_state()
    records = list(t.run())
    assert isinstance(records[-1], EndRecord) and records[-1].reason == "done"
    assert torch.equal(torch.get_rng_state(), before)


def test_a_runs_result_does_not_depend_on_the_global_generator(alone):
    """Whatever the global generator's state when a run is built and while it trains (another
    visitor's code drawing from it), the run gives its own numbers."""
    model = tiny_model(1, **DROPOUT)
    torch.manual_seed(999)  # after the model: only dropout could have read it
    t = Trainer(model, IDS[:500], IDS[500:], config(1))
    got = []
    for record in t.run():
        torch.rand(17)  # someone else's draw between every two records
        got.append(record)
    assert losses(got) == alone[1][0]
    assert_same_weights(weights(t), alone[1][1])


def test_two_runs_interleaved_step_by_step_equal_each_run_alone(alone):
    a, b = trainer(1), trainer(2)
    got = {1: [], 2: []}
    runs = {1: a.run(), 2: b.run()}
    while runs:
        for seed in list(runs):  # one record of each in turn, as a round-robin server would
            record = next(runs[seed], None)
            if record is None:
                del runs[seed]
            else:
                got[seed].append(record)
    for seed, t in ((1, a), (2, b)):
        assert losses(got[seed]) == alone[seed][0]
        assert_same_weights(weights(t), alone[seed][1])


def test_two_runs_in_two_threads_at_once_equal_each_run_alone(alone):
    trainers = {1: trainer(1), 2: trainer(2)}
    got, errors = {}, []
    start = threading.Barrier(2)

    def train(seed):
        try:
            start.wait()
            got[seed] = losses(trainers[seed].run())
        except BaseException as error:  # reported below, in the test's own thread
            errors.append(error)

    threads = [threading.Thread(target=train, args=(seed,)) for seed in trainers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors and set(got) == {1, 2}
    for seed, t in trainers.items():
        assert got[seed] == alone[seed][0]
        assert_same_weights(weights(t), alone[seed][1])


def test_a_run_resumed_from_a_bundle_with_dropout_equals_the_straight_run(alone, tmp_path):
    tok = train_tokenizer("char", "".join(chr(65 + i) for i in range(VOCAB)))
    first = trainer(1)
    head = losses(first.run(max_steps=5))  # 5 of 8 steps, between two evaluations
    path = save_bundle(tmp_path / "half.zip", first.model, tok, first.config, first.history,
                       first.state_dict())
    torch.manual_seed(5)  # the process's generator moved on meanwhile: it must not matter
    bundle = load_bundle(path)
    second = Trainer(bundle.model, IDS[:500], IDS[500:], bundle.train_config)
    second.load_state_dict(bundle.trainer_state)
    tail = losses(second.run())
    assert head + tail == alone[1][0]
    assert_same_weights(weights(second), alone[1][1])


def test_an_older_bundles_torch_rng_continues_as_the_dropout_stream():
    """Bundles written before the trainer had its own dropout generator saved the global CPU
    generator's state as ``torch_rng``: on the CPU that was the stream dropout drew from, and
    it is the stream a resumed run draws from now."""
    first = trainer(1)
    list(first.run(max_steps=3))
    state = first.state_dict()
    older = torch.Generator().manual_seed(77)
    torch.rand(5, generator=older)  # some way into its stream
    state["torch_rng"] = older.get_state()
    second = trainer(1)
    second.load_state_dict(state)
    assert torch.equal(second.dropout_rng.get_state(), older.get_state())


# --- threads held while computing, restored around every record ----------------------------

def threads_seen_in_forward(t: Trainer) -> list[int]:
    """Records PyTorch's thread count inside every forward pass of ``t``'s model."""
    seen = []
    t.model.register_forward_pre_hook(lambda module, args: seen.append(torch.get_num_threads()))
    return seen


@pytest.fixture()
def two_threads():
    """The process at 2 CPU threads; whatever a test does, put back afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield 2
    torch.set_num_threads(before)


def test_a_run_computes_with_its_threads_and_hands_back_the_processes_between_records(two_threads):
    t = trainer(1, threads=1)
    assert t.threads == 1
    inside = threads_seen_in_forward(t)
    between = [torch.get_num_threads() for _ in t.run()]
    assert inside and set(inside) == {1}  # every step and evaluation batch
    assert set(between) == {two_threads}
    assert torch.get_num_threads() == two_threads


def test_threads_are_restored_when_a_run_is_closed_midway_or_fails(two_threads):
    t = trainer(1, threads=1)
    run = t.run()
    next(run), next(run)
    run.close()  # a visitor closed the tab
    assert torch.get_num_threads() == two_threads

    failing = trainer(1, threads=1)

    def fail(module, args):
        if failing.step == 2:
            raise RuntimeError("the machine had a bad moment")

    failing.model.register_forward_pre_hook(fail)
    records = list(failing.run())
    assert records[-1].reason == "error"
    assert torch.get_num_threads() == two_threads


def test_threads_are_restored_when_an_error_escapes_the_run(two_threads):
    def escaping():
        yield torch.get_num_threads()
        raise KeyboardInterrupt  # not an Exception: the trainer lets it through

    seen = []
    with pytest.raises(KeyboardInterrupt):
        for n in with_threads(escaping(), 1):
            seen.append(n)
    assert seen == [1] and torch.get_num_threads() == two_threads


def test_a_runs_threads_are_capped_at_the_containers_cpus(monkeypatch, two_threads):
    from playground.runtime import execution

    monkeypatch.setattr(execution, "cpu_limit", lambda: 1)
    assert trainer(1, threads=1024).threads == 1
    assert trainer(1, threads=0).threads == 1  # PyTorch's own choice (2 here), capped too
    assert torch.get_num_threads() == two_threads  # building a trainer sets nothing


def test_cpu_threads_restores_the_count_on_an_exception(two_threads):
    with pytest.raises(ValueError):
        with cpu_threads(1):
            assert torch.get_num_threads() == 1
            raise ValueError("inside")
    assert torch.get_num_threads() == two_threads
