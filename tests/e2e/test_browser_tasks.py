"""A newcomer's walk through a toy task in a real browser: pick "reverse" on the Corpus tab,
train, see the accuracy beside the loss, find the marked cells on the Attention tab, then step
through one head's arithmetic on the Inside tab. Screenshots at 1440×900 (light, English) and
on a phone (dark, Chinese) into docs/screenshots when PLAYGROUND_SCREENSHOTS=1."""

import re

import pytest

from checks import train
from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

STEPS = 60  # a short run: the walk matters here; the preset's 500 steps take longer


def walk(page, url, labels, shots, name):
    from playwright.sync_api import expect

    page.goto(url)
    page.locator("#corpus-task input").click()
    page.get_by_role("option", name="reverse").click()
    expect(page.get_by_text(re.compile("anti-diagonal|反对角线")).first).to_be_visible()
    page.screenshot(path=shots / f"10-task-corpus{name}.png")

    train(page, labels, STEPS)
    traces = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')]"
                           ".flatMap(p => (p.data || []).map(t => t.name))")
    assert any(re.search("accuracy|准确率", str(t)) for t in traces), traces
    page.screenshot(path=shots / f"10-task-train{name}.png", full_page=False)

    page.locator('button[data-tab-id="attention"]').click()
    page.get_by_role("button", name=labels["attention_button"]).click()
    page.wait_for_function(
        "() => { const p = document.querySelector('#attention-heatmap .js-plotly-plot');"
        " return p && p.data && p.data.length === 2; }")  # the heatmap and the marked cells
    expect(page.get_by_text(re.compile(r"layer \d head \d|第 \d 层第 \d 个头")).first).to_be_visible()
    page.screenshot(path=shots / f"10-task-attention{name}.png")

    page.locator('button[data-tab-id="inside"]').click()
    page.locator("#inside-forward-run").click()
    page.locator("#inside-head-next").click()
    step = page.locator("#inside-head-step")
    expect(step).to_contain_text(re.compile(r"1\. The query|1\. 查询"))
    page.locator("#inside-head-next").click()
    expect(step).to_contain_text(re.compile(r"2\. The keys|2\. 键"))
    step.scroll_into_view_if_needed()
    page.screenshot(path=shots / f"10-task-head{name}.png")


def test_a_newcomer_trains_reverse_and_finds_its_pattern(app_url, screenshot_dir):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(120_000)
            walk(page, app_url, EN, screenshot_dir, "")
            phone = browser.new_page(viewport={"width": 390, "height": 844}, locale="zh-CN",
                                     color_scheme="dark", is_mobile=True, has_touch=True)
            phone.set_default_timeout(120_000)
            walk(phone, app_url + "?__theme=dark", ZH_CN, screenshot_dir, "-zh-phone-dark")
        finally:
            browser.close()
