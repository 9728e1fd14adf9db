"""The training loop: schedule, repeatability, failures, resuming, and that it learns."""

import dataclasses
import json
import math
import pickle
import threading

import pytest
import torch

from playground.checkpoint import load_bundle, records_from_json, records_to_json, save_bundle
from playground.config import PRESETS, ConfigError, ModelConfig, TrainConfig, replace
from playground.i18n import Message, error_text, localize
from playground import train
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground.train import (
    START_SAMPLE_TOKENS,
    EndRecord,
    EvalRecord,
    StepRecord,
    Trainer,
    bits_per_char,
    lr_at,
    prepare_data,
    random_state_after_init,
)

from checks import BLOCK, CJK, VOCAB, assert_translated, tiny_model, token_stream

def tiny_config(**changes) -> TrainConfig:
    cfg = dict(max_steps=12, batch_size=4, lr=1e-2, min_lr=1e-3, warmup_steps=2,
               eval_interval=5, eval_iters=2, device="cpu", dtype="float32")
    return TrainConfig(**{**cfg, **changes})


def make_trainer(model=None, config=None, **kwargs) -> Trainer:
    ids = token_stream()
    return Trainer(model or tiny_model(), ids[:500], ids[500:], config or tiny_config(), **kwargs)


def step_losses(records) -> list[float]:
    return [r.loss for r in records if isinstance(r, StepRecord)]


def weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def assert_same_weights(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name


# ---------------------------------------------------------------------------------------------
# The schedule


def test_lr_schedule_warms_up_linearly_then_follows_a_cosine_to_min_lr():
    cfg = TrainConfig(max_steps=110, lr=1e-3, min_lr=1e-4, warmup_steps=10)
    assert lr_at(0, cfg) == pytest.approx(1e-3 * 1 / 11)
    assert lr_at(9, cfg) == pytest.approx(1e-3 * 10 / 11)
    assert lr_at(10, cfg) == pytest.approx(1e-3)  # the peak, right after warmup
    assert lr_at(60, cfg) == pytest.approx(0.5 * (1e-3 + 1e-4))  # halfway down the cosine
    assert lr_at(35, cfg) == pytest.approx(1e-4 + 0.5 * (1 + math.cos(math.pi / 4)) * 9e-4)
    assert lr_at(110, cfg) == pytest.approx(1e-4)
    assert lr_at(10_000, cfg) == pytest.approx(1e-4)
    lrs = [lr_at(s, cfg) for s in range(10, 111)]
    assert all(a >= b for a, b in zip(lrs, lrs[1:]))  # never rises after the warmup


def test_lr_schedule_edge_cases():
    no_warmup = TrainConfig(max_steps=100, lr=1e-3, min_lr=1e-4, warmup_steps=0)
    assert lr_at(0, no_warmup) == pytest.approx(1e-3)
    decay_first = TrainConfig(max_steps=1000, lr=1e-3, min_lr=1e-4, warmup_steps=0, lr_decay_steps=50)
    assert lr_at(50, decay_first) == pytest.approx(1e-4)  # lr_decay_steps overrides max_steps
    long_warmup = TrainConfig(max_steps=20, lr=1e-3, min_lr=1e-4, warmup_steps=50)
    assert lr_at(19, long_warmup) == pytest.approx(1e-3 * 20 / 51)  # still warming up: no crash


def test_the_steps_use_the_schedule():
    cfg = tiny_config(max_steps=8, warmup_steps=3)
    records = list(make_trainer(config=cfg).run())
    assert [r.lr for r in records if isinstance(r, StepRecord)] == [lr_at(s, cfg) for s in range(8)]


def test_bits_per_char_converts_nats_per_token():
    assert bits_per_char(math.log(2), 1.0) == pytest.approx(1.0)
    assert bits_per_char(math.log(2) * 4, 2.0) == pytest.approx(2.0)


# ---------------------------------------------------------------------------------------------
# Records and repeatability


def test_a_run_yields_steps_evaluations_and_one_end_record():
    trainer = make_trainer(config=tiny_config(max_steps=12, eval_interval=5))
    records = list(trainer.run())
    evals = [r for r in records if isinstance(r, EvalRecord)]
    steps = [r for r in records if isinstance(r, StepRecord)]
    assert [e.step for e in evals] == [0, 5, 10, 12]  # before training, every 5, at the end
    assert [s.step for s in steps] == list(range(1, 13))
    assert [s.tokens for s in steps] == [k * 4 * BLOCK for k in range(1, 13)]
    assert isinstance(records[0], EvalRecord) and records[-1] == EndRecord(12, "done", records[-1].message)
    assert all(s.tokens_per_s > 0 and math.isfinite(s.loss) for s in steps)
    assert all(a.elapsed <= b.elapsed for a, b in zip(records[:-1], records[1:]) if hasattr(a, "elapsed") and hasattr(b, "elapsed"))
    for e in evals:
        assert e.val_bpc == pytest.approx(e.val_loss / math.log(2))  # chars_per_token = 1
        assert e.sample is None
    assert evals[-1].val_loss < evals[0].val_loss
    assert trainer.done and trainer.step == 12


def test_bits_per_char_use_each_splits_own_characters_per_token():
    trainer = make_trainer(config=tiny_config(max_steps=2), chars_per_token=(2.5, 1.7))
    ev = next(r for r in trainer.run() if isinstance(r, EvalRecord))
    assert ev.train_bpc == pytest.approx(ev.train_loss / math.log(2) / 2.5)
    assert ev.val_bpc == pytest.approx(ev.val_loss / math.log(2) / 1.7)


@pytest.mark.parametrize("stream", ["separate", "nanogpt"])
def test_same_seed_repeats_exactly_and_another_seed_differs(stream):
    runs = []
    for seed in (7, 7, 8):
        model = tiny_model(dropout=0.1)
        records = list(make_trainer(model, tiny_config(seed=seed, rng_stream=stream)).run())
        runs.append((step_losses(records), weights(model)))
    assert runs[0][0] == runs[1][0]
    assert_same_weights(runs[0][1], runs[1][1])
    assert runs[0][0] != runs[2][0]


def test_evaluating_does_not_change_the_training_batches():
    often = list(make_trainer(config=tiny_config(eval_interval=1)).run())
    rarely = list(make_trainer(config=tiny_config(eval_interval=1000)).run())
    assert step_losses(often) == step_losses(rarely)


def batch_starts(trainer) -> list[list[int]]:
    """The windows' starts of every training step of a whole run of ``trainer``."""
    seen, gather = [], trainer._gather

    def spy(ids, starts):
        if starts is trainer._next_starts:  # a training step's (evaluations draw their own)
            seen.append(starts.tolist())
        return gather(ids, starts)

    trainer._gather = spy
    list(trainer.run())
    return seen


def test_separate_streams_give_every_model_the_same_batches():
    """What a comparison of one change needs: the model alone differs, not the data order."""
    runs = [batch_starts(make_trainer(tiny_model(**changes), tiny_config(eval_interval=3)))
            for changes in ({}, {"pos": "rope"}, {"activation": "swiglu", "n_layer": 2})]
    assert len(runs[0]) == 12 and runs[0] == runs[1] == runs[2]


def test_the_nanogpt_stream_continues_from_the_weights_draws():
    """nanoGPT's order: seed, initial weights, the first batch, evaluations between batches."""
    cfg = tiny_config(rng_stream="nanogpt", eval_interval=3)
    learned, rope = (batch_starts(make_trainer(tiny_model(pos=p), cfg)) for p in ("learned", "rope"))
    assert learned != rope  # a learned position table takes draws that RoPE does not

    g = torch.Generator()
    g.set_state(random_state_after_init(tiny_model().config, cfg.seed))
    spans = {"train": 500 - BLOCK, "val": 100 - BLOCK}  # make_trainer's split: 500 and 100

    def draw(split):
        return torch.randint(spans[split], (4,), generator=g).tolist()

    expected = []
    for done in range(12):  # the batch of step done + 1 is drawn before an evaluation at done
        expected.append(draw("train"))
        if done % 3 == 0:
            [draw(split) for split in ("train", "val") for _ in range(2)]  # eval_iters=2 each
    assert learned == expected
    assert random_state_after_init(tiny_model().config, cfg.seed).equal(
        random_state_after_init(tiny_model().config, cfg.seed))


def test_history_holds_every_record_itself_and_they_survive_json():
    trainer = make_trainer()
    records = list(trainer.run())
    assert trainer.history == records
    as_json = json.loads(json.dumps(records_to_json(trainer.history)))
    assert records_from_json(as_json, "run.zip") == records
    assert {r.kind for r in trainer.history} == {d["kind"] for d in as_json} == {"step", "eval", "end"}


def test_eval_records_carry_a_sample_when_asked():
    text = "abcdefghijklmnop" * 40
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, 0.1, block_size=BLOCK)
    trainer = Trainer(tiny_model(), train_ids, val_ids, tiny_config(max_steps=5, sample_tokens=12),
                      tokenizer=tok)
    samples = [r.sample for r in trainer.run() if isinstance(r, EvalRecord)]
    assert len(samples) == 2 and all(isinstance(s, str) and len(s) == 12 for s in samples)


