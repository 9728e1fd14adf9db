"""The training tab as a newcomer first sees it, in a real browser: on a laptop screen and a
phone, in dark mode, with a refused value, and with a GPU recipe on a CPU.

Run with ``PLAYGROUND_SCREENSHOTS=1`` to refresh docs/screenshots/3-training*.png.
"""

import re

import pytest

from playground.config import PRESETS
from playground.i18n.labels import EN

pytestmark = pytest.mark.e2e

CHROMIUM = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
FIRST_SCREEN = ["#preset-choice", "#start-button", "#stop-button", "#loss-plot", "#train-samples"]


@pytest.fixture
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)  # busy shared cores: be patient, never flaky
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM)
        try:
            yield browser
        finally:
            browser.close()


def open_training(browser, app_url, width, height, scheme="light"):
    page = browser.new_context(viewport={"width": width, "height": height},
                               color_scheme=scheme).new_page()
    page.set_default_timeout(120_000)
    page.goto(app_url + ("?__theme=dark" if scheme == "dark" else ""))
    page.get_by_role("tab", name=EN["tab_train"]).click()
    # the preset menu gets this machine's estimates once the page has loaded
    page.wait_for_function("() => /here/.test(document.querySelector('#preset-choice').innerText)")
    return page


def box(page, selector):
    return page.locator(selector).first.bounding_box()


def status(page):
    return page.locator("#train-status").inner_text()


def visible_badges(page) -> int:
    """Gradio's red "Error" badges over widgets (the status trackers'), not the toasts."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=status-tracker] span.error')]
        .filter(e => e.offsetParent !== null).length""")


def test_the_first_viewport_holds_the_presets_start_stop_plot_and_samples(browser, app_url,
                                                                          screenshot_dir):
    from playwright.sync_api import expect

    page = open_training(browser, app_url, 1440, 900)
    for selector in FIRST_SCREEN:
        where = box(page, selector)
        assert where and where["y"] >= 0 and where["y"] + where["height"] <= 900, (selector, where)
    # every preset says its time here; the settings line gives the estimate first
    labels = page.locator("#preset-choice label").all_inner_texts()
    assert len(labels) == len(PRESETS) and all(re.search(r"about .+ here", t) for t in labels)
    expect(page.locator("#train-estimate")).to_contain_text("on this machine")
    # a run of the quickest preset: the curve, the samples (newest first), what the loss means
    run_preset(page, fastest_preset())
    assert re.search(r"Finished all [\d,]+ steps\. Last validation loss [\d.]+ at step [\d,]+ "
                     r"\([\d.]+ bits per character\)\. At [\d.]+ it ", status(page))
    assert page.locator("#train-samples textarea").input_value().startswith("── step")
    expect(page.locator("#coach-notes")).to_contain_text("The validation loss fell from")
    page.screenshot(path=screenshot_dir / "3-training.png", full_page=True)


def test_on_a_phone_start_is_within_two_screens_and_every_tab_shows(browser, app_url,
                                                                    screenshot_dir):
    page = open_training(browser, app_url, 390, 844)
    start = box(page, "#start-button")
    assert start["y"] + start["height"] <= 2 * 844, start
    tabs = page.get_by_role("tab")
    assert tabs.count() == 8 and all(tabs.nth(i).is_visible() for i in range(tabs.count()))
    # the title breaks between its words, never inside one
    assert page.evaluate("""() => {
        const h1 = document.querySelector('#page-intro h1'), text = h1.firstChild;
        const range = document.createRange();
        let at = 0;
        return text.textContent.split(' ').every(word => {
            range.setStart(text, at); range.setEnd(text, at + word.length); at += word.length + 1;
            return range.getClientRects().length === 1;
        });
    }""")
    page.screenshot(path=screenshot_dir / "3-training-phone.png",
                    clip={"x": 0, "y": 0, "width": 390, "height": 2 * 844}, full_page=True)


def fastest_preset() -> str:
    return min(PRESETS, key=lambda n: PRESETS[n].train.max_steps * PRESETS[n].model.n_layer)


