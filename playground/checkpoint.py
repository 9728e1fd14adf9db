"""One file holds a trained model: a ``.zip`` bundle that is checked part by part on loading.

The members of a bundle:

=============================  ==========================================================
``meta.json``                  format name and version, playground and torch versions, time
``model_config.json``          ``ModelConfig.to_dict()``
``train_config.json``          ``TrainConfig.to_dict()``
``tokenizer.json``             ``Tokenizer.to_json()``
``history.json``               the training records (``Trainer.history``), one object each
                               with its ``kind`` (``records_to_json``)
``model.safetensors``          the weights; a tied matrix stored once
``trainer_state.json``         optional: what resuming needs (step, optimizer, RNG states),
``trainer_state.safetensors``  its numbers in JSON and its tensors in safetensors
=============================  ==========================================================

Nothing is ever unpickled: weights and tensors are safetensors, everything else is JSON,
and a pickle (``.pt``, ``.pth``, ``.pkl``, a ``torch.save`` file) is refused by name and by
content, because unpickling a file can run any code in it. The zip is read in memory;
nothing in it is extracted to disk. Writes are atomic: a crash mid-save leaves the old
file (or none), never half a bundle.

>>> import tempfile, torch
>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.model import GPT
>>> from playground.tokenizer import train_tokenizer
>>> tok = train_tokenizer("char", "hello world")
>>> model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8))
>>> path = save_bundle(tempfile.mkdtemp() + "/hello.zip", model, tok, TrainConfig(), history=[])
>>> bundle = load_bundle(path)
>>> idx = torch.tensor([tok.encode("hello")])
>>> torch.equal(bundle.model(idx).logits, model.eval()(idx).logits)
True
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
import zipfile
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import safetensors.torch
import torch

from playground import __version__
from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.runtime.files import atomic_write
from playground.i18n import Message, msg
from playground.model import GPT
from playground.tokenizer import Tokenizer, TokenizerError, tokenizer_from_json
from playground.train import RECORD_TYPES, Record

FORMAT = "transformer-playground-bundle"
FORMAT_VERSION = 1

META = "meta.json"
MODEL_CONFIG = "model_config.json"
TRAIN_CONFIG = "train_config.json"
TOKENIZER = "tokenizer.json"
HISTORY = "history.json"
WEIGHTS = "model.safetensors"
STATE_JSON = "trainer_state.json"
STATE_TENSORS = "trainer_state.safetensors"
REQUIRED = (META, MODEL_CONFIG, TRAIN_CONFIG, TOKENIZER, HISTORY, WEIGHTS)
KNOWN = REQUIRED + (STATE_JSON, STATE_TENSORS)

# Guards against a zip bomb: sizes are the ones the zip declares, and zipfile never
# inflates a member past its declared size (it fails the CRC check instead).
MAX_TOTAL_BYTES = 2 * 2**30  # far above any model this app can train
MAX_MEMBERS = 64
MAX_RATIO = 100  # weights barely compress, JSON about 5x; 100x means crafted data
RATIO_MIN_BYTES = 1 * 2**20  # below 1 MiB the ratio does not matter

PICKLE_SUFFIXES = (".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".bin")
NEVER_UNPICKLED = msg("Checkpoints here are never unpickled, because unpickling a file can run "
                      "any code hidden in it. Load a .zip bundle saved by Transformer Playground "
                      "instead.")

# JSON tags for what JSON lacks, in trainer_state (see _encode_state)
_TAGS = frozenset({"__tensor__", "__ndarray__", "__tuple__", "__items__"})


class BundleError(ValueError):
    """A bundle that cannot be saved or loaded, with a message meant for a person (a
    ``Message``, which ``i18n.error_text`` says again in the page's language)."""


def _reason(exc: BaseException) -> str:
    """What ``exc`` says, kept as a ``Message`` when it was raised with one (so a config or
    tokenizer error inside a bundle error is translated too)."""
    said = exc.args[0] if len(exc.args) == 1 else None
    return said if isinstance(said, Message) else str(exc)


@dataclass
class Bundle:
    """Everything a bundle holds, rebuilt and checked."""

    model: GPT  # on the device asked for, in eval mode
    tokenizer: Tokenizer
    model_config: ModelConfig
    train_config: TrainConfig
    history: list[Record]
    trainer_state: dict[str, Any] | None  # as given to save_bundle (tensors on the CPU)
    meta: dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Saving


def save_bundle(
    path: str | os.PathLike,
    model: torch.nn.Module,
    tokenizer: Tokenizer,
    train_config: TrainConfig | dict[str, Any],
    history: Sequence[Record],
    trainer_state: dict[str, Any] | None = None,
) -> Path:
    """Write ``model`` and what belongs with it to one ``.zip`` file, atomically.

    ``history`` holds the training records (``Trainer.history``). ``trainer_state`` is what
    resuming needs, for example ``{"step": 120, "optimizer": optimizer.state_dict(), "rng":
    torch.get_rng_state()}``: nested dicts, lists and tuples of tensors, numpy arrays,
    numbers, strings and None, and under ``"history"`` records (``Trainer.state_dict()``).
    Anything else is refused rather than pickled. Returns the path written.
    """
    path = Path(path)
    if path.suffix.lower() != ".zip":
        raise BundleError(msg("A bundle is a .zip file; name it like '{stem}.zip', not '{name}'.",
                              stem=path.stem, name=path.name))
    model = getattr(model, "_orig_mod", model)  # a torch.compile wrapper holds the real model
    model_config: ModelConfig = model.config
    if tokenizer.vocab_size != model_config.vocab_size:
        raise BundleError(msg("The tokenizer has {tokens} tokens but the model was built for "
                              "{model}; they do not belong together, so no bundle was written.",
                              tokens=tokenizer.vocab_size,
                              model=model_config.vocab_size))
    if not isinstance(train_config, TrainConfig):
        train_config = _config(TrainConfig, train_config, msg("training settings"))
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "playground_version": __version__,
        "torch_version": torch.__version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "tokenizer_kind": tokenizer.kind,
        "num_params": sum(p.numel() for p in model.parameters()),  # a tied matrix counts once
        "has_trainer_state": trainer_state is not None,
    }
    members = [  # (name, bytes, compressed?)
        (META, _json_bytes(meta), True),
        (MODEL_CONFIG, _json_bytes(model_config.to_dict()), True),
        (TRAIN_CONFIG, _json_bytes(train_config.to_dict()), True),
        (TOKENIZER, tokenizer.to_json().encode("utf-8"), True),
        (HISTORY, _json_bytes(records_to_json(history)), True),
        (WEIGHTS, _weights_bytes(model), False),  # random-looking floats: deflate gains nothing
    ]
    if trainer_state is not None:
        if "history" in trainer_state:
            trainer_state = {**trainer_state, "history": records_to_json(trainer_state["history"])}
        tensors: dict[str, torch.Tensor] = {}
        encoded = _encode_state(trainer_state, tensors, "trainer_state")
        members += [
            (STATE_JSON, _json_bytes(encoded), True),
            (STATE_TENSORS, safetensors.torch.save(tensors), False),
        ]
    _write_atomically(path, members)
    return path