def test_the_untrained_models_sample_is_one_line_and_later_ones_as_long_as_asked():
    text = "abcdefghijklmnop" * 40
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, 0.1, block_size=BLOCK)
    asked = START_SAMPLE_TOKENS + 20
    trainer = Trainer(tiny_model(), train_ids, val_ids, tiny_config(max_steps=5, sample_tokens=asked),
                      tokenizer=tok)
    samples = {r.step: r.sample for r in trainer.run() if isinstance(r, EvalRecord)}
    assert {step: len(s) for step, s in samples.items()} == {0: START_SAMPLE_TOKENS, 5: asked}


# ---------------------------------------------------------------------------------------------
# Learning


def test_a_single_batch_can_be_overfit():
    ids = torch.randint(VOCAB, (BLOCK + 1,))  # exactly one window: every batch is the same
    cfg = tiny_config(max_steps=60, batch_size=2, lr=2e-2, min_lr=2e-2, warmup_steps=0,
                      weight_decay=0.0, eval_interval=60)
    records = list(Trainer(tiny_model(n_embd=32), ids, ids, cfg).run())
    assert step_losses(records)[0] > 2.0  # about ln(16) = 2.77 at the start
    assert records[-2].train_loss < 0.01


def test_grad_accum_gives_the_same_steps_as_one_big_batch():
    results = []
    for accum in (1, 2):
        model = tiny_model()
        records = list(make_trainer(model, tiny_config(batch_size=8, grad_accum=accum)).run())
        results.append((step_losses(records), weights(model)))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-5)
    for name, w in results[0][1].items():
        torch.testing.assert_close(results[1][1][name], w, rtol=1e-4, atol=1e-5)


def test_label_smoothing_reaches_the_loss():
    plain = step_losses(make_trainer(config=tiny_config(max_steps=1)).run())
    smoothed = step_losses(make_trainer(config=tiny_config(max_steps=1, label_smoothing=0.5)).run())
    assert smoothed[0] != plain[0]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_mixed_precision_trains_too(dtype):
    trainer = make_trainer(config=tiny_config(dtype=dtype))
    records = list(trainer.run())
    evals = [r for r in records if isinstance(r, EvalRecord)]
    assert records[-1].reason == "done" and evals[-1].val_loss < evals[0].val_loss
    assert trainer.dtype == getattr(torch, dtype)
    assert ("scaler" in trainer.state_dict()) == (dtype == "float16")  # fp16 scales its loss
    assert all(p.dtype == torch.float32 for p in trainer.model.parameters())  # weights stay fp32


