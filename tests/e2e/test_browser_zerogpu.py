"""The page on a ZeroGPU Space, in a real browser: the app served as a ZeroGPU Space with the
real ``spaces`` package against a stand-in of ZeroGPU's device API
(``tests/runtime/zerogpu_space_app.py serve``, ``zero_device_api.py``; only the forked
worker's CUDA start is replaced there). Before Start the page says what the run costs of the
daily quota and what signing in gives; when the quota runs out mid-run it says that training
goes on on the CPU, and the run finishes. In English and in Chinese.

The browser is not signed in to Hugging Face, so ZeroGPU's refusal is the one an anonymous
visitor gets ("Space app has reached its GPU limit").
"""

import importlib.util
import math
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from playground.runtime import zerogpu
from playground.i18n.labels import EN, ZH_CN

from zero_device_api import DeviceAPI, serve

pytestmark = pytest.mark.e2e

APP = Path(__file__).resolve().parents[1] / "runtime" / "zerogpu_space_app.py"
RUN = {"block_size": 16, "n_layer": 1, "n_head": 2, "n_embd": 16, "batch_size": 4,
       "max_steps": 30, "eval_interval": 10, "eval_iters": 1, "sample_tokens": 0}
# chunks of one step each: the first and one more fit in the quota, the third does not
QUOTA_S = math.ceil(zerogpu.FIRST_CHUNK_MARGIN) + 2 * zerogpu.START_SECONDS - 1
LINES = {  # (the quota line before Start, the end's line on the switch to the CPU, the end)
    "en": ("of your daily ZeroGPU time", "get 2 min a day, signed-in ones 5 min",
           "Your GPU time for today ran out at step 2; the rest of the run trained on the CPU",
           "Done."),
    "zh-CN": ("每天 ZeroGPU 时间", "每天有 2 分钟，登录后有 5 分钟",
              "你今天的 GPU 时间在第 2 步用完，之后的训练在 CPU 上完成", "完成。"),
}


@pytest.fixture
def space_url(tmp_path):
    """The app served as a ZeroGPU Space on a free port; yields (its URL, the device API)."""
    if importlib.util.find_spec("spaces") is None:
        message = "the spaces package is not installed (pip install -r requirements-dev.txt)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    api = DeviceAPI()
    with serve(api) as api_url:
        env = {**os.environ, "SPACES_ZERO_GPU": "true", "SPACES_ZERO_DEVICE_API_URL": api_url,
               "PLAYGROUND_CHUNK_SECONDS": "0", "GRADIO_SERVER_PORT": str(port),
               "GRADIO_SERVER_NAME": "127.0.0.1", "PLAYGROUND_DATA_DIR": str(tmp_path / "data"),
               "HOME": str(tmp_path), "GRADIO_TEMP_DIR": str(tmp_path / "gradio")}
        server = subprocess.Popen([sys.executable, str(APP), "serve"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        url = f"http://127.0.0.1:{port}/"
        try:
            for _ in range(600):  # up to 5 minutes on busy cores
                try:
                    urllib.request.urlopen(url, timeout=2)
                    break
                except OSError:
                    assert server.poll() is None, "the ZeroGPU app did not start"
                    time.sleep(0.5)
            yield url, api
        finally:
            os.killpg(server.pid, 9)  # the app and spaces' forked GPU worker
            server.wait()


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_quota_line_before_start_and_the_cpu_line_when_it_runs_out(space_url, lang):
    from playwright.sync_api import expect, sync_playwright

    url, api = space_url
    api.quota_s = QUOTA_S
    labels = EN if lang == "en" else ZH_CN
    cost, sign_in, on_cpu, done = LINES[lang]
    expect.set_options(timeout=120_000)  # busy shared cores: be patient, never flaky
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(locale=lang, viewport={"width": 1280, "height": 900}).new_page()
            page.set_default_timeout(120_000)
            page.goto(url)
            page.get_by_role("tab", name=labels["tab_train"]).click()
            page.get_by_text(labels["advanced"], exact=True).click()
            for name, value in RUN.items():
                box = page.get_by_label(labels[f"label_{name}"], exact=True)
                box.fill(str(value))
                box.press("Tab")
            expect(page.get_by_text(cost).first).to_be_visible()
            expect(page.get_by_text(sign_in).first).to_be_visible()

            page.get_by_role("button", name=labels["start_button"]).click()
            # the live line ("... goes on on the CPU") can be replaced before the page paints
            # it when the rest of the run is short: the end names the switch, and stays
            status = page.locator("#train-status")
            expect(status).to_contain_text(done, timeout=300_000)
            expect(status).to_contain_text(on_cpu)
        finally:
            browser.close()
    assert api.routes().count("/schedule") == 3  # two chunks on the GPU, the third refused
