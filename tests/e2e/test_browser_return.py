"""Coming back in a real browser: train the tiny preset, reload the page, and the model is
still there (issue 13, part 5): the status line says so, the download button is back and its
file is the model, and the Generate tab writes with it at once."""

import re

import pytest

from playground.checkpoint import load_bundle
from playground.server import reattach
from playground.ui.session import Session

pytestmark = pytest.mark.e2e

VIEW = "#generated-text .copy-view"


def test_a_reload_brings_back_the_model_its_download_and_generate(page, app_url, tmp_path,
                                                                    screenshot_dir):
    from playwright.sync_api import expect

    page.goto(app_url)
    page.get_by_role("tab", name="3 · Model & training").click()
    page.locator("#preset-choice label").filter(has_text="tiny ·").click()
    page.get_by_text("Advanced: every setting", exact=True).click()
    # the preset's settings have arrived (on a busy machine they can come after a fill, and
    # undo it: the run then trained the preset's 600 steps)
    expect(page.get_by_label("layers (n_layer)", exact=True)).to_have_value("2")
    steps = page.get_by_label("training steps (max_steps)", exact=True)
    steps.fill("60")  # the tiny preset's model, trained briefly
    steps.press("Tab")
    page.get_by_role("button", name="Start training").click()
    status = page.locator("#train-status")
    expect(status).to_contain_text("Done.", timeout=300_000)
    download = page.get_by_role("button", name="Download the trained model (.zip)")
    expect(download).to_be_visible()

    page.reload()  # the page closes (its run had ended) and a new one loads with the token
    # the training tab is shown, where the status line and the download button are
    expect(status).to_contain_text("Welcome back. Your model is still here")
    expect(status).to_contain_text("trained 60 steps")
    expect(download).to_be_visible()
    expect(page.locator("#train-samples textarea")).to_have_value(re.compile(r"── step 60"))
    page.screenshot(path=screenshot_dir / "return-after-reload.png", full_page=True)
    with page.expect_download() as got:
        download.click()
    saved = tmp_path / "returned.zip"
    got.value.save_as(saved)
    bundle = load_bundle(saved)
    assert bundle.trainer_state["step"] == 60 and bundle.model_config.n_layer == 2

    page.get_by_role("tab", name="4 · Generate").click()
    prompt = page.locator("#generate-prompt textarea:visible")
    prompt.fill("ROMEO:")
    page.get_by_role("button", name="Generate", exact=True).click()
    expect(page.locator("#generate-note")).to_contain_text(re.compile(r"Written with seed \d+"))
    text = page.locator(VIEW).inner_text()
    assert text.startswith("ROMEO:") and len(text) > 50
    page.screenshot(path=screenshot_dir / "return-generate.png", full_page=True)

    # a phone switching apps: the server sees the heartbeat drop and lets the session go, but
    # the page stays open; back in view, it asks again and has its model at once
    demo = next(d for d in reattach.SERVED if d.is_running)
    holder = demo.server_app.state_holder
    held = {h: v for h, state in list(holder.session_data.items())
            for v in state.state_data.values() if isinstance(v, Session) and v.trained}
    # one session; the page before the reload may still be on Gradio's books beside this one
    # (its heartbeat not yet missed on a busy machine): every page of it goes
    (session,) = {id(v): v for v in held.values()}.values()
    for page_hash in held:
        reattach.close_tab(demo, page_hash)
    assert reattach.REGISTRY.closed_since(session) is not None
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    for _ in range(600):  # the page's event reaches the server (a hang guard, not a timing)
        if reattach.REGISTRY.closed_since(session) is None:
            break
        page.wait_for_timeout(100)
    assert reattach.REGISTRY.closed_since(session) is None
    prompt.fill("JULIET:")
    page.get_by_role("button", name="Generate", exact=True).click()
    expect(page.locator(VIEW)).to_contain_text(re.compile(r"^JULIET:.{20}", re.S))