@pytest.mark.slow
def test_tiny_preset_learns_tiny_shakespeare(shakespeare_text):
    """The `tiny` preset as shipped, on the whole text: validation loss well below 2.5.

    The run stops at the first evaluation below 2.25 (step 200 of 600 here), to keep the
    suite short; the whole run ends near 2.0.
    """
    preset = PRESETS["tiny"]
    tok = train_tokenizer("char", shakespeare_text)
    train_ids, val_ids = prepare_data(shakespeare_text, tok, preset.train.val_fraction)
    torch.manual_seed(preset.train.seed)
    model = GPT(replace(preset.model, vocab_size=tok.vocab_size))
    cfg = replace(preset.train, device="cpu", dtype="float32", sample_tokens=0)
    trainer = Trainer(model, train_ids, val_ids, cfg)
    evals = []
    for record in trainer.run():
        if isinstance(record, EvalRecord):
            evals.append(record)
            if record.val_loss < 2.25:
                trainer.stop()
    assert evals[0].val_loss > 4.0  # about ln(65) = 4.17 before training
    assert evals[-1].val_loss < 2.25
    assert record.reason in ("stopped", "done")


# ---------------------------------------------------------------------------------------------
# Stopping and failures


def test_stop_ends_the_run_after_the_current_step_and_run_continues_later():
    trainer = make_trainer()
    records = []
    for record in trainer.run():
        records.append(record)
        if isinstance(record, StepRecord) and record.step == 3:
            trainer.stop()
    assert records[-1].reason == "stopped" and records[-1].step == 3 == trainer.step
    assert torch.isfinite(trainer.model(torch.zeros(1, 4, dtype=torch.long)).logits).all()
    rest = list(trainer.run())  # the flag is spent: the run goes on to the end
    assert rest[-1].reason == "done" and trainer.step == 12
    assert [r.step for r in rest if isinstance(r, StepRecord)] == list(range(4, 13))


def test_stop_from_another_thread():
    trainer = make_trainer(config=tiny_config(max_steps=100_000, eval_interval=100_000))
    first_step = threading.Event()

    def consume():
        for record in trainer.run():
            if isinstance(record, StepRecord):  # (a Stop inside a step drops that step)
                first_step.set()
            consume.last = record

    worker = threading.Thread(target=consume)
    worker.start()
    assert first_step.wait(timeout=60)
    trainer.stop()
    worker.join(timeout=60)
    assert not worker.is_alive()
    assert consume.last.reason == "stopped" and 0 < trainer.step < 100_000


def fail_at_step(model, k, make_result):
    """Make the k-th training forward pass return ``make_result(output)`` (or raise)."""
    forward = model.forward
    calls = {"train": 0}

    def patched(*args, **kwargs):
        out = forward(*args, **kwargs)
        if model.training:
            calls["train"] += 1
            if calls["train"] == k:
                return make_result(out)
        return out

    model.forward = patched


def test_a_nan_loss_stops_at_once_and_keeps_the_last_good_weights():
    model = tiny_model()
    fail_at_step(model, 6, lambda out: out._replace(loss=out.loss * float("nan")))
    trainer = make_trainer(model)
    good = None
    for record in trainer.run():
        if isinstance(record, StepRecord) and record.step == 5:
            good = weights(model)
    end = record
    assert end.reason == "nan" and end.step == 5 == trainer.step
    assert "step 6" in end.message and "lr=" in end.message
    assert_same_weights(weights(model), good)
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert all(p.grad is None for p in model.parameters())


def test_an_infinite_loss_counts_as_not_finite_too():
    model = tiny_model()
    fail_at_step(model, 1, lambda out: out._replace(loss=out.loss + float("inf")))
    end = list(make_trainer(model).run())[-1]
    assert end.reason == "nan" and end.step == 0 and "inf" in end.message


