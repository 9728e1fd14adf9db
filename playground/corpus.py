"""Where the training text comes from: Tiny Shakespeare, uploaded files, pasted text.

Every way in returns the same frozen ``Corpus`` (text + name + source), and every bad input
raises a ``CorpusError`` whose message names the file and says what to do. Newlines are
normalised on the way in: CRLF (Windows) and lone CR (old Mac) both become LF, so one text
always gives the same characters, whichever editor saved it, and a character-level
vocabulary never learns a stray ``"\\r"``.

>>> corpus = from_text("To be, or not to be:\\r\\nthat is the question.")
>>> corpus.text
'To be, or not to be:\\nthat is the question.'
>>> corpus.stats()
CorpusStats(characters=42, lines=2, words=10, distinct_chars=18)
>>> corpus.split(0.5)
('To be, or not to be:\\n', 'that is the question.')
"""

from __future__ import annotations

import os
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Union

from playground.i18n import msg
from playground.runtime.files import human_bytes

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
TEXT_EXTENSIONS = (".txt", ".md")
SOURCES = ("bundled", "hub", "upload", "paste", "task")  # task: playground.tasks

BUNDLED_PATH = Path(__file__).parent / "data" / "tinyshakespeare.txt"
HUB_DATASET = "karpathy/tiny_shakespeare"
# The main branch of the Hub repo is a loading script, which datasets >= 4 refuses to run;
# the Hub's auto-converted parquet branch holds the same text as plain data.
HUB_REVISION = "refs/convert/parquet"
HUB_SPLITS = ("train", "validation", "test")  # consecutive slices of one text, in this order
HUB_PROBE_TIMEOUT_S = 2.5

# Each part of a split keeps at least this many characters, so there is something to score.
MIN_SPLIT_CHARS = 2

PathLike = Union[str, os.PathLike]


class CorpusError(ValueError):
    """A text that cannot be used, with a message meant for a person (a ``Message``, which
    ``i18n.error_text`` says again in the page's language)."""


# The name of pasted text: English here, the page's language where the page shows it.
PASTED_TEXT = msg("pasted text")


@dataclass(frozen=True)
class CorpusStats:
    """Counts shown next to the preview. ``lines`` counts a last line without a newline too."""

    characters: int
    lines: int
    words: int
    distinct_chars: int


@dataclass(frozen=True)
class Corpus:
    """A training text with where it came from.

    >>> c = Corpus("abc\\ndef\\n", name="demo", source="paste")
    >>> c.preview(5)
    'abc\\nd…'
    """

    text: str = field(repr=False)  # can be megabytes: keep it out of the repr
    name: str
    source: str  # one of SOURCES

    def stats(self) -> CorpusStats:
        """Characters, lines, whitespace-separated words and distinct characters.

        >>> Corpus("ab ab\\nc", "x", "paste").stats()
        CorpusStats(characters=7, lines=2, words=3, distinct_chars=5)
        """
        text = self.text
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        return CorpusStats(
            characters=len(text), lines=lines, words=len(text.split()),
            distinct_chars=len(set(text)))

    def preview(self, n_chars: int = 500) -> str:
        """The first ``n_chars`` characters, with "…" appended when the text goes on."""
        if isinstance(n_chars, bool) or not isinstance(n_chars, int) or n_chars < 0:
            raise CorpusError(msg("The preview length must be a whole number ≥ 0, got {value}.",
                                  value=repr(n_chars)))
        head = self.text[:n_chars]
        return head + "…" if len(self.text) > n_chars else head

    def split(self, val_fraction: float = 0.1) -> tuple[str, str]:
        """Contiguous train/validation split, as nanoGPT: first (1 - f) of the text, then the rest.

        The boundary is ``int(len(text) * (1 - val_fraction))``, so Tiny Shakespeare gives
        1,003,854 training and 111,540 validation characters, as in nanoGPT's char recipe.

        >>> Corpus("0123456789", "digits", "paste").split(0.2)
        ('01234567', '89')
        """
        if (isinstance(val_fraction, bool) or not isinstance(val_fraction, (int, float))
                or not 0.0 < val_fraction < 1.0):
            raise CorpusError(msg("The validation fraction must be a number between 0 and 1 (for "
                                  "example 0.1 for 10%), got {value}.", value=repr(val_fraction)))
        n = len(self.text)
        cut = int(n * (1.0 - val_fraction))
        if cut < MIN_SPLIT_CHARS or n - cut < MIN_SPLIT_CHARS:
            raise CorpusError(msg("'{name}' has only {n} characters: too short to keep at least "
                                  "{min_chars} characters each for training and validation with a "
                                  "validation fraction of {fraction}. Use a longer text.",
                                  name=self.name, n=f"{n:,}",
                                  min_chars=MIN_SPLIT_CHARS, fraction=f"{val_fraction:g}"))
        return self.text[:cut], self.text[cut:]


