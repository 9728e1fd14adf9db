"""Tokenizers: text <-> integer ids, two kinds behind one interface.

* ``CharTokenizer``: one id per distinct character of the training text, sorted, with no
  special tokens, so Tiny Shakespeare gives exactly 65. A character it has never seen makes
  ``encode`` raise a ``TokenizerError`` that names the character (repr and U+ code) and says
  to retrain; nothing is silently replaced, so an id the model cannot handle never reaches it.
* ``BPETokenizer``: byte-level BPE trained with Hugging Face ``tokenizers``. Its base
  vocabulary is the 256 bytes, so *any* text encodes and decodes back exactly, including
  characters the training text never had. No special tokens either: ``vocab_size`` is
  256 bytes + the learned merges, all of them real text.

Both save to one JSON string ``{"kind": "char" | "bpe", ...}``.

>>> tok = train_tokenizer("char", "hello world")
>>> tok.vocab_size, tok.encode("hello")
(8, [3, 2, 4, 4, 5])
>>> tok.decode([7, 5, 6, 4, 1])
'world'
>>> tokenizer_from_json(tok.to_json()).encode("hello")
[3, 2, 4, 4, 5]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from playground.runtime.files import atomic_write
from playground.i18n import msg

KINDS = ("char", "bpe")
BPE_MIN_VOCAB = 256  # the 256 byte tokens; fewer would break the any-text round trip
BPE_MAX_VOCAB = 16_384
BPE_DEFAULT_VOCAB = 512
# Texts longer than this are encoded in pieces of about this size with encode_batch (about 2x
# faster on 1 MB than one long call), and BPE trains on such pieces (5x faster than one string).
_PIECE_CHARS = 4096
# BPE training rescans every word a merge touches, so one long word costs merges x its length:
# 100 KB of letters without a space took 19 s, 1 MB would take half an hour. Training cuts any
# run of non-space (or of space) characters longer than this; ordinary words never are.
MAX_TRAINING_RUN = 64
_LONG_RUN = re.compile(r"\S{%d,}|\s{%d,}" % (MAX_TRAINING_RUN + 1, MAX_TRAINING_RUN + 1))


class TokenizerError(ValueError):
    """A tokenizer that cannot be built, loaded or applied, with a message meant for a person
    (a ``Message``, which ``i18n.error_text`` says again in the page's language)."""


class Tokenizer:
    """What every tokenizer offers. Subclasses set ``kind`` and implement the hooks."""

    kind: str = ""

    @property
    def vocab_size(self) -> int:
        raise NotImplementedError

    def encode(self, text: str) -> list[int]:
        raise NotImplementedError

    def decode(self, ids: Iterable[int]) -> str:
        raise NotImplementedError

    def token_str(self, id: int) -> str:
        """The text of one token, for labels (partial UTF-8 bytes show as ``<0xE4>``)."""
        raise NotImplementedError

    def _payload(self) -> dict[str, Any]:
        """Everything besides ``kind`` that ``to_json`` stores."""
        raise NotImplementedError

    def encode_array(self, text: str) -> np.ndarray:
        """``encode`` as a 1-D int64 array, ready for ``torch.from_numpy`` (shape (n_tokens,))."""
        return np.array(self.encode(text), dtype=np.int64)

    def token_strs(self, ids: Iterable[int]) -> list[str]:
        """One display string per id, e.g. for the axes of an attention map."""
        return [self.token_str(i) for i in self._checked_ids(ids)]

    def chars_per_token(self, text: str) -> float:
        """Average characters per token on ``text``: 1.0 for char level, more for BPE."""
        if not text:
            raise TokenizerError(msg("Characters per token needs a non-empty text."))
        return len(text) / len(self.encode(text))

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, **self._payload()}, ensure_ascii=False)

    def save(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        with atomic_write(path) as f:
            f.write(self.to_json().encode("utf-8"))
        return path

    def _checked_ids(self, ids: Iterable[int]) -> list[int]:
        """Plain ints from a list, numpy array or tensor, each checked to be in the vocabulary."""
        # One numpy pass instead of a Python check per id: 1M ids in ~50 ms, not ~1 s.
        arr = np.asarray(ids.tolist() if hasattr(ids, "tolist") else list(ids))
        if arr.size == 0:
            return []
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise TokenizerError(msg("Token ids must be a flat list of whole numbers, got {dtype} "
                                     "values of shape {shape}.",
                                     dtype=str(arr.dtype), shape=str(arr.shape)))
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high >= self.vocab_size:
            raise TokenizerError(msg("Token id {id} is not in this tokenizer's vocabulary of "
                                     "{vocab} (ids 0 to {last}).",
                                     id=f"{low if low < 0 else high:,}",
                                     vocab=f"{self.vocab_size:,}", last=f"{self.vocab_size - 1:,}"))
        return arr.tolist()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"


# --- character level ----------------------------------------------------------------------

class CharTokenizer(Tokenizer):
    """One token per character; the vocabulary is the training text's characters, sorted.

    >>> tok = CharTokenizer.train("banana")
    >>> tok.chars, tok.encode("nab")
    (['a', 'b', 'n'], [2, 0, 1])
    >>> tok.encode("bandana")
    Traceback (most recent call last):
    ...
    playground.tokenizer.TokenizerError: The text has 1 character this tokenizer has never seen: 'd' (U+0064). Train the tokenizer again on a text that contains it.
    """

    kind = "char"

    def __init__(self, chars: Sequence[str]):
        chars = list(chars)
        if not chars or not all(isinstance(c, str) and len(c) == 1 for c in chars):
            raise TokenizerError(msg("A character tokenizer needs a non-empty list of single "
                                     "characters."))
        if len(set(chars)) != len(chars):
            raise TokenizerError(msg("A character tokenizer's characters must all be different."))
        self.chars = chars
        self._stoi = {c: i for i, c in enumerate(chars)}
        # For encode_array: id of each code point up to the largest, -1 for the rest.
        # (max code point + 1,) int32: 4.4 MB at worst (U+10FFFF), 500 bytes for Shakespeare.
        self._id_of_codepoint = np.full(max(map(ord, chars)) + 1, -1, dtype=np.int32)
        self._id_of_codepoint[[ord(c) for c in chars]] = np.arange(len(chars), dtype=np.int32)

    @classmethod
    def train(cls, text: str) -> "CharTokenizer":
        if not text:
            raise TokenizerError(msg("Cannot train a tokenizer on an empty text."))
        return cls(sorted(set(text)))

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        try:
            return [self._stoi[c] for c in text]
        except KeyError:
            raise self._unknown_error(text) from None

    def encode_array(self, text: str) -> np.ndarray:
        """Vectorised ``encode``: 1 MB in ~20 ms, against ~35 ms for ``encode`` alone.

        >>> CharTokenizer.train("abc").encode_array("cab")
        array([2, 0, 1])
        """
        # One uint32 code point per character: (n_chars,)
        codepoints = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        if codepoints.size == 0:
            return np.zeros(0, dtype=np.int64)
        if int(codepoints.max()) >= self._id_of_codepoint.size:
            raise self._unknown_error(text)
        ids = self._id_of_codepoint[codepoints]
        if (ids < 0).any():
            raise self._unknown_error(text)
        return ids.astype(np.int64)

    def decode(self, ids: Iterable[int]) -> str:
        return "".join([self.chars[i] for i in self._checked_ids(ids)])

    def token_str(self, id: int) -> str:
        return self.chars[self._checked_ids([id])[0]]

    def _payload(self) -> dict[str, Any]:
        return {"chars": self.chars}

    def _unknown_error(self, text: str) -> TokenizerError:
        missing = sorted(set(text) - self._stoi.keys())
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in missing[:10])
        n = len(missing)
        if n == 1:
            return TokenizerError(msg("The text has 1 character this tokenizer has never seen: "
                                      "{shown}. Train the tokenizer again on a text that contains "
                                      "it.", shown=shown))
        if n <= 10:
            return TokenizerError(msg("The text has {n} characters this tokenizer has never seen: "
                                      "{shown}. Train the tokenizer again on a text that contains "
                                      "them.", n=n, shown=shown))
        return TokenizerError(msg("The text has {n} characters this tokenizer has never seen: "
                                  "{shown} and {more} more. Train the tokenizer again on a text "
                                  "that contains them.", n=n, shown=shown, more=n - 10))


