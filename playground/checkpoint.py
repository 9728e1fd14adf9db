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

This is bundle format 2 (``FORMAT_VERSION``). A format-1 bundle is read by upgrading its
contents to format 2 in one function, ``_upgrade``, the only place that knows older bundles:
everything after it reads format 2 alone.

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
>>> bundle = load_bundle(path)  # a TrainedModel
>>> idx = torch.tensor([tok.encode("hello")])
>>> torch.equal(bundle.model(idx).logits, model.eval()(idx).logits)
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shutil
import struct
import zipfile
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import safetensors.torch
import torch

from playground import __version__
from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.runtime.files import atomic_write, human_bytes
from playground.runtime import compute
from playground.i18n import Message, msg
from playground.model import GPT, inference_memory
from playground.optim import build_optimizer
from playground.prepare import MEMORY_HEADROOM
from playground.runtime.device import available_memory
from playground.runtime.hosting import model_memory_cap
from playground.tokenizer import Tokenizer, TokenizerError, tokenizer_from_data
from playground.train import RECORD_TYPES, Record
from playground.trained import TrainedModel

FORMAT = "transformer-playground-bundle"
FORMAT_VERSION = 2  # what format 2 changed from 1: see _upgrade

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
DISK_MARGIN_BYTES = 16 * 2**20  # a save leaves at least this much of the disk free

# What each member may unpack to, checked before it is read (the zip declares the sizes)
MAX_SETTINGS_BYTES = 64 * 2**10  # meta and the two configs: a few hundred bytes each
MAX_TOKENIZER_BYTES = 8 * 2**20  # a character tokenizer of 1,000,000 characters; BPE 16,384: 1 MB
MAX_HISTORY_BYTES = 8 * 2**20  # the trainer keeps at most 5,000 step records: about 1 MB
MAX_STATE_JSON_BYTES = 12 * 2**20  # the history again, and the optimizer's few numbers
MAX_BYTES_PER_VALUE = 8  # a weight is at most a float64
TENSOR_HEADER_BYTES = 2**20  # room for a safetensors header (about 100 bytes per tensor)
STATE_VALUES_PER_PARAMETER = 2  # AdamW's two moments (Muon keeps one); RNG states are small
MAX_JSON_DEPTH = 20  # the trainer state nests 8 deep, a tokenizer 5
JSON_BYTES_PER_CONTAINER = 8

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


# ---------------------------------------------------------------------------------------------
# Saving


@compute.routed
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
    documents = [  # (name, JSON bytes): small, deflated
        (META, _json_bytes(meta)),
        (MODEL_CONFIG, _json_bytes(model_config.to_dict())),
        (TRAIN_CONFIG, _json_bytes(train_config.to_dict())),
        (TOKENIZER, tokenizer.to_json().encode("utf-8")),
        (HISTORY, _json_bytes(records_to_json(history))),
    ]
    weights, aliases = _unique_tensors(model)
    tables = [(WEIGHTS, weights, {"format": "pt", **aliases})]  # (name, tensors, metadata)
    if trainer_state is not None:
        if "history" in trainer_state:
            trainer_state = {**trainer_state, "history": records_to_json(trainer_state["history"])}
        tensors: dict[str, torch.Tensor] = {}
        documents.append((STATE_JSON, _json_bytes(_encode_state(trainer_state, tensors,
                                                                "trainer_state"))))
        tables.append((STATE_TENSORS, tensors, None))
    need = (sum(len(data) for _, data in documents)
            + sum(_tensor_bytes(t) for _, tensors, _ in tables for t in tensors.values()))
    _check_disk_space(path, need)
    try:
        _write_atomically(path, documents, tables)
    except OSError as exc:  # a full disk mid-write, a folder that cannot be written to
        raise BundleError(msg("The bundle '{name}' could not be written ({reason}). Nothing was "
                              "replaced: an earlier file of that name is kept as it was.",
                              name=path.name, reason=exc.strerror or type(exc).__name__)) from exc
    return path


