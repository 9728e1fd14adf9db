"""The command line: a tiny run end to end, flags for every setting, resuming, and errors."""

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys

import pytest
import torch

from playground.checkpoint import load_bundle
from playground.cli import build_parser, main, settings_markdown
from playground.config import PRESETS, ModelConfig, TrainConfig
from playground.train import EvalRecord, StepRecord

from checks import REPO, tiny_flags


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_train_writes_a_bundle_that_generate_loads(tmp_path, corpus_file, capsys):
    bundle = tmp_path / "run.zip"
    status, out, err = run(capsys, "train", "--corpus", corpus_file, *tiny_flags(), "--max_steps", 20,
                           "--eval_interval", 10, "--pos", "rope", "--bias", "--sample_tokens", 8,
                           "--out", bundle)
    assert status == 0, err
    summary = last_json(out)
    assert summary["step"] == 20 and summary["eval_step"] == 20 and summary["reason"] == "done"
    assert summary["bundle"] == str(bundle) and bundle.exists()
    assert math.isfinite(summary["train_loss"]) and math.isfinite(summary["val_loss"])
    assert summary["val_bpc"] == pytest.approx(summary["val_loss"] / math.log(2))
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("step")] == [
        "step      0", "step     10", "step     20"]
    assert f"val loss {summary['val_loss']:.4f}" in out  # the final figures in words, too
    assert sum(line.startswith("    ") for line in out.splitlines()) >= 3  # a sample per eval

    loaded = load_bundle(bundle)
    assert loaded.model_config.n_layer == 1 and loaded.model_config.pos == "rope"
    assert loaded.model_config.bias is True  # a flag overrides the preset (tiny: bias off)
    assert loaded.train_config.max_steps == 20 and loaded.train_config.lr == PRESETS["tiny"].train.lr
    assert summary["params"] == loaded.model.num_params()
    assert loaded.trainer_state["step"] == 20

    status, text, err = run(capsys, "generate", bundle, "--prompt", "First", "--max_new_tokens", 30,
                            "--seed", 1)
    assert status == 0, err
    assert text.startswith("First") and len(text) == len("First") + 30 + 1  # one char per token
    greedy = [run(capsys, "generate", bundle, "--temperature", 0, "--max_new_tokens", 25, *cache)[1]
              for cache in ([], ["--no-cache"])]
    assert greedy[0] == greedy[1] and len(greedy[0]) == 26


def test_every_config_field_has_a_flag_of_the_same_name():
    parser = build_parser()
    train = parser._subparsers._group_actions[0].choices["train"]
    flags = {s for action in train._actions for s in action.option_strings}
    for cls in (ModelConfig, TrainConfig):
        for field in dataclasses.fields(cls):
            assert f"--{field.name}" in flags, field.name
    args = parser.parse_args(["train", "--no-tie_weights", "--compile", "--dropout", "0.1",
                              "--activation", "swiglu", "--threads", "1"])
    assert (args.tie_weights, args.compile, args.dropout, args.activation, args.threads) == (
        False, True, 0.1, "swiglu", 1)
    assert parser.parse_args(["train"]).n_embd is None  # not given: the preset decides


def test_each_flag_says_what_its_setting_does_then_the_presets_values():
    train = build_parser()._subparsers._group_actions[0].choices["train"]
    helps = {action.dest: action.help for action in train._actions}
    assert helps["n_layer"] == ("Number of Transformer blocks stacked on top of each other. "
                                "presets: " + ", ".join(f"{p.name} {p.model.n_layer}" for p in PRESETS.values()))
    assert "Pulls the weights gently towards zero" in train.format_help()  # argparse formats every help


def test_docs_settings_md_is_the_table_the_config_writes():
    text = (REPO / "docs" / "SETTINGS.md").read_text(encoding="utf-8")
    assert text == settings_markdown(), (
        "docs/SETTINGS.md differs from the config's texts: regenerate it with "
        "`python -m playground settings > docs/SETTINGS.md`")
    assert "| `n_layer` | layers (n_layer) | Number of Transformer blocks" in text
    assert "`learned`, `sinusoidal`, `rope`, `none`" in text  # pos's choices


def test_resume_continues_exactly_where_the_run_stopped(tmp_path, corpus_file, capsys):
    common = ["--corpus", corpus_file, *tiny_flags(), "--eval_interval", 10, "--lr_decay_steps", 20,
              "--dropout", "0.1"]
    status, out, _ = run(capsys, "train", *common, "--max_steps", 10, "--out", tmp_path / "a.zip")
    assert status == 0 and last_json(out)["step"] == 10
    status, out, _ = run(capsys, "train", "--resume", tmp_path / "a.zip", "--corpus", corpus_file,
                         "--max_steps", 20, "--out", tmp_path / "b.zip")
    assert status == 0
    resumed = last_json(out)
    assert "resuming" in out and resumed["step"] == 20 and resumed["steps_this_run"] == 10
    status, out, _ = run(capsys, "train", *common, "--max_steps", 20, "--out", tmp_path / "c.zip")
    straight = last_json(out)
    assert resumed["val_loss"] == straight["val_loss"]
    b, c = load_bundle(tmp_path / "b.zip"), load_bundle(tmp_path / "c.zip")
    for name, tensor in c.model.state_dict().items():
        assert torch.equal(b.model.state_dict()[name], tensor), name
    assert [r.loss for r in b.history if isinstance(r, StepRecord)] == [
        r.loss for r in c.history if isinstance(r, StepRecord)]