# --- byte-level BPE -----------------------------------------------------------------------

class BPETokenizer(Tokenizer):
    """Byte-level BPE from Hugging Face ``tokenizers``: any text round-trips exactly.

    If the text is too small to learn ``requested_vocab_size`` tokens (training stops when no
    pair of tokens occurs twice), the smaller vocabulary is kept and ``vocab_size`` reports its
    real size; the app compares it with ``requested_vocab_size`` to tell the user.

    >>> tok = BPETokenizer.train("the cat and the hat and the bat " * 20, vocab_size=300)
    >>> tok.decode(tok.encode("the 猫"))
    'the 猫'
    >>> tok.token_strs(tok.encode("the 猫"))
    ['the', ' ', '<0xE7>', '<0x8C>', '<0xAB>']
    >>> tok.vocab_size < tok.requested_vocab_size   # this small text supports fewer tokens
    True
    """

    kind = "bpe"

    def __init__(self, hf_tokenizer: Any, requested_vocab_size: int | None = None):
        self._tok = hf_tokenizer
        self._check_byte_level()
        self.requested_vocab_size = requested_vocab_size or self._tok.get_vocab_size()
        byte_of = {ch: b for b, ch in _byte_to_unicode().items()}
        vocab = sorted(self._tok.get_vocab().items(), key=lambda kv: kv[1])
        self._token_bytes = [bytes(byte_of[ch] for ch in token) for token, _ in vocab]

    @classmethod
    def train(cls, text: str, vocab_size: int = BPE_DEFAULT_VOCAB) -> "BPETokenizer":
        from tokenizers import Tokenizer as HFTokenizer, decoders, models, pre_tokenizers, trainers

        _check_bpe_training(text, vocab_size)
        tok = HFTokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()  # without it decode joins tokens with spaces
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=2, special_tokens=[], show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet())  # all 256 bytes, always
        pieces = _training_pieces(text)
        tok.train_from_iterator(pieces, trainer=trainer, length=len(pieces))
        return cls(tok, requested_vocab_size=vocab_size)

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        if len(text) <= _PIECE_CHARS:
            return self._tok.encode(text).ids
        # Pieces end where the pre-tokenizer splits anyway, so this equals one long encode.
        return [i for enc in self._tok.encode_batch(_pieces(text)) for i in enc.ids]

    def decode(self, ids: Iterable[int]) -> str:
        return self._tok.decode(self._checked_ids(ids))

    def token_str(self, id: int) -> str:
        return _bytes_display(self._token_bytes[self._checked_ids([id])[0]])

    def merges(self) -> list[tuple[str, str]]:
        """The learned merges in the order they were learned, as display strings.

        >>> BPETokenizer.train("ab ab ab", vocab_size=300).merges()[:2]
        [('a', 'b'), (' ', 'ab')]
        """
        byte_of = {ch: b for b, ch in _byte_to_unicode().items()}
        merges = json.loads(self._tok.to_str())["model"]["merges"]
        return [tuple(_bytes_display(bytes(byte_of[ch] for ch in side)) for side in pair)
                for pair in merges]  # [left, right]: tokenizers >= 0.20 (requirements: 0.21)

    def _payload(self) -> dict[str, Any]:
        return {"requested_vocab_size": self.requested_vocab_size,
                "tokenizer": json.loads(self._tok.to_str())}

    def _check_byte_level(self) -> None:
        """Refuse a tokenizer JSON that is not byte-level BPE: it might not round-trip."""
        spec = json.loads(self._tok.to_str())
        vocab = self._tok.get_vocab()
        if ((spec.get("model") or {}).get("type") != "BPE"
                or (spec.get("pre_tokenizer") or {}).get("type") != "ByteLevel"
                or (spec.get("decoder") or {}).get("type") != "ByteLevel"
                or spec.get("added_tokens")
                or not set(_byte_to_unicode().values()) <= vocab.keys()
                or sorted(vocab.values()) != list(range(len(vocab)))):
            raise TokenizerError(msg("This is not a byte-level BPE tokenizer made by this app; "
                                     "train a new one."))


