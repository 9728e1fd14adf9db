"""Shared test setup: offline, quiet, seeded, and each test in its own temporary folders.

The environment variables are set before anything imports ``datasets``, ``huggingface_hub``,
``tokenizers`` or ``gradio``, because those read them once at import time.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # a Hub call must fail at once, never retry for ~23 s
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["TOKENIZERS_PARALLELISM"] = "false"  # no fork warnings, no extra threads
os.environ["PLAYGROUND_TOUR"] = "off"  # no tour card over the pages other tests drive (tour.py)

from pathlib import Path

import pytest
import torch

CHROMIUM = Path("/usr/bin/chromium")
BUNDLED_TEXT = Path(__file__).resolve().parents[1] / "playground" / "data" / "tinyshakespeare.txt"

# Tiny models gain nothing from many threads, and on a big machine too many threads per
# test only fight each other; on the 2-core machines this is all of them.
torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))


@pytest.fixture(autouse=True)
def _isolated_gradio_temp_dir(monkeypatch, tmp_path):
    """Gradio caches uploads and outputs here; one folder per test keeps tests apart."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))


@pytest.fixture(autouse=True)
def _host_from_this_tests_environment():
    """Each test reads the host's settings afresh (``hosting.current()`` keeps them once
    read); a test that wants other settings builds a ``Hosting`` and passes it to
    ``hosting.use``, undone here after the test."""
    from playground.runtime import hosting

    hosting.use(None)
    yield
    hosting.use(None)


@pytest.fixture(autouse=True)
def _seeded():
    """Every test starts from the same random state, so a failure repeats."""
    torch.manual_seed(0)


@pytest.fixture(autouse=True)
def _browser_available(request):
    """Browser tests need Debian's Chromium: skip without it locally, fail without it in CI.

    CI sets ``CI`` (``.ci/run`` exports CI=1), and there a missing browser is a broken
    setup, not a reason to report the suite green.
    """
    if request.node.get_closest_marker("e2e") is None or CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing; `make test` installs it with apt-get install chromium."
    if os.environ.get("CI"):
        pytest.fail(message + " CI must run the browser tests.", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    """The standalone generation script (``write_standalone_script``), imported as a module
    from its own file; ``script.path`` is that file."""
    import importlib.util

    from playground.export.publish import write_standalone_script

    path = write_standalone_script(tmp_path_factory.mktemp("script"))
    spec = importlib.util.spec_from_file_location("generate_standalone", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.path = path
    return module


@pytest.fixture(scope="session")
def shakespeare_text() -> str:
    """The whole bundled Tiny Shakespeare (1,115,394 characters)."""
    return BUNDLED_TEXT.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def tiny_text(shakespeare_text) -> str:
    """The first 8,000 characters of Tiny Shakespeare: enough for a tokenizer, fast to use."""
    return shakespeare_text[:8000]


@pytest.fixture
def ready(tiny_text):
    """A session with a pasted corpus and a character tokenizer, as a visitor's after tabs 1-2
    (the page's handler tests, tests/ui/, and the ZeroGPU runs, tests/runtime/)."""
    from playground.ui import corpus_tab, tokenizer_tab

    session = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)[0]
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    return session


@pytest.fixture
def corpus_file(tmp_path, tiny_text) -> Path:
    """``tiny_text`` in a file, for the command line's ``--corpus``."""
    path = tmp_path / "corpus.txt"
    path.write_text(tiny_text, encoding="utf-8")
    return path


@pytest.fixture
def app_url():
    """The app launched in this process on a free port, fresh per test (so Gradio reads the
    test's own GRADIO_TEMP_DIR at launch); yields its URL."""
    from playground.ui.app import build_demo, launch

    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    yield url
    demo.close()