# --- prompts to start from ------------------------------------------------------------------

# openings Tiny Shakespeare's characters and verse continue
SHAKESPEARE_PROMPTS = ("ROMEO:", "JULIET:\nO Romeo,", "First Citizen:\n",
                       "KING RICHARD III:\nNow is the", "To be, or not to be")
PROMPT_WORDS = 3  # a prompt from a line with spaces: its first words
PROMPT_CHARS = 4  # ...from a longer line without (Chinese, Japanese): its first characters
PROMPT_SCAN_CHARS = 2_000_000  # enough lines of any text to choose from


def _line_opening(line: str) -> str:
    words = line.split()
    if len(words) > 1:
        return " ".join(words[:PROMPT_WORDS])
    return line if len(line) <= 2 * PROMPT_CHARS else line[:PROMPT_CHARS]


def example_prompts(corpus: Corpus, n: int = 5) -> list[str]:
    """Up to ``n`` prompts a model trained on ``corpus`` can continue: famous openings for
    Tiny Shakespeare; for a toy task (``playground.tasks``) questions up to their ``>``; for
    any other text the openings of lines spread through it (the first words of a line, or
    the first characters of a long line written without spaces).

    >>> example_prompts(Corpus("床前明月光，疑是地上霜。\\n举头望明月\\n" * 9, "poem", "paste"), 3)
    ['床前明月', '举头望明月']
    >>> example_prompts(Corpus("the cat sat on the mat\\nTOM:\\n" * 9, "cats", "upload"))
    ['the cat sat', 'TOM:']
    """
    if corpus.source in ("bundled", "hub"):
        return list(SHAKESPEARE_PROMPTS[:n])
    if corpus.source == "task":  # the last lines, which the validation split holds
        return [line.split(">")[0] + ">" for line in corpus.text.splitlines()[-n:]]
    openings: dict[str, None] = {}  # distinct, in the text's order
    for line in corpus.text[:PROMPT_SCAN_CHARS].splitlines():
        if line.strip():
            openings.setdefault(_line_opening(line.strip()), None)
    found = list(openings)
    if len(found) <= n:
        return found
    return [found[round(i * (len(found) - 1) / (n - 1))] for i in range(n)] if n > 1 else found[:1]


# --- Tiny Shakespeare ---------------------------------------------------------------------

def load_tiny_shakespeare(source: str = "bundled") -> Corpus:
    """Tiny Shakespeare (1,115,394 characters), from the copy in the package or from the Hub.

    ``"bundled"`` needs no network and is ready in well under a second once ``datasets`` is
    imported. ``"hub"`` downloads ``karpathy/tiny_shakespeare`` and joins its train,
    validation and test splits back into the one text, so both sources give the same text and
    are split the same way by ``Corpus.split``. Offline, ``"hub"`` fails within a few seconds
    with a ``CorpusError`` that points to the bundled copy.

    >>> load_tiny_shakespeare().text[:14]
    'First Citizen:'
    """
    if source == "bundled":
        return Corpus(_load_bundled(), name="Tiny Shakespeare", source="bundled")
    if source == "hub":
        return Corpus(_load_hub(), name="Tiny Shakespeare (Hub)", source="hub")
    raise CorpusError(msg("Unknown source {source} for Tiny Shakespeare: use 'bundled' or 'hub'.",
                          source=repr(source)))


