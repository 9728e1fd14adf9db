"""Export a trained model: a standalone script, a model card, and a push to the Hugging Face Hub.

* ``standalone_script()``: one Python file (``generate_standalone.py``) with the model
  definition, a pure-Python byte-level BPE and a sampling loop, needing only torch and
  safetensors; it loads a bundle and writes text exactly as ``playground.generate`` does.
  Its source is ``playground/export/standalone.py``, a normal module the tests import.
* ``model_card(info)``: the README.md of a Hub repository, its metadata written by
  ``huggingface_hub.ModelCardData``, the training figures, every setting, and how to fetch
  (``hf download``) and run the script.
* ``push_to_hub(bundle_path, repo_id, token)``: creates the repository (if needed) and
  uploads the bundle, the card and the script in one commit.
* ``space_page()``: the Space's page on the Hub when the app runs on a Space, the address
  share links point at (the app itself is a frame inside it).

>>> script = standalone_script()
>>> "import gradio" in script, "def generate(" in script, script.count("import playground")
(False, True, 0)
>>> check_repo_id("alice/tiny-shakespeare")
'alice/tiny-shakespeare'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playground import __version__
from playground.corpus import HUB_DATASET
from playground.runtime import hosting
from playground.runtime.files import atomic_write
from playground.runtime.hosting import Hosting
from playground.i18n import Message, msg
from playground.train import EndRecord, EvalRecord, Record

TEMPLATE = Path(__file__).with_name("standalone.py")
SCRIPT_NAME = "generate_standalone.py"
BUNDLE_NAME = "model.zip"
CARD_NAME = "README.md"
CARD_TAGS = ["transformer-playground", "text-generation", "gpt", "from-scratch"]
# corpora that are datasets on the Hub, by the name a run's corpus carries (Corpus.name)
HUB_DATASETS = {"Tiny Shakespeare": HUB_DATASET}
_REPO_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,94}[A-Za-z0-9]$|^[A-Za-z0-9]$")


class ExportError(ValueError):
    """An export that cannot be done, with a message meant for a person (a ``Message``,
    which ``i18n.error_text`` says again in the page's language)."""


# --- the standalone script ----------------------------------------------------------------

def standalone_script() -> str:
    """The source of ``generate_standalone.py`` (see ``playground/export/standalone.py``)."""
    source = TEMPLATE.read_text(encoding="utf-8")
    return f"# Written by Transformer Playground {__version__}; needs only torch and safetensors.\n{source}"


def write_standalone_script(folder: str | os.PathLike) -> Path:
    """Write ``generate_standalone.py`` into ``folder``; returns its path."""
    path = Path(folder) / SCRIPT_NAME
    with atomic_write(path) as f:
        f.write(standalone_script().encode("utf-8"))
    return path


# --- the model card -----------------------------------------------------------------------

@dataclass
class BundleInfo:
    """What a model card says about a bundle (``bundle_info`` reads it from a checked bundle)."""

    model_config: dict[str, Any]
    train_config: dict[str, Any]
    tokenizer_kind: str
    vocab_size: int
    num_params: int
    history: list[Record] = field(default_factory=list)
    corpus_name: str = ""
    created: str = ""

    def final(self) -> dict[str, Any]:
        """The last evaluation's figures, the steps, tokens and seconds of the run."""
        last = next((r for r in reversed(self.history) if isinstance(r, EvalRecord)), None)
        timed = [r for r in self.history if not isinstance(r, EndRecord)]  # end records: a step only
        return {
            "val_loss": last.val_loss if last else None, "val_bpc": last.val_bpc if last else None,
            "train_loss": last.train_loss if last else None,
            "steps": max((r.step for r in self.history), default=0),
            "tokens": max((r.tokens for r in timed), default=0),
            "seconds": max((r.elapsed for r in timed), default=0.0),
        }


def bundle_info(bundle_path: str | os.PathLike, corpus_name: str = "") -> BundleInfo:
    """Check a bundle fully (``checkpoint.load_bundle``) and collect what the card needs."""
    from playground.checkpoint import load_bundle

    bundle = load_bundle(bundle_path)
    return BundleInfo(
        model_config=bundle.model_config.to_dict(), train_config=bundle.train_config.to_dict(),
        tokenizer_kind=bundle.tokenizer.kind, vocab_size=bundle.tokenizer.vocab_size,
        num_params=bundle.model.num_params(), history=bundle.history, corpus_name=corpus_name,
        created=str(bundle.meta.get("created", "")))


def _number(value: Any, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def card_data(info: BundleInfo, license: str = "mit"):
    """The card's metadata as the Hub reads it (``huggingface_hub.ModelCardData``): library,
    license, task, tags, and the dataset the corpus is on the Hub, when it is one.

    >>> info = BundleInfo({}, {}, "char", 65, 1, corpus_name="Tiny Shakespeare")
    >>> card_data(info).to_dict()["datasets"]
    ['karpathy/tiny_shakespeare']
    """
    from huggingface_hub import ModelCardData

    tokens = "char-level" if info.tokenizer_kind == "char" else "byte-level-bpe"
    dataset = HUB_DATASETS.get(info.corpus_name)
    return ModelCardData(library_name="pytorch", license=license, pipeline_tag="text-generation",
                         tags=[*CARD_TAGS, tokens], datasets=[dataset] if dataset else None)


def model_card(info: BundleInfo, repo_id: str = "user/model", license: str = "mit") -> str:
    """The README.md of a Hub repository holding the bundle and the standalone script: the
    metadata of ``card_data`` as YAML front matter (``huggingface_hub.ModelCard`` reads it
    back), then the figures, the settings and how to use it.

    >>> from playground.train import EvalRecord
    >>> info = BundleInfo({"n_layer": 2}, {"lr": 0.003}, "char", 65, 12345,
    ...                   [EvalRecord(step=600, tokens=614400, train_loss=1.5, val_loss=1.7,
    ...                               train_bpc=2.2, val_bpc=2.45, elapsed=60.0)],
    ...                   corpus_name="Tiny Shakespeare")
    >>> card = model_card(info, "alice/tiny")
    >>> card.splitlines()[:4]
    ['---', 'datasets:', '- karpathy/tiny_shakespeare', 'library_name: pytorch']
    >>> "| Validation loss | 1.700 nats per token (2.450 bits per character) |" in card
    True
    """
    final = info.final()
    name = repo_id.split("/")[-1]
    front = ["---", card_data(info, license).to_yaml(), "---"]
    corpus = info.corpus_name or "a text chosen by its author"
    tokenizer = ("characters" if info.tokenizer_kind == "char" else "byte-level BPE")
    figures = [
        ("Corpus", corpus),
        ("Tokenizer", f"{tokenizer}, {info.vocab_size:,} tokens"),
        ("Parameters", f"{info.num_params:,}"),
        ("Training steps", f"{final['steps']:,} ({final['tokens']:,} tokens seen)"),
        ("Training loss", f"{_number(final['train_loss'])} nats per token"),
        ("Validation loss", f"{_number(final['val_loss'])} nats per token "
                            f"({_number(final['val_bpc'])} bits per character)"),
        ("Training time", f"{final['seconds']:.0f} s"),
    ]
    lines = [
        *front, "",
        f"# {name}", "",
        f"A small decoder-only Transformer trained from scratch on {corpus} with "
        f"Transformer Playground {__version__}. It writes text in the "
        f"style of its training text, one {'character' if info.tokenizer_kind == 'char' else 'token'} "
        f"at a time.", "",
        "## Training", "",
        "| | |", "|---|---|", *[f"| {k} | {v} |" for k, v in figures], "",
        "Bits per character compare models with different tokenizers; the loss per token does not.", "",
        "## Model settings", "",
        "| Setting | Value |", "|---|---|",
        *[f"| `{k}` | `{v}` |" for k, v in info.model_config.items()], "",
        "## Training settings", "",
        "| Setting | Value |", "|---|---|",
        *[f"| `{k}` | `{v}` |" for k, v in info.train_config.items()], "",
        "## How to use", "",
        f"`{BUNDLE_NAME}` holds the weights (safetensors), the settings and the tokenizer. "
        f"`{SCRIPT_NAME}` is one readable Python file, the model and a sampling loop, that "
        "needs only torch and safetensors:", "",
        "```bash",
        "pip install torch safetensors huggingface_hub  # huggingface_hub brings the hf command",
        f"hf download {repo_id} {BUNDLE_NAME} {SCRIPT_NAME} --local-dir .",
        f"python {SCRIPT_NAME} {BUNDLE_NAME} --prompt \"ROMEO:\" --max_new_tokens 300",
        "```", "",
        "Or load it into Transformer Playground itself (upload the .zip on the training tab).", "",
        "## Limitations", "",
        f"A model of {info.num_params:,} parameters trained for {final['steps']:,} steps knows "
        "only the style of its corpus: its text is not factual, and it can repeat passages of "
        "the training text word for word.", "",
    ]
    return "\n".join(lines)


# --- the Hub ------------------------------------------------------------------------------

def space_page(host: Hosting | None = None) -> str | None:
    """The page of the Space this app runs on (``Hosting.space_id``: ``SPACE_ID``, which
    Spaces set), else None.

    On a Space the app is served from its own host inside a frame of this page; a link to
    the page opens the app with the link's query string (Spaces pass it on to the frame).

    >>> space_page(Hosting(space_id="alice/playground"))
    'https://huggingface.co/spaces/alice/playground'
    >>> space_page(Hosting()) is None
    True
    """
    space = (hosting.current() if host is None else host).space_id or ""
    parts = space.split("/")
    if len(parts) != 2 or not all(_REPO_PART.match(p) for p in parts):
        return None
    return f"https://huggingface.co/spaces/{space}"


def check_repo_id(repo_id: Any) -> str:
    """``repo_id`` if it is a valid "user/name", else an ``ExportError`` saying what to write."""
    text = repo_id.strip() if isinstance(repo_id, str) else ""
    parts = text.split("/")
    if (len(parts) != 2 or not all(_REPO_PART.match(p) for p in parts)
            or any(".." in p or "--" in p for p in parts) or parts[1].endswith(".git")):
        raise ExportError(msg("The repository must look like user/name: letters, digits, '-', '_' "
                              "and '.', each part starting and ending with a letter or digit, at "
                              "most 96 characters; got {value}.", value=repr(repo_id)))
    return text


def check_token(token: Any) -> str:
    text = token.strip() if isinstance(token, str) else ""
    if not text:
        raise ExportError(msg("Pushing to the Hub needs a Hugging Face token with write access "
                              "(huggingface.co/settings/tokens)."))
    if any(c.isspace() for c in text):
        raise ExportError(msg("The token has spaces in it; copy it again from "
                              "huggingface.co/settings/tokens."))
    return text


def hub_upload_plan(bundle_path: str | os.PathLike, repo_id: str, token: str,
                    corpus_name: str = "") -> list[tuple[str, bytes | Path]]:
    """(path in the repository, bytes or a local file) for every file ``push_to_hub`` uploads."""
    repo_id, _ = check_repo_id(repo_id), check_token(token)
    path = Path(bundle_path)
    info = bundle_info(path, corpus_name)
    return [
        (BUNDLE_NAME, path),
        (CARD_NAME, model_card(info, repo_id).encode("utf-8")),
        (SCRIPT_NAME, standalone_script().encode("utf-8")),
    ]


def push_to_hub(bundle_path: str | os.PathLike, repo_id: str, token: str, *,
                private: bool = False, corpus_name: str = "", api: Any = None) -> str:
    """Create ``repo_id`` if needed and upload the bundle, card and script in one commit.

    ``api`` is a ``huggingface_hub.HfApi`` (made from ``token`` when None; tests pass a
    stand-in). Returns the repository's address. Any failure of the Hub becomes an
    ``ExportError`` that says what to check.
    """
    repo_id, token = check_repo_id(repo_id), check_token(token)
    plan = hub_upload_plan(bundle_path, repo_id, token, corpus_name)
    from huggingface_hub import CommitOperationAdd

    if api is None:
        from huggingface_hub import HfApi

        api = HfApi(token=token)
    operations = [CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(data) if isinstance(data, Path) else data)
                  for name, data in plan]
    try:
        api.create_repo(repo_id, token=token, private=private, repo_type="model", exist_ok=True)
        api.create_commit(repo_id, operations, commit_message="Upload a model trained in Transformer Playground",
                          token=token, repo_type="model")
    except Exception as exc:  # huggingface_hub raises HTTP, connection and validation errors
        raise ExportError(_hub_message(exc, repo_id)) from exc
    return f"https://huggingface.co/{repo_id}"


def _hub_message(exc: Exception, repo_id: str) -> Message:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status == 401:
        return msg("The Hub did not accept the token: check that it is valid and has write access.")
    if status == 403:
        return msg("The token may not write to {repo}: use a token with write access, and a user "
                   "or organisation name it belongs to.", repo=repo_id)
    if type(exc).__name__ in ("OfflineModeIsEnabled", "ConnectionError", "ConnectTimeout"):
        return msg("The Hugging Face Hub cannot be reached from here.")
    return msg("Pushing to the Hub failed: {reason}", reason=str(exc)[:300])