def _check_bpe_training(text: str, vocab_size: Any) -> None:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or not (
            BPE_MIN_VOCAB <= vocab_size <= BPE_MAX_VOCAB):
        raise TokenizerError(msg("The BPE vocabulary size must be a whole number from {low} "
                                 "(the 256 bytes) to {high}, got {value}.", low=BPE_MIN_VOCAB,
                                 high=f"{BPE_MAX_VOCAB:,}", value=repr(vocab_size)[:40]))
    if not text:
        raise TokenizerError(msg("Cannot train a tokenizer on an empty text."))


def _pieces(text: str, size: int = _PIECE_CHARS) -> list[str]:
    """Cut ``text`` into pieces of about ``size`` characters, only before a newline that
    follows a non-space character: the byte-level pre-tokenizer always splits there, so the
    pieces tokenize exactly as the whole text does.

    >>> _pieces("ab\\ncd\\n\\nef", size=1)
    ['ab', '\\ncd', '\\n\\nef']
    """
    pieces, start = [], 0
    while start < len(text):
        end = start + size
        while end < len(text) and not (text[end] == "\n" and not text[end - 1].isspace()):
            end = text.find("\n", end + 1)
            if end == -1:
                end = len(text)
        pieces.append(text[start:end])
        start = end
    return pieces