@pytest.mark.parametrize("error", [
    torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB"),
    RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory"),
    MemoryError(),
])
def test_out_of_memory_ends_the_run_with_advice_and_the_model_lives_on(error):
    model = tiny_model()

    def boom(out):
        raise error

    fail_at_step(model, 4, boom)
    trainer = make_trainer(model)
    records = list(trainer.run())
    end = records[-1]
    assert end.reason == "oom" and end.step == 3 == trainer.step
    assert "batch_size" in end.message and "block_size" in end.message
    assert all(p.grad is None for p in model.parameters())
    rest = list(trainer.run())  # the patched step has passed: training can go on
    assert rest[-1].reason == "done" and trainer.step == 12


def test_an_unexpected_error_ends_the_run_with_its_message():
    model = tiny_model()

    def boom(out):
        raise ValueError("something odd")

    fail_at_step(model, 2, boom)
    end = list(make_trainer(model).run())[-1]
    assert end.reason == "error" and end.step == 1 and "something odd" in end.message
    assert torch.isfinite(model(torch.zeros(1, 4, dtype=torch.long)).logits).all()


# ---------------------------------------------------------------------------------------------
# Resuming


@pytest.mark.parametrize("stream", ["separate", "nanogpt"])
def test_chunked_runs_equal_one_straight_run(stream):
    cfg = tiny_config(rng_stream=stream)
    straight_model = tiny_model(dropout=0.1)
    straight = step_losses(make_trainer(straight_model, cfg).run())
    model = tiny_model(dropout=0.1)
    trainer = make_trainer(model, cfg)
    chunks = []
    for n in (4, 5, 100):
        records = list(trainer.run(max_steps=n))
        chunks += step_losses(records)
    assert records[-1].reason == "done" and trainer.done
    assert chunks == straight
    assert_same_weights(weights(model), weights(straight_model))


@pytest.mark.parametrize("stream", ["separate", "nanogpt"])
def test_resume_from_a_bundle_equals_one_straight_run(tmp_path, stream):
    text = "the quick brown fox jumps over the lazy dog. " * 30
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, 0.2, block_size=BLOCK)
    # 8 steps then 6: the first part ends on an evaluation, which drew the next batch early
    cfg = tiny_config(max_steps=14, eval_interval=4, rng_stream=stream)

    def model(seed):
        return tiny_model(seed, vocab_size=tok.vocab_size, dropout=0.1)

    straight_model = model(0)
    straight = list(Trainer(straight_model, train_ids, val_ids, cfg).run())

    first = Trainer(model(0), train_ids, val_ids, cfg)
    head = list(first.run(max_steps=8))
    path = save_bundle(tmp_path / "run.zip", first.model, tok, cfg, first.history, first.state_dict())
    torch.manual_seed(123)  # whatever happened in between must not matter
    bundle = load_bundle(path)
    resumed = Trainer(bundle.model, train_ids, val_ids, bundle.train_config)
    resumed.load_state_dict(bundle.trainer_state)
    tail = list(resumed.run())

    assert resumed.step == 14 and tail[-1].reason == "done"
    assert step_losses(head) + step_losses(tail) == step_losses(straight)
    straight_evals = [(r.step, r.val_loss) for r in straight if isinstance(r, EvalRecord)]
    resumed_evals = [(r.step, r.val_loss) for r in head + tail if isinstance(r, EvalRecord)]
    assert resumed_evals == straight_evals
    assert_same_weights(weights(bundle.model), weights(straight_model))
    assert resumed.history[: len(head)] == head


# ---------------------------------------------------------------------------------------------
# Data and refusals


def test_prepare_data_splits_the_tokens_contiguously():
    text = "hello world, " * 20
    tok = train_tokenizer("char", text)
    train_ids, val_ids = prepare_data(text, tok, 0.25)
    assert train_ids.dtype == val_ids.dtype == torch.long
    assert len(train_ids) == 195 and len(val_ids) == 65
    assert tok.decode(torch.cat([train_ids, val_ids]).tolist()) == text


def test_prepare_data_refuses_a_validation_part_shorter_than_one_window():
    text = "abcdefgh" * 10
    tok = train_tokenizer("char", text)
    with pytest.raises(ConfigError, match="validation part .* 8 tokens .* block_size"):
        prepare_data(text, tok, 0.1, block_size=32)


