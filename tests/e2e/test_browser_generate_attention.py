"""The Generate and Attention tabs in a real browser, with an uploaded bundle: Enter writes, an
example writes, Stop stops and keeps the text, the seed the note names writes the same text
again, and the attention heatmap sits beside the grid of every head at 1440x900.

Run with ``PLAYGROUND_SCREENSHOTS=1`` to refresh docs/screenshots/4-generate.png and
5-attention.png (then from a model trained on Tiny Shakespeare, so the text reads as a play).
"""

import os
import re
import time

import pytest
import torch

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.corpus import load_tiny_shakespeare
from playground.model import GPT
from playground.tokenizer import train_tokenizer

pytestmark = pytest.mark.e2e

VIEW = "#generated-text .copy-view"


@pytest.fixture
def bundle(tmp_path):
    """A model that reads Tiny Shakespeare's characters: briefly trained when the screenshots
    are refreshed, else untrained (the page only needs it to write)."""
    text = load_tiny_shakespeare().text
    tokenizer = train_tokenizer("char", text)
    config = ModelConfig(vocab_size=tokenizer.vocab_size, block_size=64, n_layer=2, n_head=4,
                         n_embd=64, pos="rope")
    torch.manual_seed(0)
    model, history = GPT(config), []
    if os.environ.get("PLAYGROUND_SCREENSHOTS") == "1":
        from playground.train import Trainer

        ids = torch.tensor(tokenizer.encode(text))
        split = int(0.9 * len(ids))
        cfg = TrainConfig(max_steps=800, batch_size=16, lr=3e-3, min_lr=3e-4, warmup_steps=30,
                          eval_interval=400, eval_iters=10, sample_tokens=0)
        trainer = Trainer(model, ids[:split], ids[split:], cfg, device="cpu")
        history = list(trainer.run())
    return save_bundle(tmp_path / "model.zip", model, tokenizer, TrainConfig(), history)


@pytest.fixture
def slow_tokens(monkeypatch):
    """The app runs in this process: its stream can be made to take ``delay["s"]`` per token,
    so a Stop surely comes before the end, however fast this machine writes."""
    from playground.ui import generate_tab

    delay, real = {"s": 0.0}, generate_tab.generate

    def slow(*args, **kwargs):
        for step in real(*args, **kwargs):
            time.sleep(delay["s"])
            yield step

    monkeypatch.setattr(generate_tab, "generate", slow)
    return delay


def load(page, app_url, bundle):
    from playwright.sync_api import expect

    page.goto(app_url)
    page.get_by_role("tab", name="3 · Model & training").click()
    page.locator("#train-advanced .label-wrap").first.click()
    page.locator("input[type=file]").first.set_input_files(str(bundle))
    expect(page.locator("#train-status")).to_contain_text("Loaded")
    page.get_by_role("tab", name="4 · Generate").click()


def written(page) -> str:
    return page.locator(VIEW).inner_text()