def run_preset(page, name):
    """Pick a preset, press Start and wait for the end of the run."""
    page.locator("#preset-choice").get_by_text(name, exact=False).first.click()
    page.get_by_role("button", name=EN["start_button"]).click()
    page.wait_for_function("() => /^(Done|Problem)/.test(document.querySelector('#train-status').innerText)",
                           timeout=600_000)


def test_dark_mode_is_readable(browser, app_url, screenshot_dir):
    page = open_training(browser, app_url, 1440, 900, scheme="dark")
    assert page.evaluate("() => document.body.classList.contains('dark') || "
                         "document.documentElement.classList.contains('dark')")
    run_preset(page, fastest_preset())
    colours = page.evaluate("""() => {
        const plot = document.querySelector('#loss-plot .js-plotly-plot');
        const texts = [...plot.querySelectorAll('.main-svg .xtick text, .main-svg .legendtext')];
        return {paper: plot._fullLayout.paper_bgcolor, texts: texts.map(t => getComputedStyle(t).fill)};
    }""")
    assert colours["paper"] == "rgba(0, 0, 0, 0)"  # the plot follows the page, no white box
    assert len(colours["texts"]) > 5  # tick labels and the legend (the reference lines too)
    for fill in colours["texts"]:
        r, g, b = map(int, re.findall(r"\d+", fill)[:3])
        assert r + g + b > 3 * 150, colours  # light words on the dark page
    page.screenshot(path=screenshot_dir / "3-training-dark.png")


def test_an_out_of_range_value_is_our_message_and_start_still_works(browser, app_url):
    from playwright.sync_api import expect

    page = open_training(browser, app_url, 1440, 900)
    page.get_by_text(EN["advanced"], exact=True).click()
    for name, value in {"max_steps": 6, "eval_interval": 3, "eval_iters": 1, "lr": -1}.items():
        field = page.get_by_label(EN[f"label_{name}"], exact=True)
        field.fill(str(value))
        field.press("Tab")
    # the preset name no longer stands for these settings
    expect(page.locator("#preset-card")).to_contain_text("Your own settings.")
    assert page.locator("#preset-choice input:checked").count() == 0
    page.get_by_role("button", name=EN["start_button"]).click()
    expect(page.get_by_text("lr must be between 1e-08 and 10, got -1.").first).to_be_visible()
    expect(page.locator(".toast-title").first).to_be_visible()
    assert page.locator(".toast-title").first.evaluate(
        "e => getComputedStyle(e, '::before').content") == '"Cannot do that yet"'
    assert visible_badges(page) == 0 and status(page).startswith("Not trained yet. Until you train")
    field = page.get_by_label(EN["label_lr"], exact=True)
    field.fill("0.003")
    field.press("Tab")
    page.get_by_role("button", name=EN["start_button"]).click()
    page.wait_for_function("() => /^(Done|Problem)/.test(document.querySelector('#train-status').innerText)",
                           timeout=300_000)
    assert "Finished all 6 steps" in status(page) and visible_badges(page) == 0


def test_a_gpu_recipe_on_a_cpu_says_so_and_stops_during_its_first_evaluation(browser, app_url):
    from playwright.sync_api import expect

    gpu = next(name for name, p in PRESETS.items() if p.gpu_recipe)
    page = open_training(browser, app_url, 1440, 900)
    page.locator("#preset-choice").get_by_text(gpu, exact=False).first.click()
    expect(page.locator("#train-estimate")).to_contain_text("A GPU recipe: on this machine's CPU "
                                                            "it would take about")
    page.get_by_role("button", name=EN["start_button"]).click()
    expect(page.get_by_text(f"{gpu} is a GPU recipe").first).to_be_visible()
    total = 2 * PRESETS[gpu].train.eval_iters
    page.wait_for_function(f"() => /Evaluating the model at step 0: [\\d,]+ \\/ {total:,} batches/"
                           ".test(document.querySelector('#train-status').innerText)")
    page.get_by_role("button", name=EN["stop_button"]).click()
    page.wait_for_function("() => /^Stopped\\./.test(document.querySelector('#train-status').innerText)",
                           timeout=120_000)
    assert "Stopped at step 0 as asked." in status(page)
