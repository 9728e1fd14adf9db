"""Assertions, helpers and the tiny run that several test modules share (``from checks import ...``;
pyproject.toml puts ``tests/`` on the path, so every folder below it can).

The tiny run, in one place: a real GPT that trains in well under a second on one CPU core.
A test that needs other values says which where it uses them (``dict(TINY, seed=7)``,
``page_settings(max_steps=12)``), so what differs from the shared run stays visible.
"""

import re
from pathlib import Path

from playground.i18n import error_text

REPO = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")  # a Chinese character

TINY_MODEL = dict(block_size=16, n_layer=1, n_head=2, n_embd=16)  # the shape; variants as given
TINY_RUN = dict(eval_iters=1, sample_tokens=0, device="cpu", dtype="float32")  # CPU, fp32, no samples
TINY_TRAIN = dict(max_steps=6, batch_size=4, warmup_steps=2, eval_interval=3, **TINY_RUN)
TINY = dict(TINY_MODEL, pos="learned", **TINY_TRAIN)  # every setting a tiny run on the page changes


def assert_translated(error: Exception, english: str, names=()) -> str:
    """The error reads exactly as before in English (the CLI and logs print it), and in
    Chinese it is Chinese and keeps every number of the English and each of ``names``.
    Returns the Chinese text."""
    assert str(error) == english
    chinese = error_text(error, "zh-CN")
    assert CJK.search(chinese) and chinese != english, chinese
    for kept in re.findall(r"\d+(?:[.,]\d+)*", english) + list(names):
        assert kept in chinese, (kept, chinese)
    return chinese


def cli_flags(values: dict) -> list[str]:
    """Settings as the command line's flags, in order: ``{"n_layer": 1}`` -> ``--n_layer 1``."""
    return [text for name, value in values.items() for text in (f"--{name}", str(value))]


# the command line's tiny run: the tiny preset's schedule and variants, two batches per evaluation
def tiny_flags(**changes) -> list[str]:
    """``TINY_MODEL`` and ``TINY_RUN`` (two evaluation batches) as flags, then ``changes``."""
    return cli_flags({**TINY_MODEL, **TINY_RUN, "eval_iters": 2, **changes})


def page_settings(*overrides: dict, **changes) -> list:
    """The training tab's widget values, in ``train_tab.SETTINGS`` order: the tiny preset with
    ``TINY``, then each of ``overrides`` and then ``changes`` applied (what a visitor would
    have typed)."""
    from playground.ui import train_tab  # the page: only the tests that drive it pay for it

    values = dict(zip(train_tab.SETTINGS, train_tab.preset_values("tiny")))
    for override in (TINY, *overrides, changes):
        values.update(override)
    return [values[name] for name in train_tab.SETTINGS]


# the trainer tests' tiny model and the token stream it learns (test_train, test_optim)
VOCAB, BLOCK = 16, 16


def tiny_model(seed=0, **changes):
    """A GPT of ``VOCAB`` tokens and context ``BLOCK``, one layer unless ``changes`` say more."""
    import torch

    from playground.config import ModelConfig
    from playground.model import GPT

    torch.manual_seed(seed)
    cfg = dict(vocab_size=VOCAB, block_size=BLOCK, n_layer=1, n_head=2, n_embd=16)
    return GPT(ModelConfig(**{**cfg, **changes}))


def token_stream(n=600, seed=0):
    """Ids with structure to learn: mostly counting upwards, with random jumps."""
    import torch

    g = torch.Generator().manual_seed(seed)
    jumps = torch.randint(VOCAB, (n,), generator=g) * (torch.rand(n, generator=g) < 0.2)
    return (torch.arange(n) + jumps.cumsum(0)) % VOCAB



def wait_for(condition, what, limit_s=60.0):
    """Poll ``condition`` until it holds; fail after ``limit_s`` (a hang guard, not a timing)."""
    import time

    import pytest

    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


def sessions_of(demo, session_hash) -> list:
    """The server's ``Session`` objects for one browser session (none once freed)."""
    from playground.ui.session import Session

    data = demo.server_app.state_holder.session_data.get(session_hash)
    return [v for v in data.state_data.values() if isinstance(v, Session)] if data else []


def close_toasts(page):
    """Close every toast; Gradio groups them by kind and may close several at once, or time
    them out meanwhile, so each round closes the first one still there."""
    # a toast fading out is "not visible" (an Error), one already gone times out: both are gone
    from playwright.sync_api import Error as Gone

    closes = page.locator(".toast-close")
    for _ in range(20):
        if not closes.count():
            return
        try:
            closes.first.click(force=True, timeout=2_000)
        except Gone:  # gone between the count and the click
            pass


# --- the browser tests' steps (tests/e2e): a page is Playwright's

# the training status once a run has ended, in either language
DONE = r"Done\.|Problem:|完成|问题"


def open_tab(page, tab_id):
    page.locator(f'button[data-tab-id="{tab_id}"]').click()


def train(page, labels, steps):
    """Start a run from the training tab (``steps`` None: the preset's) and wait for its end."""
    open_tab(page, "train")
    if steps is not None:
        page.locator("#train-advanced").get_by_text(labels["advanced"]).first.click()
        box = page.get_by_label(labels["label_max_steps"], exact=True)
        box.fill(str(steps))
        box.press("Tab")
    page.locator("#start-button").click()
    page.wait_for_function(
        "([done]) => new RegExp(done).test(document.querySelector('#train-status').innerText)",
        arg=[DONE], timeout=1_200_000)


def run_settings(**changes):
    """The run driver's settings (``runs.Configs``) of the tiny preset, smaller still: a run
    of a few steps in well under a second; ``changes`` are the training settings'."""
    import dataclasses

    from playground import runs
    from playground.config import PRESETS

    tiny = PRESETS["tiny"]
    model = dataclasses.replace(tiny.model, n_layer=1, n_embd=16, n_head=2, block_size=16)
    train = dataclasses.replace(tiny.train, **{**dict(max_steps=6, batch_size=4, eval_interval=3,
                                                     eval_iters=1, sample_tokens=0, threads=1),
                                                **changes})
    return runs.Configs(model, train)