def test_enter_and_examples_write_stop_keeps_the_text_and_the_seed_tells_the_truth(
        page, app_url, bundle, slow_tokens, screenshot_dir):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1440, "height": 900})
    load(page, app_url, bundle)
    note = page.locator("#generate-note")

    # Enter in the prompt box writes (one update at once, then the note with the seed)
    prompt = page.locator("#generate-prompt textarea:visible")  # (gr.Examples keeps a hidden copy)
    prompt.fill("JULIET:")
    prompt.press("Enter")
    expect(note).to_contain_text(re.compile(r"Written with seed \d+, drawn at random"))
    assert written(page).startswith("JULIET:") and len(written(page)) > 200
    assert prompt.input_value() == "JULIET:"  # Enter wrote; it added no new line
    seed = re.search(r"seed (\d+)", note.inner_text()).group(1)
    first = written(page)

    # Copy text puts the text as written on the clipboard, and its button ticks
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("#copy-text-button").click()
    expect(page.locator("#copy-text-button.copied")).to_have_count(1)
    assert page.evaluate("navigator.clipboard.readText()") == first

    # "Same text each time" keeps that seed; Generate writes the same text again
    page.get_by_label("Same text each time (fixed seed)").check()
    expect(page.locator("#generate-seed input")).to_have_value(seed)
    page.get_by_role("button", name="Generate").click()
    expect(note).to_contain_text(f"Written with the fixed seed {seed}.")
    assert written(page) == first
    page.get_by_label("Same text each time (fixed seed)").uncheck()
    expect(page.locator("#generate-seed")).to_be_hidden()

    # the top-k switch shows its slider at 40, and hides it again at 0
    page.get_by_label("Limit to the k likeliest tokens (top-k)").check()
    expect(page.locator("#top-k input[type=number]")).to_have_value("40")
    page.get_by_label("Limit to the k likeliest tokens (top-k)").uncheck()
    expect(page.locator("#top-k")).to_be_hidden()

    # Stop: a long generation ends with the text so far, checked for copies like a whole one
    length = page.locator("#max-new-tokens input[type=number]")
    length.fill("2000")
    length.press("Enter")
    slow_tokens["s"] = 0.02  # 2,000 tokens: 40 s at least
    page.get_by_role("button", name="Generate").click()
    page.wait_for_function("(sel) => { const v = document.querySelector(sel);"
                           " return v && v.innerText.length > 60 && v.querySelector('.cursor'); }",
                           arg=VIEW)
    # dispatched, not clicked: a page redrawing ten times a second on busy cores can keep
    # Playwright waiting for it to settle
    page.get_by_role("button", name="Stop").dispatch_event("click")
    expect(note).to_contain_text(re.compile(r"Stopped: [\d,]+ characters written\."))
    n = int(re.search(r"Stopped: ([\d,]+)", note.inner_text()).group(1).replace(",", ""))
    assert 0 < n < 2000 and len(written(page)) == len("JULIET:") + n
    expect(page.locator(f"{VIEW} .cursor")).to_have_count(0)
    slow_tokens["s"] = 0.0
    page.mouse.move(0, 0)

    # an example prompt writes on its own
    page.get_by_text("First Citizen:", exact=True).first.click()
    expect(prompt).to_have_value("First Citizen:\n")
    page.wait_for_function("(sel) => document.querySelector(sel).innerText.startsWith('First Citizen:')",
                           arg=VIEW)
    expect(note).to_contain_text("Written with seed")
    length.fill("300")
    length.press("Enter")
    page.get_by_label("Same text each time (fixed seed)").check()
    page.get_by_role("button", name="Generate").click()
    expect(note).to_contain_text("Written with the fixed seed")
    page.mouse.move(0, 0)
    page.screenshot(path=screenshot_dir / "4-generate.png", full_page=True)

    # the attention of that text: the heatmap beside the grid, both on a 900 px screen
    page.get_by_role("tab", name="5 · Attention").click()
    expect(page.get_by_label("Text to look at")).to_have_value(re.compile("^First Citizen:"))
    page.get_by_role("button", name="Show attention").click()
    grid = page.locator("#attention-grid .js-plotly-plot")
    expect(grid).to_be_visible()
    expect(page.locator("#attention-patterns")).to_contain_text("previous-token")
    heatmap = page.locator("#attention-heatmap .js-plotly-plot")
    heatmap.scroll_into_view_if_needed()
    one, all_heads = heatmap.bounding_box(), grid.bounding_box()
    assert abs(one["y"] - all_heads["y"]) < 60 and all_heads["x"] > one["x"] + one["width"] - 5
    assert one["height"] <= 740 and all_heads["height"] <= 740
    labels = page.evaluate("() => document.querySelector('#attention-heatmap .js-plotly-plot')"
                           ".layout.yaxis.ticktext.length")
    assert labels == 32  # the first 32 tokens of the text, each row labelled
    page.screenshot(path=screenshot_dir / "5-attention.png", full_page=True)