def _training_pieces(text: str) -> list[str]:
    """``_pieces`` with every run longer than ``MAX_TRAINING_RUN`` characters of non-space (or
    of space) cut into parts that long, so training stays linear in the text: each part is a
    word of its own. Text of ordinary words is cut exactly as ``_pieces`` cuts it.

    >>> [len(p) for p in _training_pieces("a" * 150 + " and more")]
    [64, 64, 22, 9]
    """
    out = []
    for piece in _pieces(text):
        start = 0
        for run in _LONG_RUN.finditer(piece):
            if run.start() > start:
                out.append(piece[start:run.start()])
            out.extend(piece[i:min(i + MAX_TRAINING_RUN, run.end())]
                       for i in range(run.start(), run.end(), MAX_TRAINING_RUN))
            start = run.end()
        if start < len(piece):
            out.append(piece[start:])
    return out


@lru_cache(maxsize=1)
def _byte_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (the ByteLevel alphabet).

    Printable Latin-1 bytes map to themselves; the other 68 to U+0100 onwards, so ' ' (0x20)
    becomes 'Ġ' (U+0120).
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in keep}
    for n, b in enumerate(b for b in range(256) if b not in mapping):
        mapping[b] = chr(256 + n)
    return mapping


def _bytes_display(data: bytes) -> str:
    """Text for a token's bytes; bytes that are not whole UTF-8 characters show as hex.

    >>> _bytes_display("猫".encode()[:2]), _bytes_display(b"a\\xe7")
    ('<0xE7><0x8C>', 'a<0xE7>')
    """
    out = []
    while data:
        try:
            out.append(data.decode("utf-8"))
            break
        except UnicodeDecodeError as exc:
            out.append(data[:exc.start].decode("utf-8"))
            out.append("".join(f"<0x{b:02X}>" for b in data[exc.start:exc.end]))
            data = data[exc.end:]
    return "".join(out)


# --- building and loading -----------------------------------------------------------------

def train_tokenizer(kind: str, text: str, vocab_size: int | None = None, *,
                    time_budget_s: float | None = None) -> Tokenizer:
    """Train a tokenizer of ``kind`` on ``text``.

    ``vocab_size`` is for "bpe" (default 512); a character tokenizer's vocabulary is the
    text's own characters, so for "char" it must be left out. With ``time_budget_s``, BPE
    trains in a process of its own that is ended after that many seconds (the training loop
    is Rust's and cannot be interrupted from Python), and a ``TokenizerError`` says so.

    >>> train_tokenizer("bpe", "low lower lowest " * 50, vocab_size=260).vocab_size
    260
    """
    if kind == "char":
        if vocab_size is not None:
            raise TokenizerError(msg("A character tokenizer's vocabulary is the text's own "
                                     "characters, so its size cannot be chosen: leave vocab_size "
                                     "empty, or choose BPE."))
        return CharTokenizer.train(text)
    if kind == "bpe":
        size = BPE_DEFAULT_VOCAB if vocab_size is None else vocab_size
        if time_budget_s is None:
            return BPETokenizer.train(text, size)
        return _train_bpe_within(text, size, time_budget_s)
    raise TokenizerError(msg("Unknown tokenizer kind {kind}: choose one of {kinds}.",
                             kind=repr(kind), kinds=", ".join(KINDS)))


