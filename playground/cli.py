"""The command line: ``python -m playground train | generate | presets | settings | info | upgrade``.

The same code path as the app: a corpus, a tokenizer, a ``GPT`` and a ``Trainer`` whose
records this module prints. Every ``ModelConfig`` and ``TrainConfig`` field has a flag of
the same name (``--n_embd 96``, ``--bias/--no-bias``), read from the dataclasses so none is
missed; flags override the preset. The last line ``train`` prints is JSON with the final
figures, for scripts:

    $ python -m playground train --preset tiny --max_steps 200 --out runs/tiny.zip
    ...
    {"step": 200, "train_loss": 2.31, "val_loss": 2.33, ..., "reason": "done"}
    $ python -m playground generate runs/tiny.zip --prompt "ROMEO:" --max_new_tokens 100

Mistakes a person can fix (a bad setting, a missing file, a damaged bundle) print one
message to stderr and exit with status 2, without a traceback.

Under torchrun, ``train`` runs data-parallel (see ``playground.runtime.distributed``): only rank 0
prints, writes the history and saves the bundle.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import threading
import time
import typing
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from playground.config import (
    CHOICES,
    DEVICES,
    PRESETS,
    ConfigError,
    ModelConfig,
    SampleConfig,
    TrainConfig,
    replace,
    setting_text,
)
from playground.tasks import TASKS
from playground.tokenizer import KINDS as TOKENIZER_KINDS
# vocab_size belongs to the tokenizer: --vocab_size sets the BPE vocabulary, and the model
# is then built with the tokenizer's actual size.
MODEL_FLAGS = tuple(f.name for f in dataclasses.fields(ModelConfig) if f.name != "vocab_size")
TRAIN_FLAGS = tuple(f.name for f in dataclasses.fields(TrainConfig))
CORPORA = ("shakespeare", "shakespeare-hub")
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130  # the shell's convention for a process ended by SIGINT


# ---------------------------------------------------------------------------------------------
# The parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        # as the console script says itself `playground`, as `python -m` its module
        prog="playground" if Path(sys.argv[0]).name == "playground" else "python -m playground",
        description="Train a small Transformer from scratch, then sample from it.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    train = commands.add_parser(
        "train", help="train a model and save it as a .zip bundle",
        description="Train a model on a corpus and save it as a .zip bundle. Flags override "
                    "the preset.")
    train.add_argument("--preset", choices=sorted(PRESETS), default=None,
                       help="starting point for every setting (default: tiny, or the task's "
                            "own preset with --task)")
    data = train.add_argument_group("data and tokenizer")
    data.add_argument("--task", choices=sorted(TASKS), default=None,
                      help="train on a toy task (playground.tasks) instead of a corpus: its "
                           "problems, its preset, and its held-out accuracy at every evaluation")
    data.add_argument("--corpus", nargs="+", metavar="SOURCE",
                      help="'shakespeare' (bundled, the default), 'shakespeare-hub' (from the "
                           "Hugging Face Hub), or one or more .txt/.md files")
    data.add_argument("--text", help="train on this text instead of a corpus")
    data.add_argument("--tokenizer", choices=TOKENIZER_KINDS, default=None,
                      help="character level (default) or byte-level BPE")
    data.add_argument("--vocab_size", type=int, default=None,
                      help="BPE vocabulary size (about 256 to 16384; default 512)")
    files = train.add_argument_group("files")
    files.add_argument("--out", type=Path, help="bundle to write (default: runs/<preset>-<time>.zip; "
                                                "with --resume, the resumed bundle)")
    files.add_argument("--resume", type=Path, metavar="BUNDLE",
                       help="continue the run saved in this bundle, exactly where it stopped")
    _add_config_flags(train, ModelConfig, MODEL_FLAGS, "model (ModelConfig)", lambda p: p.model)
    _add_config_flags(train, TrainConfig, TRAIN_FLAGS, "training (TrainConfig)", lambda p: p.train)
    train.set_defaults(handler=cmd_train)

    gen = commands.add_parser("generate", help="write text with a trained bundle",
                              description="Stream text from a trained bundle to stdout.")
    gen.add_argument("bundle", type=Path, help="a .zip bundle written by 'train'")
    gen.add_argument("--prompt", default="", help="text to continue (default: start afresh)")
    sampling = SampleConfig()
    gen.add_argument("--max_new_tokens", type=int, default=sampling.max_new_tokens,
                     help=f"tokens to write (default {sampling.max_new_tokens})")
    gen.add_argument("--temperature", type=float, default=sampling.temperature,
                     help=f"0 is greedy; higher is more adventurous (default {sampling.temperature})")
    gen.add_argument("--top_k", type=int, default=sampling.top_k,
                     help="sample among the k likeliest tokens (default 0: all)")
    gen.add_argument("--top_p", type=float, default=sampling.top_p,
                     help="sample among the likeliest tokens holding this much probability "
                          "(default 1.0: all)")
    gen.add_argument("--seed", type=int, default=sampling.seed,
                     help="repeatable sampling (default: a new text each time)")
    gen.add_argument("--cache", action=argparse.BooleanOptionalAction, default=True,
                     help="use the KV cache (--no-cache recomputes the context; same text)")
    gen.add_argument("--device", choices=DEVICES, default="auto")
    gen.set_defaults(handler=cmd_generate)

    presets = commands.add_parser("presets", help="list the presets")
    presets.set_defaults(handler=cmd_presets)

    settings = commands.add_parser(
        "settings", help="every setting as a Markdown table (docs/SETTINGS.md)",
        description="Print every setting's name, label, help, default and choices as the "
                    "Markdown of docs/SETTINGS.md.")
    settings.set_defaults(handler=cmd_settings)

    info = commands.add_parser("info", help="describe a bundle")
    info.add_argument("bundle", type=Path)
    info.set_defaults(handler=cmd_info)

    upgrade = commands.add_parser("upgrade", help="save a bundle again in today's format",
                                  description="Load a bundle (an older format is upgraded as "
                                              "it is read) and save it in today's format.")
    upgrade.add_argument("bundle", type=Path)
    upgrade.add_argument("--out", type=Path, default=None,
                         help="bundle to write (default: replace the bundle read)")
    upgrade.set_defaults(handler=cmd_upgrade)
    return parser


def _add_config_flags(parser, cls, names, title, part) -> None:
    """One flag per dataclass field, typed from its annotation; the help is the setting's own
    (the page's, from its config field), then the presets' values."""
    group = parser.add_argument_group(title)
    hints = typing.get_type_hints(cls)
    for name in names:
        kind = hints[name]
        values = ", ".join(f"{p.name} {getattr(part(p), name)}" for p in PRESETS.values())
        help_text = f"{setting_text(name)[1]} presets: {values}".replace("%", "%%")  # argparse formats %
        if kind is bool:
            group.add_argument(f"--{name}", action=argparse.BooleanOptionalAction, default=None,
                               help=help_text)
        else:
            group.add_argument(f"--{name}", type=kind, default=None, choices=CHOICES.get(name),
                               metavar=None if name in CHOICES else kind.__name__.upper(),
                               help=help_text)


def _given(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    return {n: getattr(args, n) for n in names if getattr(args, n) is not None}


# ---------------------------------------------------------------------------------------------
# Entry point


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status.

    0: done (or stopped by Ctrl-C, bundle saved); 1: training ended on NaN, out of memory or
    an error (the last good weights are saved); 2: a mistake in the input; 130: interrupted.
    Under torchrun, an unexpected error is recorded for torchrun's report (``record``), which
    then names the failing process and shows its traceback.
    """
    if "TORCHELASTIC_RUN_ID" in os.environ:  # set by torchrun in every process it starts
        from torch.distributed.elastic.multiprocessing.errors import record

        return record(_main)(argv)
    return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    from playground.checkpoint import BundleError
    from playground.corpus import CorpusError
    from playground.tokenizer import TokenizerError

    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ConfigError, CorpusError, TokenizerError, BundleError) as error:
        print(f"error: {_rank_prefix()}{error}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:  # a second Ctrl-C during training, or one outside it
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


# ---------------------------------------------------------------------------------------------
# train


def _rank_prefix() -> str:
    """The "rank 3: " before an error in a distributed run, where every process reports its own."""
    world_size = os.environ.get("WORLD_SIZE", "1")
    return f"rank {os.environ.get('RANK', '?')}: " if world_size not in ("", "0", "1") else ""


def cmd_train(args: argparse.Namespace) -> int:
    from playground.runtime.distributed import cleanup

    try:
        return _train(args)
    finally:
        cleanup()  # leave torchrun's process group, if this process joined one


def _train(args: argparse.Namespace) -> int:
    from playground.checkpoint import save_bundle
    from playground.runtime.device import describe_device
    from playground.runtime.distributed import barrier
    from playground.train import EndRecord, EvalRecord, StepRecord

    started = time.perf_counter()
    corpus, tokenizer, trainer, out = _setup_training(args)
    model = trainer.model
    dist = trainer.dist
    say = _say if dist.is_main else _quiet  # the other processes run quietly
    if dist.enabled:
        say(f"data-parallel: {dist.world_size} processes, {trainer.config.batch_size} "
            f"sequences per step in all ({trainer.config.batch_size // dist.world_size} each)")
    train_cpt, val_cpt = trainer.chars_per_token
    say(f"corpus: {corpus.name}, {len(corpus.text):,} characters; tokenizer: {tokenizer.kind}, "
        f"{tokenizer.vocab_size:,} tokens ({train_cpt:.2f} characters per token in the training "
        f"split, {val_cpt:.2f} in the validation split)")
    say(f"data: {len(trainer.train_ids):,} training and {len(trainer.val_ids):,} validation tokens")
    say(f"model: {model.num_params():,} parameters; device: {describe_device(trainer.device)}, "
         f"{str(trainer.dtype).removeprefix('torch.')}")
    start_step = trainer.step
    if start_step:
        say(f"resuming {args.resume} at step {start_step:,} of {trainer.config.max_steps:,}")

    end = EndRecord(trainer.step, "stopped", "")
    with _stop_on_ctrl_c(trainer, announce=dist.is_main), _progress(trainer, dist.is_main) as bar:
        for record in trainer.run():
            if isinstance(record, StepRecord):
                bar.update(record)
            elif isinstance(record, EvalRecord):
                if dist.is_main:
                    bar.write(_eval_line(record))
            else:
                end = record

    if dist.enabled and threading.current_thread() is threading.main_thread():
        # torchrun passes a Ctrl-C on to each process in turn: one that comes after the
        # agreed stop must not cut the save or the last barrier short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not dist.is_main:
        barrier(dist)  # rank 0 writes the bundle; the run ends when it is written
        return 0 if end.reason in ("done", "stopped") else 1
    path = save_bundle(out, model, tokenizer, trainer.config, trainer.history, trainer.state_dict())
    if end.reason != "done":
        print(f"{end.reason}: {end.message}", file=sys.stderr, flush=True)
    summary = _summary(trainer, end, path, start_step, time.perf_counter() - started)
    say(f"saved {path}")
    if summary["newton_schulz"]:
        say(f"Muon's Newton-Schulz ran in {summary['newton_schulz']} (the faster format here, "
            f"measured at the start)")
    if summary["val_loss"] is not None:
        say(f"final (step {summary['eval_step']:,}): train loss {summary['train_loss']:.4f}, "
            f"val loss {summary['val_loss']:.4f}")
    print(json.dumps(summary), flush=True)
    barrier(dist)
    return 0 if end.reason in ("done", "stopped") else 1


def _setup_training(args: argparse.Namespace):
    """Settings, corpus, tokenizer, then ``prepare_run``: (corpus, tokenizer, trainer, out).

    A fresh run trains a tokenizer (rank 0's, under torchrun) and builds a model seeded
    with ``seed``; ``--resume`` takes both from the bundle, and the trainer continues from
    its saved state.
    """
    from playground.checkpoint import BundleError, load_bundle
    from playground.prepare import prepare_run
    from playground.runtime.distributed import broadcast_text, init_distributed
    from playground.tokenizer import TokenizerError, tokenizer_from_json, train_tokenizer

    bundle = load_bundle(args.resume) if args.resume else None
    model_cfg, train_cfg = _configs(args, bundle)  # every setting is checked before any work
    name = args.preset or (f"task-{args.task}" if args.task else "tiny")
    out = args.out or args.resume or Path("runs") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.zip"
    if out.suffix.lower() != ".zip":
        raise ConfigError(f"--out names the bundle to write, a .zip file; got '{out}'.")
    if bundle is not None and bundle.trainer_state is None:
        raise BundleError(f"'{args.resume}' holds weights but no training state (optimizer, "
                          f"step, random streams), so its run cannot be continued exactly.")
    dist = init_distributed(train_cfg.device)  # one process unless torchrun started several
    corpus = _load_corpus(args)
    if bundle is None:
        if dist.is_main:
            tokenizer = train_tokenizer(args.tokenizer or "char", corpus.text, args.vocab_size)
        # every process uses rank 0's tokenizer, so all have the same token ids
        if dist.enabled:
            tokenizer = tokenizer_from_json(
                broadcast_text(tokenizer.to_json() if dist.is_main else None, dist))
    else:
        tokenizer = bundle.tokenizer
    try:
        run = prepare_run(corpus, tokenizer, model_cfg, train_cfg, device=dist.device,
                          model=bundle.model if bundle else None,
                          trainer_state=bundle.trainer_state if bundle else None)
    except TokenizerError as error:
        if bundle is None:
            raise
        raise TokenizerError(f"{error} A resumed run must train on the same text as before: "
                             f"give the same --corpus or --text.") from None
    return corpus, tokenizer, run.trainer(dist=dist), out


def _configs(args, bundle) -> tuple[ModelConfig, TrainConfig]:
    """The model and training settings: the preset's (or the bundle's), then the flags."""
    model_flags, train_flags = _given(args, MODEL_FLAGS), _given(args, TRAIN_FLAGS)
    if sum(x is not None and x != [] for x in (args.text, args.corpus, args.task)) > 1:
        raise ConfigError("Give one of --corpus, --text and --task, not more.")
    if bundle is None:
        if args.preset is None and args.task:
            preset = TASKS[args.task].preset
        else:
            preset = PRESETS[args.preset or "tiny"]
        if args.vocab_size is not None and (args.tokenizer or "char") == "char":
            raise ConfigError("--vocab_size sets the size of a BPE vocabulary; add --tokenizer bpe "
                              "(a character tokenizer's vocabulary is the text's characters).")
        return replace(preset.model, **model_flags), replace(preset.train, **train_flags)
    fixed = sorted(model_flags) + [f for f in ("tokenizer", "vocab_size") if getattr(args, f) is not None]
    if fixed:
        raise ConfigError(
            f"A resumed run keeps its model and tokenizer, so {', '.join('--' + f for f in fixed)} "
            f"cannot change. Leave them out, or start a new run without --resume.")
    return bundle.model_config, replace(bundle.train_config, **train_flags)


def _load_corpus(args):
    from playground.corpus import from_text, load_files, load_tiny_shakespeare
    from playground.tasks import task_corpus

    if args.task:
        return task_corpus(args.task)
    if args.text is not None:
        return from_text(args.text)
    sources = args.corpus or ["shakespeare"]
    if sources == ["shakespeare"]:
        return load_tiny_shakespeare("bundled")
    if sources == ["shakespeare-hub"]:
        return load_tiny_shakespeare("hub")
    named = [s for s in sources if s in CORPORA]
    if named:
        raise ConfigError(f"'{named[0]}' cannot be mixed with files; give it alone.")
    return load_files(sources)


def _summary(trainer, end, path, start_step, wall) -> dict[str, Any]:
    from playground.optim import format_names
    from playground.train import EvalRecord

    last_eval = next((r for r in reversed(trainer.history) if isinstance(r, EvalRecord)), None)
    steps = trainer.step - start_step
    cfg = trainer.config
    muon = getattr(trainer.optimizer, "muon", None)  # MuonAdamW's half, when Muon is in use
    return {
        "step": trainer.step,
        "eval_step": last_eval.step if last_eval else None,
        "train_loss": last_eval.train_loss if last_eval else None,
        "val_loss": last_eval.val_loss if last_eval else None,
        "val_bpc": last_eval.val_bpc if last_eval else None,
        "accuracy": last_eval.accuracy if last_eval else None,  # a toy task's, on held-out problems
        "elapsed_s": round(trainer.elapsed, 3),  # training and evaluation, summed over resumes
        "wall_s": round(wall, 3),  # this command, from start to saved bundle
        "ms_per_step": round(1000 * trainer.train_time / trainer.step, 3) if trainer.step else None,
        "tokens_per_s": round(trainer.tokens / trainer.train_time, 1) if trainer.train_time else None,
        "steps_this_run": steps,
        "params": trainer.model.num_params(),
        "batch_size": cfg.batch_size,  # the global batch, shared by all processes
        "world_size": trainer.dist.world_size,  # processes that trained together
        "block_size": trainer.block_size,
        "device": str(trainer.device),
        "dtype": str(trainer.dtype).removeprefix("torch."),
        # Muon's Newton-Schulz format per matrix shape, as probed here ("" without Muon)
        "newton_schulz": format_names(muon.formats) if muon else "",
        "bundle": str(path),
        "reason": end.reason,
    }


def _eval_line(record) -> str:
    line = (f"step {record.step:>6,}: train loss {record.train_loss:.4f}, val loss "
            f"{record.val_loss:.4f} ({record.val_bpc:.3f} bits/char), {record.elapsed:.1f} s")
    if record.accuracy is not None:
        line += f", held-out accuracy {record.accuracy:.1%}"
    if record.sample:
        line += "\n    " + record.sample.replace("\n", "\n    ")
    return line


def _say(text: str) -> None:
    print(text, flush=True)


def _quiet(text: str) -> None:
    """What a process other than rank 0 does with a line for people: nothing."""


class _Progress:
    """A tqdm bar on stderr (only on a terminal) showing step, loss and tokens/s."""

    def __init__(self, trainer, shown: bool = True):
        from tqdm import tqdm

        self.bar = tqdm(total=trainer.config.max_steps, initial=trainer.step, unit="step",
                        file=sys.stderr, disable=None if shown else True, dynamic_ncols=True,
                        mininterval=0.25)

    def update(self, record) -> None:
        self.bar.update(record.step - self.bar.n)
        if record.step % 10 == 0 or record.step == self.bar.total:
            # the gradient norm before clipping: a spike often comes just before the loss jumps
            norm = "" if record.grad_norm is None else f", grad norm {record.grad_norm:.3g}"
            self.bar.set_postfix_str(f"loss {record.loss:.4f}{norm}, "
                                     f"{record.tokens_per_s:,.0f} tok/s", refresh=False)

    def write(self, text: str) -> None:
        self.bar.write(text, file=sys.stdout)
        sys.stdout.flush()


@contextmanager
def _progress(trainer, shown: bool = True) -> Iterator[_Progress]:
    progress = _Progress(trainer, shown)
    try:
        yield progress
    finally:
        progress.bar.close()


@contextmanager
def _stop_on_ctrl_c(trainer, announce: bool = True) -> Iterator[None]:
    """The first Ctrl-C stops training after the current step (then the bundle is saved);
    a second one interrupts at once. Under torchrun, which passes the Ctrl-C on to every
    process, all processes agree to stop at the same step (``Trainer.run``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_interrupt(signum, frame):
        signal.signal(signal.SIGINT, previous)
        if announce:
            print("\nStopping after this step and saving; press Ctrl-C again to quit at once.",
                  file=sys.stderr, flush=True)
        trainer.stop()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# ---------------------------------------------------------------------------------------------
# generate, presets, info


def cmd_generate(args: argparse.Namespace) -> int:
    from playground.checkpoint import load_bundle
    from playground.runtime.device import pick_device
    from playground.generate import generate

    sampling = SampleConfig(args.max_new_tokens, args.temperature, args.top_k, args.top_p,
                            args.seed)
    bundle = load_bundle(args.bundle, device=pick_device(args.device))
    sys.stdout.write(args.prompt)
    for step in generate(bundle.model, bundle.tokenizer, args.prompt, sampling,
                         use_cache=args.cache):
        sys.stdout.write(step.text)
        sys.stdout.flush()
    sys.stdout.write("\n")
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    from playground.model import count_params

    for preset in PRESETS.values():
        m, t = preset.model, preset.train
        params = count_params(replace(m, vocab_size=65))
        print(f"{preset.name}: {preset.description}")
        print(f"    model: n_layer={m.n_layer} n_head={m.n_head} n_embd={m.n_embd} "
              f"block_size={m.block_size} pos={m.pos} dropout={m.dropout:g} "
              f"({params:,} parameters at 65 characters)")
        print(f"    train: max_steps={t.max_steps} batch_size={t.batch_size} lr={t.lr:g} "
              f"min_lr={t.min_lr:g} warmup_steps={t.warmup_steps} eval_interval={t.eval_interval}")
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    print(settings_markdown(), end="")
    return 0


def settings_markdown() -> str:
    """docs/SETTINGS.md: a table of every setting, written from the config fields.

    >>> print(next(row for row in settings_markdown().splitlines() if "`n_layer`" in row))
    | `n_layer` | layers (n_layer) | Number of Transformer blocks stacked on top of each other. | 4 |  |
    """
    lines = ["# Every setting", "",
             "Generated from the fields of `ModelConfig` and `TrainConfig` (`playground/config.py`)",
             "by `python -m playground settings > docs/SETTINGS.md`: change a text there, not here.",
             "Each setting is a flag of `python -m playground train` (`--n_layer 3`; a yes-or-no",
             "one is `--bias` or `--no-bias`) and a control under Advanced on the page, which shows",
             "the same label and help (in Chinese too). The default is the config's own: a preset",
             "sets its values over it (`python -m playground train --help` lists them)."]
    for title, cls in (("The model (ModelConfig)", ModelConfig), ("Training (TrainConfig)", TrainConfig)):
        lines += ["", f"## {title}", "", "| Setting | Label | What it does | Default | Choices |",
                  "|---|---|---|---|---|"]
        for field in dataclasses.fields(cls):
            label, info = setting_text(field.name)
            default = f"{field.default:g}" if isinstance(field.default, float) else field.default
            choices = ", ".join(f"`{c}`" for c in CHOICES.get(field.name, ()))
            cells = [f"`{field.name}`", label, info, str(default), choices]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def cmd_info(args: argparse.Namespace) -> int:
    from playground.checkpoint import load_bundle, records_to_json
    from playground.train import EvalRecord

    bundle = load_bundle(args.bundle)
    last_eval = next((r for r in reversed(bundle.history) if isinstance(r, EvalRecord)), None)
    state = bundle.trainer_state
    print(json.dumps({
        "bundle": str(args.bundle),
        "params": bundle.model.num_params(),
        "tokenizer": {"kind": bundle.tokenizer.kind, "vocab_size": bundle.tokenizer.vocab_size},
        "model_config": bundle.model_config.to_dict(),
        "train_config": bundle.train_config.to_dict(),
        "step": int(state["step"]) if state else None,
        "last_eval": records_to_json([last_eval])[0] if last_eval else None,
        "meta": bundle.meta,
    }, indent=2))
    return 0


def cmd_upgrade(args: argparse.Namespace) -> int:
    from playground.checkpoint import FORMAT_VERSION, load_bundle, save_bundle

    trained = load_bundle(args.bundle)
    out = save_bundle(args.out or args.bundle, trained.model, trained.tokenizer,
                      trained.train_config, trained.history, trained.trainer_state)
    print(f"saved {out} (bundle format {FORMAT_VERSION})")
    return 0