def test_the_trainer_refuses_data_that_does_not_fit_the_model():
    ids = token_stream()
    with pytest.raises(ConfigError, match="model knows only 16 tokens"):
        Trainer(tiny_model(), ids + 1, ids, tiny_config())
    with pytest.raises(ConfigError, match="training part .* block_size"):
        Trainer(tiny_model(), ids[:BLOCK], ids, tiny_config())


# ---------------------------------------------------------------------------------------------
# What the trainer says, in English and in Chinese


def _raises(make) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        make()
    return info.value


@pytest.mark.parametrize("make, english, kept", [
    (lambda: prepare_data("abc", None, val_fraction=1.5),
     "val_fraction must be between 0 and 1, got 1.5.", ["val_fraction", "1.5"]),
    (lambda: prepare_data("abcdefgh" * 10, train_tokenizer("char", "abcdefgh"), 0.1, block_size=32),
     "The validation part of the text is 8 tokens long, but each training window needs "
     "block_size + 1 = 33 tokens. Use a longer text, a smaller block_size, or a different "
     "val_fraction.", ["8", "block_size + 1 = 33", "val_fraction", "验证"]),
    (lambda: Trainer(tiny_model(), token_stream()[:BLOCK], token_stream(), tiny_config()),
     "The training part of the text is 16 tokens long, but each training window needs "
     "block_size + 1 = 17 tokens. Use a longer text, a smaller block_size, or a different "
     "val_fraction.", ["16", "17", "训练"]),
    (lambda: Trainer(tiny_model(), token_stream() + 1, token_stream(), tiny_config()),
     "The training tokens run from 1 to 16, but the model knows only 16 tokens (0 to 15). "
     "Build the model with the tokenizer's vocab_size.", ["1", "16", "15", "vocab_size"]),
    (lambda: make_trainer(chars_per_token=(1.5, 0)),
     "chars_per_token must be positive, got (1.5, 0).", ["chars_per_token", "1.5", "0"]),
])
def test_data_errors_keep_their_english_and_have_chinese(make, english, kept):
    assert_translated(_raises(make), english, kept)


def _end(records) -> EndRecord:
    end = records[-1]
    assert isinstance(end, EndRecord) and isinstance(end.message, Message)
    return end


def _nan_at_second_step(out):
    return out._replace(loss=out.loss * float("nan"))


def _raise(error):
    def boom(out):
        raise error
    return boom


def _paused():
    return _end(list(make_trainer(config=tiny_config(max_steps=1234)).run(max_steps=3)))


def _stopped():
    trainer = make_trainer()
    trainer.stop()
    return _end(list(trainer.run()))


def _failing(make_result, **config):
    model = tiny_model()
    fail_at_step(model, 2, make_result)
    return _end(list(make_trainer(model, tiny_config(**config)).run()))


@pytest.mark.parametrize("run, english, kept", [
    (lambda: _end(list(make_trainer().run())), "Finished all 12 steps.", ["12"]),
    (_paused, "Paused at step 3 of 1,234; run() continues.", ["3", "1,234", "run()"]),
    (_stopped, "Stopped at step 0 as asked.", ["0"]),
    (lambda: _failing(_nan_at_second_step, lr=3e-3, min_lr=3e-4, warmup_steps=1, grad_clip=0.0),
     "The loss became nan at step 2, so training stopped there. The weights are those from "
     "before that step. A learning rate that is too high is the usual cause: try lr=0.001 "
     "(this step used 0.003), or turn on grad_clip=1.0.",
     ["nan", "2", "lr=0.001", "0.003", "grad_clip=1.0"]),
    (lambda: _failing(_nan_at_second_step, warmup_steps=1),
     "The loss became nan at step 2, so training stopped there. The weights are those from "
     "before that step. A learning rate that is too high is the usual cause: try lr=0.00333 "
     "(this step used 0.01).", ["nan", "lr=0.00333", "0.01"]),
    (lambda: _failing(_raise(MemoryError())),
     "Ran out of memory at step 2 on cpu. Try a smaller batch_size (now 4), more grad_accum "
     "micro-batches, a shorter block_size (now 16) or a smaller model. The weights from step 1 "
     "are kept.", ["2", "cpu", "batch_size", "4", "block_size", "16", "1"]),
    (lambda: _failing(_raise(ValueError("something odd"))),
     "Training failed at step 2: ValueError: something odd. The weights from step 1 are kept.",
     ["2", "ValueError", "something odd", "1"]),
])
def test_end_messages_keep_their_english_and_have_chinese(run, english, kept):
    end = run()
    assert end.message == english
    chinese = localize(end.message, "zh-CN")
    assert CJK.search(chinese) and chinese != english
    assert all(value in chinese for value in kept), chinese