def _train_bpe_within(text: str, vocab_size: int, seconds: float) -> BPETokenizer:
    """``BPETokenizer.train`` in a Python process of its own, killed after ``seconds``.

    A plain ``python -c`` child, not multiprocessing's: a spawned one would import the app's
    main module (and build the whole page) first, a forked one copy the whole server.

    >>> _train_bpe_within("ab ab ab " * 20, 260, seconds=120).merges()[0]
    ('a', 'b')
    """
    _check_bpe_training(text, vocab_size)  # refused here, at once, not in the other process
    package_root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    job = json.dumps({"text": text, "vocab_size": vocab_size}).encode("utf-8")
    try:
        done = subprocess.run([sys.executable, "-c", "from playground.tokenizer import "
                               "_bpe_worker; _bpe_worker()"], input=job, capture_output=True,
                              timeout=seconds, env=env)
    except subprocess.TimeoutExpired:  # subprocess.run has killed the child
        raise TokenizerError(msg("Training the BPE tokenizer took longer than {seconds} seconds, so "
                                 "it was stopped. Train it on a shorter text or with a smaller "
                                 "vocabulary.", seconds=f"{seconds:g}")) from None
    if done.returncode != 0:  # out of memory, or a bug: its last line, never a traceback
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no answer"])[-1]
        raise TokenizerError(msg("Training the BPE tokenizer failed ({reason}).",
                                 reason=last[:200]))
    return tokenizer_from_json(done.stdout.decode("utf-8"))


def _bpe_worker() -> None:
    """The child's work: {"text", "vocab_size"} on stdin, the tokenizer's JSON on stdout."""
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    sys.stdout.write(BPETokenizer.train(job["text"], job["vocab_size"]).to_json())


def tokenizer_from_json(s: str) -> Tokenizer:
    """Rebuild a tokenizer from ``Tokenizer.to_json()``; anything else raises TokenizerError."""
    try:
        spec = json.loads(s)
    except (TypeError, ValueError, RecursionError) as exc:  # Recursion: deep nesting
        raise TokenizerError(msg("The tokenizer data is not valid JSON ({reason}).",
                                 reason=str(exc))) from exc
    return tokenizer_from_data(spec)


def tokenizer_from_data(spec: Any) -> Tokenizer:
    """Rebuild a tokenizer from ``to_json()``'s data, already parsed (a bundle parses its JSON
    once, after its own checks).

    >>> tokenizer_from_data({"kind": "char", "chars": ["a", "b"]}).encode("ba")
    [1, 0]
    """
    from tokenizers import Tokenizer as HFTokenizer

    kind = spec.get("kind") if isinstance(spec, dict) else None
    if kind == "char":
        chars = spec.get("chars")
        return CharTokenizer(chars if isinstance(chars, list) else [])
    if kind == "bpe":
        try:
            hf = HFTokenizer.from_str(json.dumps(spec["tokenizer"]))
        except Exception as exc:  # tokenizers raises a bare Exception on bad data
            raise TokenizerError(msg("The BPE tokenizer data is damaged ({reason}).",
                                     reason=str(exc)[:200])) from exc
        requested = spec.get("requested_vocab_size")
        return BPETokenizer(hf, requested if isinstance(requested, int) else None)
    raise TokenizerError(msg("The tokenizer data does not say which kind it is (got kind={kind}); "
                             "expected one of {kinds}.", kind=repr(kind)[:40],
                             kinds=", ".join(KINDS)))


def load_tokenizer(path: str | os.PathLike) -> Tokenizer:
    """Load a tokenizer written by ``Tokenizer.save``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenizerError(msg("Could not read the tokenizer file '{file}' ({reason}).",
                                 file=path.name, reason=str(exc))) from exc
    return tokenizer_from_json(text)
