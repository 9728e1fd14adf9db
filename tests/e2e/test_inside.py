"""The Inside tab in a real browser: every view on a freshly trained model, in English and in
Chinese, and on a model uploaded as a bundle; the health plots and their CSV on the training tab.

Run with ``PLAYGROUND_SCREENSHOTS=1`` to refresh docs/screenshots/9-inside-*.png (the model then
trains with the page's defaults, so the pictures show a real run).
"""

import csv
import os
import re

import pytest

from checks import open_tab, train
from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

SCREENSHOTS = os.environ.get("PLAYGROUND_SCREENSHOTS") == "1"
STEPS = None if SCREENSHOTS else 30  # None: the default preset's own run

def plot_ready(page, elem_id):
    page.wait_for_function(
        "(id) => { const p = document.querySelector('#' + id + ' .js-plotly-plot');"
        " return p && p.data && p.data.length > 0; }", arg=elem_id)


def look_inside(page, shots, lang):
    """Open the tab and each view; screenshots into ``shots`` named by ``lang``."""
    from playwright.sync_api import expect

    open_tab(page, "inside")
    diagram = page.locator("#model-diagram")
    expect(diagram.locator(".diagram-part").first).to_be_visible()
    diagram.locator('details[data-part="attn"] summary').click()
    expect(diagram.locator('details[data-part="attn"] p')).to_be_visible()
    page.screenshot(path=shots / f"9-inside-diagram{lang}.png")

    prompt = page.locator("#inside-prompt textarea")
    expect(prompt).not_to_have_value("")  # the tab offers a prompt from the corpus
    prompt.press("Enter")  # Enter runs the model, as the button does
    for plot in ("inside-vectors", "inside-attention", "inside-lens", "inside-distribution"):
        plot_ready(page, plot)
    summary = page.locator("#inside-forward-summary")
    expect(summary).to_contain_text(re.compile(r"\d+ (tokens|个词元)"))
    page.locator("#inside-lens").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"9-inside-forward{lang}.png")
    # the temperature reshapes the cached distribution: its line names the new value
    box = page.locator("#inside-temperature input[type=number]")
    box.fill("0.3")
    box.press("Enter")
    expect(page.locator("#inside-sampling-line")).to_contain_text("0.3")
    page.locator("#inside-distribution").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"9-inside-temperature{lang}.png")

    page.locator("#inside-surprise-run").click()
    expect(page.locator("#inside-surprise .surprise-view span").first).to_be_visible()
    expect(page.locator("#inside-surprise-summary")).to_contain_text(
        re.compile(r"Mean surprise|平均意外程度"))
    page.locator("#inside-surprise").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"9-inside-surprise{lang}.png")

    page.locator("#inside-embedding-run").click()
    plot_ready(page, "inside-embedding")
    expect(page.locator("#inside-embedding-caption")).to_contain_text(re.compile(r"tokens|词元"))
    page.locator("#inside-embedding").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"9-inside-embedding{lang}.png")


def test_each_view_on_a_fresh_model_then_on_its_bundle(page, app_url, screenshot_dir, tmp_path):
    from playwright.sync_api import expect

    page.goto(app_url)
    train(page, EN, STEPS)
    # the training health under the loss plot, and the history as CSV
    plot_ready(page, "health-plot")
    names = page.evaluate("() => document.querySelector('#health-plot .js-plotly-plot')"
                          ".data.map(t => t.name)")
    assert "gradient norm" in names and "planned" in names and "followed" in names
    page.locator("#health-plot").scroll_into_view_if_needed()
    page.screenshot(path=screenshot_dir / "9-inside-health.png")
    with page.expect_download() as csv_download:
        page.locator("#history-csv").click()
    with open(csv_download.value.path(), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows[-1]["kind"] == "eval" and any(row["grad_norm"] for row in rows)
    with page.expect_download() as bundle_download:
        page.get_by_role("button", name=EN["download_button"]).click()
    bundle = tmp_path / "model.zip"
    bundle_download.value.save_as(bundle)

    look_inside(page, screenshot_dir, "")

    # a new visitor uploads that bundle: the views work on it too
    page.goto(app_url)
    open_tab(page, "train")
    page.locator("#train-advanced").get_by_text(EN["advanced"]).first.click()
    page.locator("#upload-bundle input[type=file]").set_input_files(str(bundle))
    expect(page.locator("#train-status")).to_contain_text("Loaded")
    open_tab(page, "inside")
    page.locator("#inside-forward-run").click()
    plot_ready(page, "inside-lens")
    page.locator("#inside-embedding-run").click()
    plot_ready(page, "inside-embedding")
    # a bundle does not carry its text: the tokens are in id order, and the map says so
    expect(page.locator("#inside-embedding-caption")).to_contain_text("tokens are shown")


def test_each_view_in_chinese(app_url, screenshot_dir):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="zh-CN")
        page.set_default_timeout(60_000)
        expect.set_options(timeout=60_000)
        try:
            page.goto(app_url)
            expect(page.locator('button[data-tab-id="inside"]')).to_have_text(ZH_CN["tab_inside"])
            train(page, ZH_CN, 60)  # a short run: the words matter here, not the loss
            look_inside(page, screenshot_dir, "-zh")
            expect(page.locator("#model-diagram")).to_contain_text("词元嵌入")
            expect(page.locator("#inside-surprise-summary")).to_contain_text("奈特")
        finally:
            browser.close()