def test_a_failure_raised_with_a_message_is_translated_inside_the_end_message():
    with pytest.raises(ConfigError) as info:  # any engine error raised with a Message
        ModelConfig(n_layer=0)
    end = _failing(_raise(info.value))
    # the reason is a sentence already: one full stop after it, not two
    assert end.message == ("Training failed at step 2: ConfigError: n_layer must be between 1 "
                           "and 256, got 0. The weights from step 1 are kept.")
    assert error_text(info.value, "zh-CN") in localize(end.message, "zh-CN")


def test_an_end_message_survives_history_pickling_and_json():
    trainer = make_trainer(config=tiny_config(max_steps=2))
    end = _end(list(trainer.run()))
    as_dict = dataclasses.asdict(end)
    assert localize(as_dict["message"], "zh-CN") == localize(end.message, "zh-CN")
    again = pickle.loads(pickle.dumps(end))
    assert again == end and localize(again.message, "zh-CN") == localize(end.message, "zh-CN")
    assert records_from_json(json.loads(json.dumps(records_to_json(trainer.history))), "run.zip")[-1] == end


def _stop_at_eval_batch(trainer, batch: int) -> list[int]:
    """Make the ``batch``-th evaluation forward pass ask the trainer to stop; returns the count
    of evaluation forward passes, which grows as they run."""
    calls = [0]

    def hook(module, inputs):
        if not module.training:
            calls[0] += 1
            if calls[0] == batch:
                trainer.stop()

    trainer.model.register_forward_pre_hook(hook)
    return calls


@pytest.mark.parametrize("where", ["forward", "backward"])
@pytest.mark.parametrize("stream", ["separate", "nanogpt"])
def test_stop_in_the_middle_of_a_step_drops_it_and_the_run_resumes_exactly(stream, where):
    """One step of a big model takes minutes on a CPU: Stop ends it between two blocks, on the
    way in or on the way back, and the step is dropped, so the run ends at the step before
    and, resumed, goes on exactly as a straight run (same batch, same dropout masks)."""
    model_cfg = dict(dropout=0.2, n_layer=2)
    config = tiny_config(max_steps=8, eval_interval=100, rng_stream=stream)
    straight = make_trainer(model=tiny_model(**model_cfg), config=config)
    straight_records = list(straight.run())

    trainer = make_trainer(model=tiny_model(**model_cfg), config=config)
    first = list(trainer.run(max_steps=3))
    asked = [False]
    second = trainer.model.blocks[1]

    def stop_now(*_):
        if trainer.model.training and not asked[0]:
            asked[0] = True
            trainer.stop()

    if where == "forward":  # block 0 has run, block 1 is next
        handle = trainer.model.blocks[0].register_forward_hook(stop_now)
    else:  # all forward done; the gradients have passed block 1 on their way back
        handle = second.register_full_backward_hook(stop_now)
    records = list(trainer.run())
    handle.remove()
    assert records == [EndRecord(3, "stopped", "Stopped at step 3 as asked.")]
    assert trainer.step == 3 and all(p.grad is None for p in trainer.model.parameters())

    rest = list(trainer.run())
    assert step_losses(first + rest) == step_losses(straight_records)
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(trainer.model.state_dict()[name], tensor), name