def _load_bundled() -> str:
    # Read as one document through an in-memory Dataset: Dataset.from_dict writes no cache
    # files, unlike load_dataset("text", ...), which writes Arrow files to ~/.cache.
    from datasets import Dataset

    try:
        raw = BUNDLED_PATH.read_bytes()
    except OSError as exc:
        raise CorpusError(msg("The bundled copy of Tiny Shakespeare is missing from the package "
                              "({file}): reinstall the package.", file=BUNDLED_PATH.name)) from exc
    dataset = Dataset.from_dict({"text": [raw.decode("utf-8")]})
    return dataset[0]["text"]


def _load_hub() -> str:
    if _hub_offline():
        raise CorpusError(msg("The Hugging Face Hub is switched off here (HF_HUB_OFFLINE is set), "
                              "so Tiny Shakespeare cannot be downloaded. The bundled copy is "
                              "available: choose 'bundled'."))
    if not _hub_reachable():
        raise CorpusError(msg("The Hugging Face Hub is unreachable (no network connection to "
                              "{host}). The bundled copy of Tiny Shakespeare is available: choose "
                              "'bundled'.", host=_hub_host()[0]))
    from datasets import load_dataset

    try:
        dataset = load_dataset(HUB_DATASET, revision=HUB_REVISION)
        # Each split is one row holding a contiguous slice of the text; joined in order
        # they give the original file back.
        return "".join(dataset[split]["text"][0] for split in HUB_SPLITS)
    except Exception as exc:  # datasets raises many types (ConnectionError, HfHubHTTPError, ...)
        raise CorpusError(msg("Could not load {dataset} from the Hugging Face Hub ({reason}). The "
                              "bundled copy of Tiny Shakespeare is available: choose 'bundled'.",
                              dataset=HUB_DATASET,
                              reason=f"{type(exc).__name__}: {exc}")) from exc