def _unique_tensors(model: torch.nn.Module) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """The state dict with each shared tensor once, and {left-out name: kept name}.

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
        tensors[name] = t.detach()
    return tensors, aliases


# safetensors' names for the dtypes a bundle may hold
_SAFETENSORS_DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.uint16: "U16", torch.uint32: "U32", torch.uint64: "U64",
    torch.bool: "BOOL",
}


def _tensor_bytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _safetensors_header(tensors: dict[str, torch.Tensor], metadata: dict[str, str] | None) -> bytes:
    """The 8-byte length and JSON header of a safetensors file holding ``tensors`` in order.

    >>> header = _safetensors_header({"w": torch.zeros(2)}, None)
    >>> len(header) % 8, header[8:].decode().rstrip()
    (0, '{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}')
    """
    header: dict[str, Any] = {}
    offset = 0
    for name, t in tensors.items():
        if t.dtype not in _SAFETENSORS_DTYPES:
            raise BundleError(msg("{tensor} holds {dtype} values, which a bundle cannot store.",
                                  tensor=name, dtype=str(t.dtype)))
        size = _tensor_bytes(t)
        header[name] = {"dtype": _SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the tensors start 8-byte aligned, as safetensors writes
    return struct.pack("<Q", len(text)) + text


def _write_atomically(path: Path, documents: list[tuple[str, bytes]],
                      tables: list[tuple[str, dict[str, torch.Tensor], dict[str, str] | None]]) -> None:
    """Write the zip through ``atomic_write``: ``path`` is the old bundle or the whole new one.

    Each table of tensors is streamed into its member as a safetensors file, one tensor at a
    time straight from its memory, so saving holds no second copy of the weights or of the
    optimizer's state (``safetensors.torch.save`` would build the whole file in memory).
    """
    with atomic_write(path) as f, zipfile.ZipFile(f, "w") as zf:
        stamp = datetime.now().timetuple()[:6]
        for name, data in documents:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
        for name, tensors, metadata in tables:
            header = _safetensors_header(tensors, metadata)
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_STORED  # random-looking floats: deflate gains nothing
            info.file_size = len(header) + sum(_tensor_bytes(t) for t in tensors.values())
            with zf.open(info, "w") as out:
                out.write(header)
                for t in tensors.values():
                    data = t.detach().to("cpu").contiguous()  # no copy for a CPU tensor
                    if data.numel():
                        out.write(memoryview(data.reshape(-1).view(torch.uint8).numpy()))


def _check_disk_space(path: Path, need: int) -> None:
    """Refuse a save that cannot fit on the disk before anything is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(path.parent).free
    if need + DISK_MARGIN_BYTES > free:
        raise BundleError(msg("There is not enough free disk space to save the bundle '{name}': "
                              "it needs about {need} and {free} is free. Nothing was written, and "
                              "an earlier file of that name is kept as it was.", name=path.name,
                              need=human_bytes(need + DISK_MARGIN_BYTES), free=human_bytes(free)))


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
        tensors[name] = obj.detach()  # written as it is: saving makes no copy (_write_atomically)
        return {"__tensor__": name}
    if isinstance(obj, np.ndarray):
        name = f"t{len(tensors)}"
        try:
            tensors[name] = torch.from_numpy(np.ascontiguousarray(obj))
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
# fields added to format 2 after its first bundles, with defaults that say "not measured":
# a bundle saved before one existed lacks it and reads as its default (an evaluation's
# accuracy, measured for toy tasks only: None)
ADDED_IN_FORMAT_2 = {("eval", "accuracy")}
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
    """The records as ``history.json`` holds them: one object each, its ``kind`` first, then
    every field (a step's ``grad_norm`` ``None`` where it was not measured).

    >>> from playground.train import EndRecord, StepRecord
    >>> records_to_json([EndRecord(3, "done", "Finished.")])
    [{'kind': 'end', 'step': 3, 'reason': 'done', 'message': 'Finished.'}]
    >>> records_to_json([StepRecord(1, 64, 4.2, 1e-3, 900.0, 0.1)])[0]["grad_norm"] is None
    True
    """
    for r in records:
        if not isinstance(r, RECORD_TYPES):
            raise TypeError(f"A training record must be a StepRecord, EvalRecord or EndRecord, "
                            f"got {type(r).__name__}.")
    return [{"kind": r.kind, **dataclasses.asdict(r)} for r in records]