def _weights_bytes(model: torch.nn.Module) -> bytes:
    """The state dict as safetensors, each shared tensor stored once.

    safetensors refuses two names for one memory, which a tied output layer is. The second
    name is left out and recorded in the metadata as {left-out name: kept name}, the
    convention of ``safetensors.torch.save_model``, so that ``load_model`` reads it too.
    """
    tensors: dict[str, torch.Tensor] = {}
    aliases: dict[str, str] = {}
    seen: dict[tuple, str] = {}
    for name, t in model.state_dict().items():
        key = (t.device, t.data_ptr(), t.dtype, tuple(t.shape), tuple(t.stride()))
        if t.numel() and key in seen:
            aliases[name] = seen[key]
            continue
        seen[key] = name
        tensors[name] = t.detach().to("cpu").contiguous()
    return safetensors.torch.save(tensors, metadata={"format": "pt", **aliases})


def _write_atomically(path: Path, members: list[tuple[str, bytes, bool]]) -> None:
    """Write the zip through ``atomic_write``: ``path`` is the old bundle or the whole new one."""
    with atomic_write(path) as f, zipfile.ZipFile(f, "w") as zf:
        stamp = datetime.now().timetuple()[:6]
        for name, data, compress in members:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            zf.writestr(info, data)


def _json_bytes(obj: Any) -> bytes:
    return json.dumps(obj, indent=1, ensure_ascii=False, default=_json_default).encode("utf-8")


