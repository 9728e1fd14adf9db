"""The app as a ZeroGPU Space starts it, with the real ``spaces`` package, run in a subprocess by
``test_zerogpu_spaces.py``: ``python zerogpu_space_app.py CORPUS SETTINGS OUT``; or, for the
browser test (``tests/e2e/test_browser_zerogpu.py``), ``python zerogpu_space_app.py serve``.

The environment says ZeroGPU (``SPACES_ZERO_GPU=true``, ``SPACES_ZERO_DEVICE_API_URL`` of the
test's stand-in device API, ``PLAYGROUND_CHUNK_SECONDS``). ``import app`` then imports
``spaces`` first, which patches torch and hooks ``launch``; launching reports the decorated
functions to the device API. A visitor's run then goes through the page's handler, whose
chunks ``spaces`` schedules, forks, pickles and relays as on a Space.

The one part replaced is what needs a GPU: ``spaces.zero.torch.init`` (the forked worker's
first CUDA tensor on the GPU it was given) and ``move`` (the weights packed at start-up moved
onto it) do nothing here; ``torch.version.cuda`` reads "12.8" while ``spaces`` is imported
(it sizes its CUDA emulation by it), ``torch._C._cuda_init``, which a CPU build lacks,
fails as CUDA calls there do, and ``torch.cuda._is_in_bad_fork`` (a lambda in a CPU build,
which spaces sends to a forked process) is a named function. The forked worker then trains on the CPU, where ``spaces``
has just restored torch's own CUDA checks (``torch.unpatch``), which find no GPU.

Writes ``OUT`` (``torch.save``): the final weights, every status line, and the steps' records.
"""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
import sys
import threading
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import torch  # noqa: E402



def _cuda_init() -> None:
    raise AssertionError("Torch not compiled with CUDA enabled")  # as a CPU build answers


def _is_in_bad_fork() -> bool:
    return False  # a CPU build's answer, as a function pickle can name (its own is a lambda)


# The CUDA part (see above). spaces reads the CUDA version of the torch build at import and
# keeps CUDA's low-level start (a Space's torch is a CUDA build; ours, the CPU build, has
# neither): the version is said for that import only.
torch.version.cuda, cpu_build = "12.8", torch.version.cuda
torch._C._cuda_init = getattr(torch._C, "_cuda_init", _cuda_init)
torch.cuda._is_in_bad_fork = getattr(torch._C, "_cuda_isInBadFork", _is_in_bad_fork)
import spaces  # noqa: E402,F401  the real package, as app.py's first import would bring it
from spaces.zero import torch as zero_torch  # noqa: E402

torch.version.cuda = cpu_build
zero_torch.init = lambda nvidia_uuid: None
zero_torch.move = lambda callback=None: None

from gradio.context import LocalContext  # noqa: E402

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
import app  # noqa: E402  the Space's app_file

from checks import page_settings  # noqa: E402
from playground.train import StepRecord  # noqa: E402
from playground.ui import corpus_tab, tokenizer_tab, train_tab  # noqa: E402
from playground.ui.app import launch  # noqa: E402


class Headers(dict):
    """Request headers as Gradio hands them to ``spaces`` (a mapping with a ``__dict__``)."""


class Request:
    """A signed-in visitor's request: ZeroGPU's proxy adds an ``X-IP-Token`` (a JWT)."""

    payload = base64.urlsafe_b64encode(json.dumps({"user": "visitor"}).encode()).decode()
    headers = Headers({"x-ip-token": f"header.{payload.rstrip('=')}.signature",
                       "x-gradio-user": "app"})


def visitor_run(text: str, settings: dict) -> dict:
    """A session with the corpus and a character tokenizer trains with ``settings``."""
    LocalContext.request.set(Request())  # as Gradio sets it for the handler's thread
    session = corpus_tab.use_corpus(None, "Paste text", None, text)[0]
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    statuses = [update[2] for update in train_tab.train_model(session, False,
                                                              *page_settings(settings))]
    trained = session.trained
    return {"weights": trained.model.state_dict(), "statuses": statuses,
            "steps": [r.step for r in trained.history if isinstance(r, StepRecord)],
            "reason": trained.history[-1].reason if trained.history else None}


def main(corpus: str, settings: str, out: str) -> None:
    launch(app.demo, prevent_thread_lock=True)  # spaces' start-up: POST /startup-report
    result: dict = {}
    # in a thread of its own, as Gradio runs handlers (torch's modes that spaces enters at
    # import hold in the thread that imported it only)
    worker = threading.Thread(target=lambda: result.update(
        visitor_run(Path(corpus).read_text(encoding="utf-8"), json.loads(settings))))
    worker.start()
    worker.join()
    torch.save(result, out)
    app.demo.close()


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:  # the browser test's server: serve until killed
        launch(app.demo)
    main(*sys.argv[1:])
    for worker_process in multiprocessing.active_children():  # spaces' forked GPU worker
        worker_process.kill()
    os._exit(0)  # and Gradio's threads
