"""The page's ZeroGPU path through Hugging Face's own ``spaces`` package (the dev requirements
install it), against a stand-in of ZeroGPU's device API served on 127.0.0.1
(``tests/zero_device_api.py``).

The app starts as on a ZeroGPU Space (``SPACES_ZERO_GPU=true``) in a subprocess
(``zerogpu_space_app.py``): the package's decorator with our duration callable, its start-up
report, its scheduling client and quota refusals, its forked worker process with the arguments
and every yielded item pickled, its generator relay and the errors a visitor sees are all the
package's. What needs CUDA is all that is replaced there (the forked worker's CUDA start and
the move of the weights onto the GPU; see that file), so the chunks train on the CPU.

Each run is compared with a straight run of the same settings in this process: the same
weights, bit for bit.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from playground.runtime import zerogpu
from playground.ui import train_tab

from checks import TINY, page_settings
from zero_device_api import DeviceAPI, serve

APP = Path(__file__).with_name("zerogpu_space_app.py")
FIRST_ASK = math.ceil(0.0 + zerogpu.FIRST_CHUNK_MARGIN)  # chunks of no budget: a step each


@pytest.fixture(autouse=True, scope="module")
def _spaces_installed():
    """Skipped where ``spaces`` is not installed; CI installs it (requirements-dev.txt)."""
    if importlib.util.find_spec("spaces") is None:
        message = "the spaces package is not installed (pip install -r requirements-dev.txt)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def space_run(api: DeviceAPI, tmp_path: Path, text: str) -> dict:
    """The app started as a ZeroGPU Space against ``api``; a visitor's tiny run on ``text``
    through the page's handler, one step per chunk: its weights, status lines and steps."""
    corpus, out = tmp_path / "corpus.txt", tmp_path / "run.pt"
    corpus.write_text(text, encoding="utf-8")
    with serve(api) as url:
        env = {**os.environ, "SPACES_ZERO_GPU": "true", "SPACES_ZERO_DEVICE_API_URL": url,
               "PLAYGROUND_CHUNK_SECONDS": "0", "GRADIO_SERVER_PORT": str(free_port()),
               "PLAYGROUND_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, str(APP), str(corpus), json.dumps(TINY), str(out)],
                              env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return torch.load(out, weights_only=False)


@pytest.fixture(scope="module")
def straight(tiny_text):
    """The same run straight through in this process (no ZeroGPU): its weights."""
    from playground.ui import corpus_tab, tokenizer_tab

    session = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)[0]
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    list(train_tab.train_model(session, False, *page_settings(TINY)))
    return {k: v.clone() for k, v in session.trained.model.state_dict().items()}


def assert_same_weights(run: dict, straight: dict) -> None:
    assert run["weights"].keys() == straight.keys()
    for name, tensor in run["weights"].items():
        assert torch.equal(tensor, straight[name]), name


def test_the_space_starts_and_trains_through_the_spaces_package(tmp_path, tiny_text, straight):
    api = DeviceAPI()
    run = space_run(api, tmp_path, tiny_text)
    assert_same_weights(run, straight)
    assert run["reason"] == "done" and "**Done.**" in run["statuses"][-1]
    assert run["steps"] == list(range(1, TINY["max_steps"] + 1))
    routes = api.routes()
    # launch() reported the decorated function; then a GPU per chunk, each given back, and
    # one forked worker process (allowed once) kept for every chunk after the first
    assert routes[0] == "/startup-report"
    assert routes.count("/schedule") == routes.count("/release") == TINY["max_steps"]
    assert routes.count("/allow") == 1
    asked = api.asked()  # our duration callable, asked anew for every chunk
    assert asked[0] == FIRST_ASK and all(zerogpu.START_SECONDS <= a < FIRST_ASK for a in asked[1:])


def test_a_quota_spent_mid_run_the_run_ends_on_the_cpu_as_a_straight_run(
        tmp_path, tiny_text, straight):
    # two chunks fit; the third is refused (ZeroGPU's "You have exceeded your free ZeroGPU
    # quota (9s requested vs. 7s left)"), and too little is left for a smaller one
    api = DeviceAPI(quota_s=FIRST_ASK + 2 * zerogpu.START_SECONDS - 1)
    run = space_run(api, tmp_path, tiny_text)
    assert_same_weights(run, straight)
    assert run["reason"] == "done" and "**Done.**" in run["statuses"][-1]
    assert run["steps"] == list(range(1, TINY["max_steps"] + 1))
    on_cpu = [line for line in run["statuses"] if "training goes on on the CPU" in line]
    assert on_cpu and on_cpu[0].endswith(
        "Your GPU time for today is used up; training goes on on the CPU.")
    assert "min left." in on_cpu[-1]
    assert run["statuses"][-1].endswith(  # the end says it too: a brief line can go unseen
        "Your GPU time for today ran out at step 2; the rest of the run trained on the CPU.")
    assert api.routes().count("/schedule") == 3 and api.routes().count("/release") == 2


def test_a_chunk_longer_than_zerogpu_allows_goes_on_on_the_cpu(tmp_path, tiny_text, straight):
    """ZeroGPU's "illegal duration" (the first chunk asks more than a call may take)."""
    api = DeviceAPI(max_duration=FIRST_ASK - 1)
    run = space_run(api, tmp_path, tiny_text)
    assert_same_weights(run, straight)
    assert api.routes().count("/schedule") == 1 and "/allow" not in api.routes()
    assert any("training goes on on the CPU, about" in line for line in run["statuses"])


def test_a_gpu_worker_that_fails_stops_the_run_with_what_zerogpu_said(tmp_path, tiny_text):
    """The device API refuses the worker process (``/allow`` answers 500): the package's
    "ZeroGPU worker error" reaches the visitor as a stopped run at step 0."""
    api = DeviceAPI(allow_status=500)
    run = space_run(api, tmp_path, tiny_text)
    assert run["reason"] is None and run["steps"] == []  # no step, no history
    assert "The GPU call failed (AssertionError). The run stopped at step 0" in run["statuses"][-1]
    assert [r for r in api.routes() if r != "/startup-report"] == \
        ["/schedule", "/allow", "/release"]