def _json_default(obj: Any) -> Any:
    """Plain values for what training records may carry: numpy and 0-d torch scalars."""
    if isinstance(obj, (np.generic, torch.Tensor)) and getattr(obj, "ndim", 0) == 0:
        return obj.item()
    raise TypeError(f"{type(obj).__name__} cannot be stored in a bundle's JSON")


def _encode_state(obj: Any, tensors: dict[str, torch.Tensor], where: str) -> Any:
    """``obj`` as JSON, its tensors moved into ``tensors`` and replaced by tags.

    JSON has no tensors, tuples or non-string keys, all of which an optimizer's state dict
    uses ({0: {"exp_avg": tensor}}, betas=(0.9, 0.99)); the tags keep them exact:

    >>> tensors = {}
    >>> _encode_state({0: (1, torch.zeros(2))}, tensors, "state")
    {'__items__': [[0, {'__tuple__': [1, {'__tensor__': 't0'}]}]]}
    """
    if isinstance(obj, torch.Tensor):
        name = f"t{len(tensors)}"
        tensors[name] = obj.detach().to("cpu").contiguous().clone()  # clone: no shared memory
        return {"__tensor__": name}
    if isinstance(obj, np.ndarray):
        name = f"t{len(tensors)}"
        try:
            tensors[name] = torch.from_numpy(np.ascontiguousarray(obj).copy())
        except TypeError:
            raise BundleError(msg("{where} is a numpy array of {dtype}, which a bundle cannot "
                                  "store.", where=where, dtype=str(obj.dtype))) from None
        return {"__ndarray__": name}
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, tuple):
        return {"__tuple__": [_encode_state(v, tensors, f"{where}[{i}]") for i, v in enumerate(obj)]}
    if isinstance(obj, list):
        return [_encode_state(v, tensors, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        if all(isinstance(k, str) for k in obj) and not _TAGS & obj.keys():
            return {k: _encode_state(v, tensors, f"{where}.{k}") for k, v in obj.items()}
        return {"__items__": [
            [_encode_state(k, tensors, f"{where} key"),
             _encode_state(v, tensors, f"{where}[{k!r}]")]
            for k, v in obj.items()
        ]}
    raise BundleError(msg("{where} is a {type}; trainer_state may hold only tensors, numpy "
                          "arrays, numbers, strings, None, lists, tuples and dicts (bundles never "
                          "pickle).", where=where, type=type(obj).__name__))


def _decode_state(obj: Any, tensors: dict[str, torch.Tensor]) -> Any:
    """The inverse of ``_encode_state``."""
    if isinstance(obj, list):
        return [_decode_state(v, tensors) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if obj.keys() == {"__tensor__"}:
        return tensors[obj["__tensor__"]]
    if obj.keys() == {"__ndarray__"}:
        return tensors[obj["__ndarray__"]].numpy()
    if obj.keys() == {"__tuple__"}:
        return tuple(_decode_state(v, tensors) for v in obj["__tuple__"])
    if obj.keys() == {"__items__"}:
        return {_decode_state(k, tensors): _decode_state(v, tensors) for k, v in obj["__items__"]}
    return {k: _decode_state(v, tensors) for k, v in obj.items()}


# ---------------------------------------------------------------------------------------------
# Training records: the one place they become JSON (history.json, the trainer state) and back

RECORD_KINDS = {cls.kind: cls for cls in RECORD_TYPES}
# Record fields newer than the history format (each defaults to None): left out while None, so
# a history without them is written as it always was
ADDED_LATER = {"grad_norm"}
# What a record field's JSON value may be, by the field's annotation, and the words for it
_FIELD_TYPES = {
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), msg("a whole number")),
    "float": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), msg("a number")),
    "float | None": (lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)),
                     msg("a number or null")),
    "str": (lambda v: isinstance(v, str), msg("a text")),
    "str | None": (lambda v: v is None or isinstance(v, str), msg("a text or null")),
}