def _hub_offline() -> bool:
    """True when offline mode is set now (env) or was set when huggingface_hub was imported."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(var, "").strip().upper() in {"1", "ON", "YES", "TRUE"}:
            return True
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _hub_host() -> tuple[str, int]:
    from huggingface_hub import constants

    url = urllib.parse.urlparse(constants.ENDPOINT)  # honours HF_ENDPOINT
    return url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)


def _hub_reachable(timeout: float = HUB_PROBE_TIMEOUT_S) -> bool:
    """A TCP connect to the Hub within ``timeout`` seconds.

    Without this probe a Hub call retries with backoff for ~23 s before it gives up. The probe
    runs in a daemon thread because name lookup (getaddrinfo) ignores socket timeouts.
    """
    host, port = _hub_host()
    result: list[bool] = []

    def probe() -> None:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(result and result[0])


# --- The user's own text ------------------------------------------------------------------

def load_files(paths: PathLike | Iterable[PathLike], max_bytes: int = DEFAULT_MAX_BYTES) -> Corpus:
    """One or more uploaded ``.txt``/``.md`` files (UTF-8, with or without BOM) as one corpus.

    Sizes are checked with ``os.stat`` before anything is read; the cap applies to each file
    and to all of them together. Files are joined in the order given with one blank line
    between them (a file that does not end in a newline gets one first). Messages name files
    by their base name only, never by their full path on the server.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_bytes(b"\\xef\\xbb\\xbfHello\\r\\n")
    >>> _ = (folder / "b.md").write_text("World")
    >>> corpus = load_files([folder / "a.txt", folder / "b.md"])
    >>> corpus.text, corpus.name
    ('Hello\\n\\nWorld', 'a.txt + b.md')
    """
    _check_max_bytes(max_bytes)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if not paths:
        raise CorpusError(msg("No file was given: upload one or more .txt or .md files."))

    sizes = [_checked_size(path, max_bytes) for path in paths]
    if sum(sizes) > max_bytes:
        raise CorpusError(msg("Together the files {files} are {size}, over the {limit} limit. "
                              "Upload fewer or smaller files.",
                              files=", ".join(p.name for p in paths),
                              size=human_bytes(sum(sizes)), limit=human_bytes(max_bytes)))

    texts = [_read_text_file(path, max_bytes) for path in paths]
    # "a\n" + "\n" + "b": one blank line between files
    text = "\n".join([t if t.endswith("\n") else t + "\n" for t in texts[:-1]] + texts[-1:])
    return Corpus(text, name=" + ".join(p.name for p in paths), source="upload")


def from_text(text: str, name: str = PASTED_TEXT, max_bytes: int = DEFAULT_MAX_BYTES) -> Corpus:
    """Pasted text as a corpus, with the same checks and newline normalisation as files.

    The cap counts the UTF-8 bytes, so 1,000 Chinese characters count as 3,000 bytes.

    >>> from_text("你好，世界\\r").text
    '你好，世界\\n'
    """
    _check_max_bytes(max_bytes)
    if not isinstance(text, str):
        raise CorpusError(msg("The {name} must be a string of text, got {type}.",
                              name=name, type=type(text).__name__))
    try:
        n_bytes = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:  # lone surrogates cannot be stored or tokenized
        raise CorpusError(msg("The {name} contains an invalid character at position {position} (a "
                              "lone surrogate): paste it again from the original source.",
                              name=name, position=exc.start)) from exc
    if n_bytes > max_bytes:
        raise CorpusError(msg("The {name} is {size}, over the {limit} limit. Use a shorter text.",
                              name=name, size=human_bytes(n_bytes),
                              limit=human_bytes(max_bytes)))
    if "\x00" in text:
        raise CorpusError(msg("The {name} contains NUL characters, so it is not plain text.",
                              name=name))
    text = _normalise_newlines(text.removeprefix("\ufeff"))
    if not text.strip():
        raise CorpusError(msg("The {name} is empty (or only whitespace): give some text to train "
                              "on.", name=name))
    return Corpus(text, name=name, source="paste")


def _check_max_bytes(max_bytes: int) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise CorpusError(msg("The size limit must be a positive number of bytes, got {value}.",
                              value=repr(max_bytes)))


def _checked_size(path: Path, max_bytes: int) -> int:
    """The file's size in bytes from os.stat, after checking its extension and the cap."""
    if path.suffix.lower() not in TEXT_EXTENSIONS:
        raise CorpusError(msg("'{file}' is not a .txt or .md file: upload plain text saved as "
                              ".txt or .md.", file=path.name))
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise CorpusError(msg("'{file}' could not be opened: upload it again.",
                              file=path.name)) from exc
    if size > max_bytes:
        raise CorpusError(msg("'{file}' is {size}, over the {limit} limit. Upload a smaller file.",
                              file=path.name, size=human_bytes(size),
                              limit=human_bytes(max_bytes)))
    return size


def _read_text_file(path: Path, max_bytes: int) -> str:
    with open(path, "rb") as f:
        raw = f.read(max_bytes + 1)  # never more than the cap, even if the file grew since stat
    if len(raw) > max_bytes:
        raise CorpusError(msg("'{file}' is over the {limit} limit.",
                              file=path.name, limit=human_bytes(max_bytes)))
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorpusError(msg("'{file}' is saved as UTF-16: save it as UTF-8 text and upload it "
                              "again.", file=path.name))
    if b"\x00" in raw:
        raise CorpusError(msg("'{file}' contains NUL bytes, so it looks like a binary file, not "
                              "text. Upload a plain-text .txt or .md file.", file=path.name))
    try:
        text = raw.decode("utf-8-sig")  # strips a leading BOM if there is one
    except UnicodeDecodeError as exc:
        raise CorpusError(msg("'{file}' is not valid UTF-8 text (byte {byte} at position "
                              "{position}). Save it as UTF-8 and upload it again.",
                              file=path.name, byte=f"0x{raw[exc.start]:02X}",
                              position=f"{exc.start:,}")) from exc
    text = _normalise_newlines(text)
    if not text.strip():
        raise CorpusError(msg("'{file}' is empty (or only whitespace): upload a file with text.",
                              file=path.name))
    return text


def _normalise_newlines(text: str) -> str:
    """CRLF and lone CR become LF: 'a\\r\\nb\\rc' -> 'a\\nb\\nc'."""
    return text.replace("\r\n", "\n").replace("\r", "\n")