def records_from_json(data: Any, name: str) -> list[Record]:
    """The records ``records_to_json`` wrote, read back from the bundle ``name`` and checked.

    Each object must be of a known ``kind`` with exactly that record's fields, all of them
    (format 2: ``_upgrade`` fills in what format-1 histories lack), each of its type;
    otherwise a ``BundleError`` names the first one that is not.

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
    missing = [k for k in fields if k not in given and (kind, k) not in ADDED_IN_FORMAT_2]
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


@compute.routed
def load_bundle(path: str | os.PathLike, device: str | torch.device = "cpu", *,
                max_memory: int | None = None, strict_state: bool = True) -> TrainedModel:
    """Read a bundle, check every part, and rebuild the model on ``device`` (in eval mode), as
    a ``TrainedModel`` (with the bundle's ``meta``; no corpus: a bundle does not carry its text).

    A format-1 bundle is upgraded to format 2 as it is read (``_upgrade``); a bundle of a
    newer format than ``FORMAT_VERSION`` is refused, saying to update the playground.

    Raises ``BundleError`` saying what is wrong for a file that is missing, not a zip,
    damaged, a pickle, another program's zip, from a newer format, incomplete, or whose
    parts do not fit together (settings, weights and tokenizer), or are not what this app
    writes (non-finite weights, a trainer state resuming could not use).

    Nothing is read before it is bounded: every member's unpacked size is checked against
    its limit first (the settings' few kilobytes, the tokenizer's and history's few
    megabytes, weights no bigger than the model settings say), and a model whose weights,
    buffers and KV cache (``model.inference_memory``) would not fit ``max_memory`` bytes
    (default: ``MEMORY_HEADROOM`` of the device's free memory) is refused before it is built.
    A trainer state must be one ``Trainer.load_state_dict`` can resume from, checked field by
    field; ``strict_state=False`` takes any state ``save_bundle`` can write instead.
    """
    path = Path(path)
    name = path.name
    with _open_zip(path) as zf:
        names = set(zf.namelist())
        meta = _json(_read(zf, META, MAX_SETTINGS_BYTES, name), META, name)
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise BundleError(msg("'{name}' is a zip file, but not a Transformer Playground "
                                  "bundle.", name=name))
        version = meta.get("format_version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise BundleError(msg("'{name}' has an unknown bundle format version ({version}); it "
                                  "is damaged.", name=name, version=repr(version)[:20]))
        if version > FORMAT_VERSION:
            raise BundleError(msg("'{name}' was saved by a newer Transformer Playground (bundle "
                                  "format {version}; this one reads format {supported}). Update "
                                  "the playground to load it.", name=name, version=version,
                                  supported=FORMAT_VERSION))
        missing = [m for m in REQUIRED if m not in names]
        if meta.get("has_trainer_state"):
            missing += [m for m in (STATE_JSON, STATE_TENSORS) if m not in names]
        if missing:
            raise BundleError(msg("'{name}' is incomplete: it lacks {members}. Save the bundle "
                                  "again.", name=name, members=", ".join(missing)))

        documents = {META: meta}  # the JSON members, each bounded before it is read
        for member, limit in ((MODEL_CONFIG, MAX_SETTINGS_BYTES), (TRAIN_CONFIG, MAX_SETTINGS_BYTES),
                              (TOKENIZER, MAX_TOKENIZER_BYTES), (HISTORY, MAX_HISTORY_BYTES),
                              (STATE_JSON, MAX_STATE_JSON_BYTES)):
            if member in names:
                documents[member] = _json(_read(zf, member, limit, name), member, name)
        documents = _upgrade(documents)  # format 2 from here on

        model_config = _config(ModelConfig, documents[MODEL_CONFIG], msg("model settings"))
        train_config = _config(TrainConfig, documents[TRAIN_CONFIG], msg("training settings"))
        n_values = _check_fits(model_config, name, torch.device(device), max_memory)
        try:
            tokenizer = tokenizer_from_data(documents[TOKENIZER])
        except (TokenizerError, KeyError, TypeError) as exc:
            raise BundleError(msg("The tokenizer in '{name}' cannot be rebuilt: {reason}",
                                  name=name, reason=_reason(exc))) from exc
        if tokenizer.vocab_size != model_config.vocab_size:
            raise BundleError(msg("In '{name}' the tokenizer has {tokens} tokens but the model was "
                                  "built for {model}: the parts come from different runs.",
                                  name=name, tokens=tokenizer.vocab_size,
                                  model=model_config.vocab_size))
        history = records_from_json(documents[HISTORY], name)
        weights_cap = MAX_BYTES_PER_VALUE * n_values + TENSOR_HEADER_BYTES
        model = _model_from_weights(model_config, _read(zf, WEIGHTS, weights_cap, name), name)
        trainer_state = None
        if STATE_JSON in documents:
            state_cap = STATE_VALUES_PER_PARAMETER * weights_cap
            data = _read(zf, STATE_TENSORS, state_cap, name) if STATE_TENSORS in names else b""
            tensors, _ = _safetensors(data, msg("the trainer state in '{name}'", name=name))
            del data
            try:
                trainer_state = _decode_state(documents[STATE_JSON], tensors)
            except (KeyError, TypeError, ValueError) as exc:
                raise BundleError(msg("The trainer state in '{name}' is damaged ({reason}).",
                                      name=name, reason=repr(exc)[:80])) from exc
            if isinstance(trainer_state, dict) and "history" in trainer_state:
                trainer_state["history"] = records_from_json(trainer_state["history"], name)
            if strict_state:
                _check_trainer_state(trainer_state, model, train_config, name)
    model = model.to(device).eval()
    return TrainedModel(model, tokenizer, model_config, train_config, history, trainer_state,
                        meta=documents[META])


def _upgrade(documents: dict[str, Any]) -> dict[str, Any]:
    """A bundle's JSON members (by member name, ``meta.json`` included), as format 2 has them.

    The one place that knows older bundles. What format 2 changed from format 1:

    * ``meta.json``: ``format_version`` 2 (an upgraded bundle's meta also says
      ``upgraded_from``).
    * ``model_config.json`` and ``train_config.json`` hold every setting. Format-1 bundles
      saved before a setting existed (``qk_norm``, ``token_shift``, ...) lack it, and were made
      without it: its default (False for those) is filled in.
    * every record of a history (``history.json``, the trainer state's ``history``) has every
      field: format 1 left out a step's ``grad_norm`` while it was not measured (and bundles
      saved before it was recorded have none); it is ``null`` there.
    * ``trainer_state.json`` always has ``next_starts`` (``null``: the next step draws its own
      batch; bundles saved before it existed lack it), and the dropout generator's state is
      in ``torch_rng``: CUDA runs of format 1 kept it in ``cuda_rng`` (their ``torch_rng`` was
      the CPU generator's, which their dropout did not draw from), so ``cuda_rng`` takes its
      place.
    * a BPE tokenizer's merges are ``[left, right]`` pairs, as tokenizers >= 0.20 writes them;
      bundles saved with an older tokenizers have ``"left right"`` strings.

    Damaged parts are left as they are, for the checks after to name.

    >>> old = {META: {"format": FORMAT, "format_version": 1}, MODEL_CONFIG: {"n_layer": 2},
    ...        HISTORY: [{"kind": "step", "step": 1, "tokens": 8, "loss": 4.0, "lr": 0.001,
    ...                   "tokens_per_s": 80.0, "elapsed": 0.1}]}
    >>> new = _upgrade(old)
    >>> new[META]["format_version"], new[MODEL_CONFIG]["qk_norm"], new[HISTORY][0]["grad_norm"]
    (2, False, None)
    >>> _upgrade(new) == new  # format 2 is left as it is
    True
    """
    meta = documents[META]
    if meta["format_version"] >= 2:
        return documents
    upgraded = {**documents, META: {**meta, "format_version": 2, "upgraded_from": 1}}
    for member, cls in ((MODEL_CONFIG, ModelConfig), (TRAIN_CONFIG, TrainConfig)):
        settings = documents.get(member)
        if isinstance(settings, dict):
            upgraded[member] = {**_defaults(cls), **settings}
    upgraded[HISTORY] = _upgrade_history(documents.get(HISTORY))
    tokenizer = documents.get(TOKENIZER)
    inner = tokenizer.get("tokenizer") if isinstance(tokenizer, dict) else None
    model = inner.get("model") if isinstance(inner, dict) else None
    if isinstance(model, dict) and isinstance(model.get("merges"), list):
        merges = [m.split(" ", 1) if isinstance(m, str) else m for m in model["merges"]]
        upgraded[TOKENIZER] = {**tokenizer, "tokenizer": {**tokenizer["tokenizer"],
                                                          "model": {**model, "merges": merges}}}
    state = documents.get(STATE_JSON)
    if isinstance(state, dict):
        state = {"next_starts": None, **state}
        if "history" in state:
            state["history"] = _upgrade_history(state["history"])
        if state.get("cuda_rng") is not None:
            state["torch_rng"] = state["cuda_rng"]
        state.pop("cuda_rng", None)
        upgraded[STATE_JSON] = state
    return upgraded


def _defaults(cls) -> dict[str, Any]:
    """The default of each field of a dataclass that has one."""
    return {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}


def _upgrade_history(records: Any) -> Any:
    """A format-1 history with every record's missing fields at their defaults (``None``)."""
    if not isinstance(records, list):
        return records
    return [{**_defaults(RECORD_KINDS[r["kind"]]), **r}
            if isinstance(r, dict) and isinstance(r.get("kind"), str) and r["kind"] in RECORD_KINDS
            else r for r in records]


@contextlib.contextmanager
def _open_zip(path: Path) -> Iterator[zipfile.ZipFile]:
    """The zip at ``path``, opened after the guards on the file and on its listing."""
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
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
        raise BundleError(msg("'{name}' is damaged: a part of the zip cannot be read ({reason}). "
                              "Save or download it again.", name=name,
                              reason=type(exc).__name__)) from exc
    with zf:
        _check_listing(zf.infolist(), name)
        yield zf


def _read(zf: zipfile.ZipFile, member: str, limit: int, name: str) -> bytes:
    """One member's bytes, refused before reading when the zip says it unpacks past ``limit``
    (zipfile never inflates a member past the size its listing declares: the CRC check fails)."""
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise BundleError(msg("'{name}' is incomplete: it lacks {members}. Save the bundle again.",
                              name=name, members=member)) from None
    if info.file_size > limit:
        raise BundleError(msg("In '{name}', {member} would unpack to {size}, more than the {limit} "
                              "it can take in a bundle of these settings (the file is damaged or "
                              "was made to exhaust memory), so it was not loaded.", name=name,
                              member=member, size=human_bytes(info.file_size),
                              limit=human_bytes(limit)))
    try:
        return zf.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise BundleError(msg("'{name}' is damaged: a part of the zip cannot be read ({reason}). "
                              "Save or download it again.", name=name,
                              reason=type(exc).__name__)) from exc


def _check_fits(config: ModelConfig, name: str, device: torch.device,
                max_memory: int | None) -> int:
    """Refuse a model that could not be loaded and used here; returns its number of weight
    values (each tensor of the state dict once), which bounds the weights' member."""
    with torch.device("meta"):  # shapes only; a tied matrix is one object, counted once
        tensors = GPT(config).state_dict(keep_vars=True).values()
        n_values = sum({id(t): t.numel() for t in tensors}.values())
    # the file's bytes and the tensors read from them live beside the model while it loads
    need = inference_memory(config) + 2 * 4 * n_values
    if max_memory is None:
        free = available_memory(device)
        max_memory = None if free is None else int(MEMORY_HEADROOM * free)
        cap = model_memory_cap()  # shared hosting: one model's share, however much is free
        if cap is not None:
            max_memory = cap if max_memory is None else min(max_memory, cap)
    if max_memory is not None and need > max_memory:
        raise BundleError(msg("'{name}' holds a model that needs about {need} of memory to load and "
                              "generate with (its weights, the position tables and a KV cache over "
                              "its {block_size}-token context), but only {free} can be given to it "
                              "here. It was not loaded.", name=name, need=human_bytes(need),
                              block_size=f"{config.block_size:,}", free=human_bytes(max_memory)))
    return n_values


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
    if any(i.flag_bits & 0x1 for i in infos):  # bit 0: the entry is encrypted
        raise BundleError(msg("'{name}' is password-protected (encrypted). Bundles are never "
                              "encrypted: upload the .zip file as this app saved it.", name=name))
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


def _json(data: bytes, member: str, name: str) -> Any:
    """A member's JSON, refused unless it is shaped like what this app writes.

    The size was bounded before reading (``_read``); here the count of objects and lists is
    bounded too, because ``[{},{},...]`` costs about 24 bytes of memory per byte of JSON
    (every container this app writes takes 10 bytes of text or more), and so is the nesting.
    """
    containers = data.count(b"{") + data.count(b"[")  # brackets inside strings count too: a bound
    if containers > 64 + len(data) // JSON_BYTES_PER_CONTAINER:
        raise BundleError(msg("{member} in '{name}' is not what this app writes: it holds {n} "
                              "objects and lists in {size} of JSON, so it was not read.",
                              member=member, name=name, n=f"{containers:,}",
                              size=human_bytes(len(data))))
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # Recursion: deep nesting
        raise BundleError(msg("{member} in '{name}' is damaged (not valid JSON: {reason}).",
                              member=member, name=name, reason=str(exc)[:80])) from exc
    if _deeper_than(value, MAX_JSON_DEPTH):
        raise BundleError(msg("{member} in '{name}' is nested more than {depth} levels deep, far "
                              "deeper than anything this app writes, so it was not read.",
                              member=member, name=name, depth=MAX_JSON_DEPTH))
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` deep (no recursion).

    >>> _deeper_than({"a": [[1]]}, 3), _deeper_than({"a": [[1]]}, 2)
    (False, True)
    """
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


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
    if not problems:  # a NaN or infinite weight would only fail later, in the first forward pass
        problems += [msg("{tensor} holds values that are not finite numbers (NaN or infinity)",
                         tensor=k) for k in expected if not bool(torch.isfinite(tensors[k]).all())]
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


# ---------------------------------------------------------------------------------------------
# The trainer state: checked field by field against what Trainer.state_dict() writes

STATE_FIELDS = {"step", "elapsed", "train_time", "optimizer", "train_rng", "eval_rng",
                "torch_rng", "next_starts", "history"}
OPTIONAL_STATE_FIELDS = {"scaler"}  # only runs in float16 have a gradient scaler
MAX_STEP = 10_000_000  # TrainConfig.max_steps' own limit


def _check_trainer_state(state: Any, model: GPT, train_config: TrainConfig, name: str) -> None:
    """Refuse a trainer state that resuming could not use, naming the first field that is wrong:
    the counters (whole or finite numbers, not negative), each random generator's state (one
    torch accepts), the optimizer's (its groups as the model's optimizer has them, for every
    parameter tensors of its shape, all finite) and the rest (types and shapes)."""
    def refuse(field: str, problem: Message) -> None:
        raise BundleError(msg("The trainer state in '{name}' cannot be used to continue training: "
                              "{field} {problem}. The bundle was not loaded; save it again from a "
                              "run.", name=name, field=field, problem=problem))

    if not isinstance(state, dict):
        refuse("trainer_state", msg("is not a set of named values"))
    for key in sorted(STATE_FIELDS - state.keys()):
        refuse(key, msg("is missing"))
    for key in sorted(state.keys() - STATE_FIELDS - OPTIONAL_STATE_FIELDS):
        refuse(repr(key)[:40], msg("is not a field of a trainer state"))
    step = state["step"]
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= MAX_STEP:
        refuse("step", msg("must be a whole number from 0 to {high}", high=f"{MAX_STEP:,}"))
    for key in ("elapsed", "train_time"):
        value = state[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and value >= 0):
            refuse(key, msg("must be a number of seconds, 0 or more"))
    for key in ("train_rng", "eval_rng", "torch_rng"):
        # torch_rng is the dropout generator's, on the run's device: a GPU's is 16 bytes
        if not (_is_generator_state(state[key]) or key == "torch_rng"
                and _is_cuda_generator_state(state[key])):
            refuse(key, msg("is not the state of a random number generator"))
    starts = state["next_starts"]
    if starts is not None and not (isinstance(starts, torch.Tensor) and starts.dim() == 1
                                   and starts.dtype == torch.int64 and starts.numel() <= 65_536
                                   and bool((starts >= 0).all())):
        refuse("next_starts", msg("must be a list of positions in the text"))
    scaler = state.get("scaler")
    if scaler is not None and not (isinstance(scaler, dict) and all(
            _finite_number(v) for v in scaler.values())):
        refuse("scaler", msg("must hold finite numbers"))
    _check_optimizer_state(state["optimizer"], model, train_config, refuse)


def _is_generator_state(value: Any) -> bool:
    """Whether torch takes ``value`` as a CPU generator's state (tried on a scratch generator)."""
    if not isinstance(value, torch.Tensor) or value.dtype != torch.uint8 or value.dim() != 1:
        return False
    try:
        torch.Generator().set_state(value)
    except (RuntimeError, TypeError, ValueError):
        return False
    return True


def _is_cuda_generator_state(value: Any) -> bool:
    """Whether ``value`` has the form of a CUDA generator's state: its seed and offset, 16 bytes."""
    return (isinstance(value, torch.Tensor) and value.dtype == torch.uint8 and value.dim() == 1
            and value.numel() == 16)


def _finite_number(value: Any) -> bool:
    return (not isinstance(value, bool) and isinstance(value, (int, float))
            and math.isfinite(value))


def _check_optimizer_state(saved: Any, model: GPT, train_config: TrainConfig, refuse) -> None:
    """The optimizer's saved state against a fresh optimizer for the model: the same groups
    of the same parameters, finite settings, and per parameter finite tensors of its shape
    (``step`` a single number)."""
    kind = "muon" if isinstance(saved, dict) and saved.keys() == {"adamw", "muon"} else "adamw"
    fresh = build_optimizer(model, dataclasses.replace(train_config, optimizer=kind), "cpu")
    parts = ({"adamw": fresh.adamw, "muon": fresh.muon} if kind == "muon" else {"": fresh})
    for part, optimizer in parts.items():
        where = f"optimizer.{part}" if part else "optimizer"
        state = saved[part] if part else saved
        if not (isinstance(state, dict) and isinstance(state.get("state"), dict)
                and isinstance(state.get("param_groups"), list)):
            refuse(where, msg("is not an optimizer's state"))
        groups = state["param_groups"]
        expected = optimizer.state_dict()["param_groups"]
        if len(groups) != len(expected) or any(
                not isinstance(g, dict) or g.get("params") != e["params"]
                for g, e in zip(groups, expected)):
            refuse(f"{where}.param_groups", msg("do not match this model's parameters"))
        for i, group in enumerate(groups):
            for key, value in group.items():
                values = value if isinstance(value, (tuple, list)) and key != "params" else [value]
                if any(isinstance(v, float) and not math.isfinite(v) for v in values):
                    refuse(f"{where}.param_groups[{i}].{key}", msg("must be a finite number"))
        shapes = {index: p.shape for g, e in zip(optimizer.param_groups, expected)
                  for index, p in zip(e["params"], g["params"])}
        for index, entry in state["state"].items():
            field = f"{where}.state[{repr(index)[:20]}]"
            if index not in shapes or not isinstance(entry, dict):
                refuse(field, msg("is not the state of one of this model's parameters"))
            for key, value in entry.items():
                single = key == "step"
                fits = isinstance(value, torch.Tensor) and value.is_floating_point() and (
                    value.numel() == 1 if single else value.shape == shapes[index])
                if not fits and not (single and _finite_number(value)):
                    refuse(f"{field}.{repr(key)[:20]}", msg(
                        "must be a number" if single else
                        "must be a tensor of its parameter's shape {shape}",
                        shape=str(tuple(shapes[index]))))
                if isinstance(value, torch.Tensor) and not bool(torch.isfinite(value).all()):
                    refuse(f"{field}.{repr(key)[:20]}", msg("holds values that are not finite"))