def records_to_json(records: Sequence[Record]) -> list[dict[str, Any]]:
    """The records as ``history.json`` holds them: one object each, its ``kind`` first.

    >>> from playground.train import EndRecord
    >>> records_to_json([EndRecord(3, "done", "Finished.")])
    [{'kind': 'end', 'step': 3, 'reason': 'done', 'message': 'Finished.'}]
    """
    for r in records:
        if not isinstance(r, RECORD_TYPES):
            raise TypeError(f"A training record must be a StepRecord, EvalRecord or EndRecord, "
                            f"got {type(r).__name__}.")
    return [{"kind": r.kind, **{k: v for k, v in dataclasses.asdict(r).items()
                                if not (k in ADDED_LATER and v is None)}} for r in records]


def records_from_json(data: Any, name: str) -> list[Record]:
    """The records ``records_to_json`` wrote, read back from the bundle ``name`` and checked.

    Each object must be of a known ``kind`` with exactly that record's fields, each of its
    type; otherwise a ``BundleError`` names the first one that is not.

    >>> records_from_json([{"kind": "end", "step": 3, "reason": "done", "message": "ok"}], "a.zip")
    [EndRecord(step=3, reason='done', message='ok')]
    >>> records_from_json([{"kind": "end", "step": 3, "reason": "done"}], "a.zip")
    Traceback (most recent call last):
    ...
    playground.checkpoint.BundleError: Record 1 of the training history in 'a.zip' (kind 'end') lacks message: the history is damaged. Save the bundle again.
    """
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise BundleError(msg("The training history in '{name}' is damaged (expected a list of "
                              "records).", name=name))
    return [_record_from_json(item, i + 1, name) for i, item in enumerate(data)]


def _record_from_json(item: dict[str, Any], number: int, name: str) -> Record:
    kind = item.get("kind")
    cls = RECORD_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BundleError(msg("Record {number} of the training history in '{name}' is of the "
                              "unknown kind {kind} (a record is one of: {kinds}). The bundle may "
                              "come from a newer Transformer Playground: update the playground to "
                              "load it.", name=name, number=number, kind=repr(kind),
                              kinds=", ".join(RECORD_KINDS)))
    fields = {f.name: f for f in dataclasses.fields(cls)}
    given = {k: v for k, v in item.items() if k != "kind"}
    unknown = [k for k in given if k not in fields]
    if unknown:
        raise BundleError(msg("Record {number} of the training history in '{name}' (kind "
                              "'{kind}') has fields this version does not know: {fields}. The "
                              "bundle may come from a newer Transformer Playground: update the "
                              "playground to load it.", name=name, number=number, kind=kind,
                              fields=", ".join(map(repr, unknown))))
    missing = [k for k, f in fields.items() if k not in given and f.default is dataclasses.MISSING]
    if missing:
        raise BundleError(msg("Record {number} of the training history in '{name}' (kind "
                              "'{kind}') lacks {fields}: the history is damaged. Save the bundle "
                              "again.", name=name, number=number, kind=kind,
                              fields=", ".join(missing)))
    for key, value in given.items():
        fits, expected = _FIELD_TYPES[fields[key].type]
        if not fits(value):
            raise BundleError(msg("Record {number} of the training history in '{name}' has "
                                  "{field} = {value}, which should be {expected}: the history is "
                                  "damaged. Save the bundle again.",
                                  name=name, number=number, field=key,
                                  value=repr(value)[:40], expected=expected))
    return cls(**given)