@pytest.mark.parametrize("stream", ["separate", "nanogpt"])
def test_stop_during_an_evaluation_ends_it_after_the_current_batch(stream):
    """A big evaluation (100 batches here; 400 of 64 x 256 for nanogpt-gpu) must not hold
    Stop for minutes: the run ends after the batch under way, and resumed, it goes on exactly
    as a run in which that evaluation never began (here: one evaluating at steps 0 and 8 only),
    with either random stream."""
    config = tiny_config(eval_iters=100, eval_interval=4, max_steps=8, rng_stream=stream)
    straight = make_trainer(config=tiny_config(eval_iters=100, eval_interval=8, max_steps=8,
                                               rng_stream=stream))
    straight_records = list(straight.run())

    trainer = make_trainer(config=config)
    first = list(trainer.run(max_steps=3))  # the evaluation at step 0, then 3 steps
    calls = _stop_at_eval_batch(trainer, 3)
    records = list(trainer.run())
    assert [type(r) for r in records] == [StepRecord, EndRecord]
    assert records[-1] == EndRecord(4, "stopped", "Stopped at step 4 as asked.")
    assert calls[0] == 3  # of the 200 evaluation batches (train and val) at step 4
    assert trainer.history[-1] == records[-1] and trainer.step == 4

    calls[0] = 10**9  # the hook stays, but asks for nothing more
    rest = list(trainer.run())
    assert [(r.step, r.train_loss, r.val_loss) for r in rest if isinstance(r, EvalRecord)] == [
        (r.step, r.train_loss, r.val_loss) for r in straight_records
        if isinstance(r, EvalRecord) and r.step == 8]
    assert step_losses(first + records + rest) == step_losses(straight_records)
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(trainer.model.state_dict()[name], tensor), name


def test_a_long_run_stopped_early_keeps_every_step_and_long_histories_are_thinned(monkeypatch):
    """A run of many planned steps stopped after a few keeps each of them (the history was
    thinned by max_steps: a 100,000-step run stopped at step 13 kept no step at all); past
    the limit every other step goes, the same in a straight run and in a resumed one."""
    monkeypatch.setattr(train, "STEP_HISTORY_LIMIT", 8)

    def trainer():
        return make_trainer(config=tiny_config(max_steps=100_000, eval_interval=100_000))

    def kept(history):
        return [r.step for r in history if isinstance(r, StepRecord)]

    short = trainer()
    list(short.run(max_steps=5))
    assert kept(short.history) == [1, 2, 3, 4, 5]
    straight = trainer()
    list(straight.run(max_steps=40))
    # 8 records at most: every step to 8, every 2nd to 16, 4th to 32, then every 8th
    assert kept(straight.history) == [8, 16, 24, 32, 40]
    resumed = trainer()
    list(resumed.run(max_steps=13))
    state = resumed.state_dict()
    again = trainer()
    again.load_state_dict(state)
    list(again.run(max_steps=27))
    assert kept(again.history) == kept(straight.history)


def test_the_first_evaluation_takes_first_eval_iters_batches_and_changes_no_step():
    """first_eval_iters sets the batches of the step-0 evaluation only; every later one takes
    eval_iters, and the training steps (their own stream) are those of a run without it."""
    runs = {}
    for first in (0, 1):
        torch.manual_seed(0)
        trainer = make_trainer(config=tiny_config(eval_iters=3, first_eval_iters=first))
        progress = [r for r in trainer.run(eval_progress=True) if type(r).__name__ == "EvalProgress"]
        totals = {}
        for p in progress:
            totals[p.step] = p.total
        runs[first] = (totals, step_losses(trainer.history))
    assert runs[0][0] == {0: 6, 5: 6, 10: 6, 12: 6}
    assert runs[1][0] == {0: 2, 5: 6, 10: 6, 12: 6}
    assert runs[0][1] == runs[1][1]