@pytest.mark.parametrize("argv, message", [
    (["--text", "to be or not to be " * 20, "--n_head", "3", "--n_embd", "16"], "divide evenly"),
    (["--text", "to be or not to be " * 20, "--lr", "-1"], "lr must be between"),
    (["--text", "to be or not to be " * 20, "--vocab_size", "300"], "--tokenizer bpe"),
    (["--text", "short text", "--block_size", "64"], "block_size"),
    (["--text", "   "], "empty"),
    (["--corpus", "no/such/file.txt"], "file.txt"),
])
def test_mistakes_exit_with_status_2_and_a_message_not_a_traceback(capsys, tmp_path, argv, message):
    status, out, err = run(capsys, "train", *argv, "--max_steps", 2, "--out", tmp_path / "x.zip")
    assert status == 2
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "x.zip").exists()


def test_resuming_refuses_a_new_model_shape_and_a_foreign_file(tmp_path, corpus_file, capsys):
    bundle = tmp_path / "a.zip"
    assert run(capsys, "train", "--corpus", corpus_file, *tiny_flags(), "--max_steps", 2, "--out", bundle)[0] == 0
    status, _, err = run(capsys, "train", "--resume", bundle, "--n_layer", 2)
    assert status == 2 and "--n_layer cannot change" in err
    status, _, err = run(capsys, "train", "--resume", bundle, "--corpus", corpus_file)
    assert status == 2 and "already trained 2 steps" in err
    not_a_bundle = tmp_path / "notes.zip"
    not_a_bundle.write_bytes(b"hello")
    status, _, err = run(capsys, "generate", not_a_bundle)
    assert status == 2 and err.startswith("error: ") and "Traceback" not in err


def test_unknown_choices_are_refused_by_argparse(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--pos", "spiral"])
    assert exit_info.value.code == 2 and "invalid choice: 'spiral'" in capsys.readouterr().err


def test_presets_and_info(tmp_path, corpus_file, capsys):
    status, out, _ = run(capsys, "presets")
    assert status == 0 and all(f"{name}:" in out for name in PRESETS)
    assert "804,096 parameters" in out  # nanogpt-cpu at 65 characters, as nanoGPT counts
    bundle = tmp_path / "a.zip"
    run(capsys, "train", "--corpus", corpus_file, *tiny_flags(), "--max_steps", 3, "--out", bundle)
    status, out, _ = run(capsys, "info", bundle)
    info = json.loads(out)
    assert status == 0 and info["step"] == 3 and info["model_config"]["n_embd"] == 16
    last = [r for r in load_bundle(bundle).history if isinstance(r, EvalRecord)][-1]
    assert last.step == 3 and info["last_eval"] == {"kind": "eval", **dataclasses.asdict(last)}


def test_the_module_entry_point_trains_and_ctrl_c_stops_and_saves(tmp_path, corpus_file):
    """One real process: `python -m playground train`, interrupted after its first evaluation."""
    bundle = tmp_path / "stopped.zip"
    cmd = [sys.executable, "-m", "playground", "train", "--corpus", str(corpus_file), *tiny_flags(),
           "--max_steps", "1000000", "--eval_interval", "1000000", "--out", str(bundle)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not (lines and lines[-1].startswith("step      0:")):
            line = proc.stdout.readline()
            assert line, f"the process ended early: {proc.stderr.read()}"
            lines.append(line)
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    summary = json.loads(rest.strip().splitlines()[-1])
    assert summary["reason"] == "stopped" and 0 <= summary["step"] < 1_000_000
    assert "Stopping after this step" in err and "Traceback" not in err
    assert load_bundle(bundle).trainer_state["step"] == summary["step"]


def test_a_nan_ends_the_run_with_status_1_and_still_saves_the_last_good_weights(
        tmp_path, corpus_file, capsys, monkeypatch):
    from playground.model import GPT

    forward, calls = GPT.forward, []

    def nan_on_the_fourth_step(self, *args, **kwargs):
        out = forward(self, *args, **kwargs)
        calls.append(self.training)
        return out._replace(loss=out.loss * float("nan")) if calls.count(True) == 4 else out

    monkeypatch.setattr(GPT, "forward", nan_on_the_fourth_step)
    bundle = tmp_path / "nan.zip"
    status, out, err = run(capsys, "train", "--corpus", corpus_file, *tiny_flags(), "--max_steps", 10,
                           "--out", bundle)
    assert status == 1 and "nan: The loss became nan at step 4" in err
    assert last_json(out)["reason"] == "nan" and last_json(out)["step"] == 3
    assert load_bundle(bundle).trainer_state["step"] == 3


def test_the_progress_bar_shows_the_gradient_norm_when_the_step_measured_one():
    from types import SimpleNamespace

    from playground.cli import _Progress
    from playground.train import StepRecord

    progress = _Progress(SimpleNamespace(config=SimpleNamespace(max_steps=20), step=0))
    progress.update(StepRecord(10, 640, 2.5, 1e-3, 900.0, 1.0, grad_norm=0.7312))
    assert progress.bar.postfix == "loss 2.5000, grad norm 0.731, 900 tok/s"
    progress.update(StepRecord(20, 1280, 2.4, 1e-3, 900.0, 2.0))  # an older history's record
    assert progress.bar.postfix == "loss 2.4000, 900 tok/s"
    progress.bar.close()