# ---------------------------------------------------------------------------------------------
# Loading


def load_bundle(path: str | os.PathLike, device: str | torch.device = "cpu") -> Bundle:
    """Read a bundle, check every part, and rebuild the model on ``device`` (in eval mode).

    Raises ``BundleError`` saying what is wrong for a file that is missing, not a zip,
    damaged, a pickle, another program's zip, from a newer format, incomplete, or whose
    parts do not fit together (settings, weights and tokenizer).
    """
    path = Path(path)
    members = _read_members(path)
    name = path.name

    meta = _json_member(members, META, name)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BundleError(msg("'{name}' is a zip file, but not a Transformer Playground bundle.",
                              name=name))
    version = meta.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BundleError(msg("'{name}' has an unknown bundle format version ({version}); it is "
                              "damaged.", name=name, version=repr(version)))
    if version > FORMAT_VERSION:
        raise BundleError(msg("'{name}' was saved by a newer Transformer Playground (bundle "
                              "format {version}; this one reads format {supported}). Update the "
                              "playground to load it.", name=name, version=version,
                              supported=FORMAT_VERSION))
    missing = [m for m in REQUIRED if m not in members]
    if meta.get("has_trainer_state"):
        missing += [m for m in (STATE_JSON, STATE_TENSORS) if m not in members]
    if missing:
        raise BundleError(msg("'{name}' is incomplete: it lacks {members}. Save the bundle again.",
                              name=name, members=", ".join(missing)))

    model_config = _config(ModelConfig, _json_member(members, MODEL_CONFIG, name),
                           msg("model settings"))
    train_config = _config(TrainConfig, _json_member(members, TRAIN_CONFIG, name),
                           msg("training settings"))
    try:
        tokenizer = tokenizer_from_json(members[TOKENIZER].decode("utf-8"))
    except (TokenizerError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise BundleError(msg("The tokenizer in '{name}' cannot be rebuilt: {reason}",
                              name=name, reason=_reason(exc))) from exc
    if tokenizer.vocab_size != model_config.vocab_size:
        raise BundleError(msg("In '{name}' the tokenizer has {tokens} tokens but the model was "
                              "built for {model}: the parts come from different runs.",
                              name=name, tokens=tokenizer.vocab_size,
                              model=model_config.vocab_size))
    history = records_from_json(_json_member(members, HISTORY, name), name)

    model = _model_from_weights(model_config, members[WEIGHTS], name)
    trainer_state = None
    if STATE_JSON in members:
        tensors, _ = _safetensors(members.get(STATE_TENSORS, b""), msg(
            "the trainer state in '{name}'", name=name))
        try:
            trainer_state = _decode_state(_json_member(members, STATE_JSON, name), tensors)
        except (KeyError, TypeError, ValueError) as exc:
            raise BundleError(msg("The trainer state in '{name}' is damaged ({reason}).",
                                  name=name, reason=repr(exc))) from exc
        if isinstance(trainer_state, dict) and "history" in trainer_state:
            trainer_state["history"] = records_from_json(trainer_state["history"], name)
    model = model.to(device).eval()
    return Bundle(model, tokenizer, model_config, train_config, history, trainer_state, meta)


def _read_members(path: Path) -> dict[str, bytes]:
    """The known members of the zip at ``path``, read in memory after every guard."""
    name = path.name
    if not path.exists():
        raise BundleError(msg("There is no file at '{path}'.", path=str(path)))
    if path.is_dir():
        raise BundleError(msg("'{path}' is a folder; choose the bundle's .zip file.",
                              path=str(path)))
    if path.suffix.lower() in PICKLE_SUFFIXES:
        raise BundleError(msg("'{name}' looks like a PyTorch pickle file ({suffix}). {never}",
                              name=name, suffix=path.suffix,
                              never=NEVER_UNPICKLED))
    with open(path, "rb") as f:
        head = f.read(8)
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:  # PROTO opcode, protocols 2-5
        raise BundleError(msg("'{name}' is a Python pickle. {never}",
                              name=name, never=NEVER_UNPICKLED))
    if not zipfile.is_zipfile(path):
        if path.suffix.lower() == ".zip":
            raise BundleError(msg("'{name}' is damaged or incomplete: it is named .zip, but its "
                                  "zip directory cannot be found (an interrupted download or copy "
                                  "does that).", name=name))
        raise BundleError(msg("'{name}' is not a Transformer Playground bundle (a .zip file).",
                              name=name))
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            _check_listing(infos, name)
            return {i.filename: zf.read(i) for i in infos if i.filename in KNOWN}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise BundleError(msg("'{name}' is damaged: a part of the zip cannot be read ({reason}). "
                              "Save or download it again.", name=name, reason=str(exc))) from exc


def _check_listing(infos: list[zipfile.ZipInfo], name: str) -> None:
    """Refuse crafted zips, pickles inside zips, and zips of something else, before reading."""
    names = [i.filename for i in infos]
    for member in names:
        parts = member.replace("\\", "/").split("/")
        if member.startswith(("/", "\\")) or "\\" in member or ".." in parts or ":" in parts[0]:
            raise BundleError(msg("'{name}' contains a suspicious entry ({member}); it was not "
                                  "loaded.", name=name, member=repr(member)))
    if len(names) != len(set(names)):
        raise BundleError(msg("'{name}' lists the same entry twice; it was not loaded.", name=name))
    if len(names) > MAX_MEMBERS:
        raise BundleError(msg("'{name}' holds {n} entries, far more than a bundle; it was not "
                              "loaded.", name=name, n=len(names)))
    total = sum(i.file_size for i in infos)
    if total > MAX_TOTAL_BYTES:
        raise BundleError(msg("'{name}' would unpack to {size} GiB, more than the {limit} GiB a "
                              "bundle may hold; it was not loaded.",
                              name=name, size=f"{total / 2**30:.1f}",
                              limit=f"{MAX_TOTAL_BYTES / 2**30:.0f}"))
    for i in infos:
        if i.file_size > RATIO_MIN_BYTES and i.file_size > MAX_RATIO * max(i.compress_size, 1):
            raise BundleError(msg("'{name}' has an entry that unpacks {ratio} times larger than "
                                  "it is stored ({member}); that is a zip bomb, not a bundle, so "
                                  "it was not loaded.", name=name, member=i.filename,
                                  ratio=f"{i.file_size // max(i.compress_size, 1):,}"))
    if any(m.endswith((".pkl", ".pickle")) for m in names):
        raise BundleError(msg("'{name}' holds pickled data (a torch.save file?). {never}",
                              name=name, never=NEVER_UNPICKLED))
    if META not in names:
        nested = [m for m in names if m.endswith("/" + META)]
        if nested:
            raise BundleError(msg("'{name}' is a zip file, but not a Transformer Playground "
                                  "bundle. Its files sit in a folder ({folder}/); zip the files "
                                  "themselves.", name=name,
                                  folder=nested[0].rsplit("/", 1)[0]))
        held = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
        raise BundleError(msg("'{name}' is a zip file, but not a Transformer Playground bundle. "
                              "It holds: {members}.", name=name, members=held))


def _json_member(members: dict[str, bytes], member: str, name: str) -> Any:
    if member not in members:
        raise BundleError(msg("'{name}' is incomplete: it lacks {members}. Save the bundle again.",
                              name=name, members=member))
    try:
        return json.loads(members[member].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # Recursion: deep nesting
        raise BundleError(msg("{member} in '{name}' is damaged (not valid JSON: {reason}).",
                              member=member, name=name, reason=str(exc))) from exc


def _config(cls, data: Any, what: str):
    """A config from a dict, any problem turned into a BundleError that keeps its message."""
    if not isinstance(data, dict):
        raise BundleError(msg("The {what} in this bundle are damaged (expected a JSON object).",
                              what=what))
    try:
        return cls.from_dict(data)
    except (ConfigError, TypeError) as exc:
        raise BundleError(msg("The {what} in this bundle cannot be used: {reason}",
                              what=what, reason=_reason(exc))) from exc


def _safetensors(data: bytes, what: str) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """Tensors and metadata from safetensors bytes (the header is 8 bytes of length + JSON)."""
    try:
        (header_len,) = struct.unpack("<Q", data[:8])
        if header_len > len(data) - 8:
            raise ValueError("the header is longer than the file")
        metadata = json.loads(data[8:8 + header_len]).get("__metadata__") or {}
        return safetensors.torch.load(data), metadata
    except Exception as exc:  # safetensors raises its own SafetensorError; struct, json theirs
        raise BundleError(msg("The tensors of {what} are damaged ({reason}).",
                              what=what, reason=str(exc))) from exc


def _model_from_weights(config: ModelConfig, data: bytes, name: str) -> GPT:
    """Build ``GPT(config)`` and load the weights, after checking they fit it exactly."""
    tensors, metadata = _safetensors(data, msg("the model in '{name}'", name=name))
    for left_out, kept in metadata.items():  # restore the names of shared (tied) tensors
        if left_out not in tensors and kept in tensors:
            tensors[left_out] = tensors[kept]
    with torch.device("meta"):  # shapes only: settings that claim a huge model allocate nothing
        expected = GPT(config).state_dict()
    problems = [msg("{tensor} is missing", tensor=k) for k in expected if k not in tensors]
    problems += [msg("{tensor} is not part of this model",
                     tensor=k) for k in tensors if k not in expected]
    problems += [
        msg("{tensor} is {shape} but these settings make it {expected}",
            tensor=k, shape=str(tuple(tensors[k].shape)),
            expected=str(tuple(expected[k].shape)))
        for k in expected if k in tensors and tensors[k].shape != expected[k].shape
    ]
    problems += [
        msg("{tensor} holds {dtype} values, not floating-point weights",
            tensor=k, dtype=str(tensors[k].dtype))
        for k in expected if k in tensors and not tensors[k].is_floating_point()
    ]
    if problems:
        shown = problems[0]  # "a; b; c; d; and 3 more", each part translatable
        for problem in problems[1:4]:
            shown = msg("{first}; {then}", first=shown, then=problem)
        if len(problems) > 4:
            shown = msg("{first}; and {n} more", first=shown, n=len(problems) - 4)
        raise BundleError(msg("The weights in '{name}' do not fit its model settings: {problems}.",
                              name=name, problems=shown))
    model = GPT(config)  # the weights fit it exactly, so it is no bigger than they are
    first_of: dict[int, str] = {}
    for k, t in model.state_dict().items():  # names the settings tie must hold equal matrices
        if t.numel() and first_of.setdefault(t.data_ptr(), k) != k:
            if not torch.equal(tensors[k], tensors[first_of[t.data_ptr()]]):
                raise BundleError(msg("The weights in '{name}' hold different values for {first} "
                                      "and {second}, but its settings tie them (tie_weights=True).",
                                      name=name, first=first_of[t.data_ptr()],
                                      second=k))
    model.load_state_dict(tensors, strict=True)
    return model
