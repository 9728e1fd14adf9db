"""Step ×10 on the Inside tab in a real browser: with no model the first press starts one from
the training tab's settings (the tiny preset here), each press moves the step count on, and
the views (the sample, the forward pass and its lens) change with the weights; the samples
of the evaluations stand in the table below. Then the same in Chinese.

Run with ``PLAYGROUND_SCREENSHOTS=1`` to refresh docs/screenshots/9-inside-stepping.png (the
model then steps to 320, so the table holds four evaluations and the text has words).
"""

import os
import re

import pytest

from checks import close_toasts
from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

SCREENSHOTS = os.environ.get("PLAYGROUND_SCREENSHOTS") == "1"


def open_tab(page, tab_id):
    page.locator(f'button[data-tab-id="{tab_id}"]').click()


def pick_tiny(page):
    open_tab(page, "train")
    page.locator("#preset-choice label").filter(has_text="tiny ·").click()
    page.wait_for_function("() => document.querySelector('#train-estimate').innerText.includes('600')")


def drawn(page, elem_id):
    """Wait until Plotly has drawn the figure of ``elem_id`` (data alone is not enough: a
    figure Plotly cannot lay out has its data and an empty, zero-height drawing)."""
    page.wait_for_function(
        "(id) => { const c = document.querySelector('#' + id + ' .svg-container');"
        " return c && c.getBoundingClientRect().height > 0; }", arg=elem_id)


def lens_values(page) -> str:
    """What the lens plot shows now (its heatmap's numbers), to see it change."""
    return page.evaluate("() => JSON.stringify(document.querySelector('#inside-lens "
                         ".js-plotly-plot').data.map(t => t.z || t.x))")


def shot(page, first, last, path):
    """A screenshot of the page from the top of ``first`` to the bottom of ``last``."""
    top = page.locator(first).bounding_box()["y"] + page.evaluate("window.scrollY")
    low = page.locator(last).bounding_box()
    bottom = low["y"] + low["height"] + page.evaluate("window.scrollY")
    page.screenshot(path=path, full_page=True,
                    clip={"x": 0, "y": top - 12, "width": page.viewport_size["width"],
                          "height": bottom - top + 24})


def press_and_wait(page, steps, reached, pattern):
    page.locator(f"#inside-step-{steps}").click()
    page.wait_for_function(
        "([re]) => new RegExp(re).test(document.querySelector('#inside-step-status').innerText)",
        arg=[pattern.format(step=reached)], timeout=600_000)


def test_step_x10_moves_the_step_count_and_changes_the_views(page, app_url, screenshot_dir):
    from playwright.sync_api import expect

    page.goto(app_url)
    pick_tiny(page)
    open_tab(page, "inside")
    status = page.locator("#inside-step-status")
    expect(status).to_contain_text("This is the ready-made model")  # Step starts one's own
    expect(page.locator("#inside-step-10")).to_have_text(EN["inside_step_10"])
    step = r"Step {step}\s+of 600"
    press_and_wait(page, 10, 10, step)
    sample = page.locator("#inside-step-sample textarea")
    prompt = page.locator("#inside-prompt textarea").input_value()
    assert prompt and sample.input_value().startswith(prompt) and len(sample.input_value()) > len(prompt)
    expect(page.locator("#inside-forward-summary")).to_contain_text(re.compile(r"\d+ tokens\."))
    for plot in ("inside-vectors", "inside-attention", "inside-lens", "inside-distribution"):
        drawn(page, plot)
    first_lens, first_sample = lens_values(page), sample.input_value()
    expect(page.locator("#inside-timeline tr.timeline-row")).to_have_count(1)  # step 0's sample

    press_and_wait(page, 10, 20, step)
    expect(page.locator("#inside-forward-summary")).to_contain_text(re.compile(r"\d+ tokens\."))
    page.wait_for_function("([before]) => JSON.stringify(document.querySelector('#inside-lens "
                           ".js-plotly-plot').data.map(t => t.z || t.x)) !== before",
                           arg=[first_lens])
    assert sample.input_value() != first_sample  # the same seed: the weights wrote it otherwise
    if SCREENSHOTS:
        for reached in (120, 220, 320):
            press_and_wait(page, 100, reached, step)
        expect(page.locator("#inside-timeline tr.timeline-row")).to_have_count(4)
    close_toasts(page)
    # from the prompt to the attention row: what a press changes, in one picture
    shot(page, "#inside-prompt", "#inside-attention", screenshot_dir / "9-inside-stepping.png")
    shot(page, "#inside-timeline", "#inside-timeline", screenshot_dir / "9-inside-timeline.png")


def test_stepping_in_chinese_on_a_phone_in_dark_mode(app_url, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 390, "height": 844}, locale="zh-CN")
        page.set_default_timeout(60_000)
        expect.set_options(timeout=60_000)
        try:
            page.goto(app_url + "?__theme=dark")
            expect(page.locator('button[data-tab-id="inside"]')).to_have_text(ZH_CN["tab_inside"])
            pick_tiny(page)
            open_tab(page, "inside")
            expect(page.locator("#inside-step-status")).to_contain_text("这是现成的模型")
            button = page.locator("#inside-step-1")
            expect(button).to_have_text(ZH_CN["inside_step_1"])
            button.click()  # the first press also measures the loss at step 0
            expect(page.locator("#inside-step-status")).to_contain_text("第 1 步", timeout=600_000)
            expect(page.locator("#inside-timeline th").first).to_have_text("步数")
            # every button of the row on the screen, none cut off at 390 px
            for steps in (1, 10, 100):
                box = page.locator(f"#inside-step-{steps}").bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= 390
            page.locator("#inside-step-row").scroll_into_view_if_needed()
            page.screenshot(path=tmp_path / "stepping-zh-phone-dark.png")
            page.locator("#inside-timeline").scroll_into_view_if_needed()
            page.screenshot(path=tmp_path / "timeline-zh-phone-dark.png")
        finally:
            browser.close()
