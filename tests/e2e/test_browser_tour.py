"""The guided tour in a real browser: a first visit opens it, each step moves on only once the
visitor does what it asks (train a tokenizer, start a run and watch the loss cross the
letter-frequency line, generate, show attention, train one change, compare both runs), and
it ends; the Tour button reopens it, closing it hides it, and a second visit does not open it
by itself. Then a phone in dark mode and Chinese: the card is Chinese and fits the screen.
Screenshots into docs/screenshots when PLAYGROUND_SCREENSHOTS=1."""

import re

import pytest

from checks import open_tab
from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

STEPS = 60  # the run the tour starts, cut short: the quick preset crosses the line well before


@pytest.fixture(autouse=True)
def _tour_opens_on_a_first_visit(monkeypatch):
    """Before ``app_url`` builds the page: the suite's other pages have it off."""
    from playground.runtime import hosting

    monkeypatch.setenv("PLAYGROUND_TOUR", "first-visit")
    hosting.use(None)  # (read again from the environment; conftest resets it after the test)


def on_step(page, name):
    from playwright.sync_api import expect

    expect(page.locator("#tour .tour-card")).to_have_attribute("data-step", name)


def rings(page, selector):
    """The tour's ring is drawn around the control ``selector`` (so its tab is open)."""
    page.wait_for_function(
        """([selector]) => {
          const ring = document.querySelector('#tour .tour-ring'), target = document.querySelector(selector);
          if (!ring || ring.hidden || !target) return false;
          const a = ring.getBoundingClientRect(), b = target.getBoundingClientRect();
          return b.width > 0 && a.left <= b.left && a.top <= b.top && a.right >= b.right
            && a.bottom >= b.bottom && a.width <= b.width + 20 && a.height <= b.height + 20;
        }""", arg=[selector])


def stays_on(page, name):
    """The step does not move on by itself: the visitor has not acted yet."""
    page.wait_for_timeout(1_000)  # three of the tour's checks
    on_step(page, name)


def play_to_the_end(page, shots):
    card = page.locator("#tour .tour-card")
    on_step(page, "welcome")
    page.screenshot(path=shots / "tour-welcome.png")
    card.locator("[data-action=next]").click()

    on_step(page, "tokenizer")
    rings(page, "#tokenizer-train")
    stays_on(page, "tokenizer")
    page.screenshot(path=shots / "tour-tokenizer.png")
    page.locator("#tokenizer-train").click()

    on_step(page, "start")
    rings(page, "#start-button")
    stays_on(page, "start")
    page.locator("#train-advanced").get_by_text(EN["advanced"]).first.click()
    box = page.get_by_label(EN["label_max_steps"], exact=True)
    box.fill(str(STEPS))
    box.press("Tab")
    page.locator("#start-button").scroll_into_view_if_needed()
    page.locator("#start-button").click()

    on_step(page, "loss")
    rings(page, "#loss-plot")
    page.screenshot(path=shots / "tour-loss.png")
    on_step(page, "generate")  # the loss crossed the line and the run ended
    rings(page, "#generate-button")
    assert re.search(r"Done\.", page.locator("#train-status").inner_text())
    page.locator("#generate-button").click()

    on_step(page, "attention")
    rings(page, "#attention-button")
    page.locator("#attention-button").click()

    on_step(page, "one_change")
    rings(page, "#one-change-button")
    page.screenshot(path=shots / "tour-one-change.png")
    page.locator("#one-change-button").click()

    on_step(page, "compare")  # the changed run ended: both runs are listed
    rings(page, "#compare-runs")
    boxes = page.locator("#compare-runs input[type=checkbox]")
    assert boxes.count() == 2
    for i in range(boxes.count()):
        if not boxes.nth(i).is_checked():
            boxes.nth(i).check()

    on_step(page, "end")
    rings(page, "#tour-button")
    page.screenshot(path=shots / "tour-end.png")
    card.locator("[data-action=close]").click()


def test_the_tour_plays_to_its_end_by_doing_each_step(app_url, screenshot_dir):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(120_000)
            page.goto(app_url)
            card = page.locator("#tour .tour-card")
            expect(card).to_be_visible()  # a first visit opens it
            play_to_the_end(page, screenshot_dir)
            expect(card).to_be_hidden()

            page.locator("#tour-button").click()  # reopened from its first step
            on_step(page, "welcome")
            expect(card).to_contain_text(EN["tour_welcome"][:20])
            card.locator("[data-action=close]").click()
            expect(card).to_be_hidden()

            page.reload()  # a second visit: the tour stays closed
            expect(page.locator("#tour-button")).to_be_visible()
            page.wait_for_timeout(3_000)  # twice the delay before a first visit's tour opens
            expect(card).to_be_hidden()

            phone = browser.new_page(viewport={"width": 390, "height": 844}, locale="zh-CN",
                                     color_scheme="dark", is_mobile=True, has_touch=True)
            phone.set_default_timeout(120_000)
            phone.goto(app_url + "?__theme=dark&lang=zh-CN")
            phone_card = phone.locator("#tour .tour-card")
            expect(phone_card).to_contain_text(ZH_CN["tour_welcome"][:10])
            phone_card.locator("[data-action=next]").click()
            on_step(phone, "tokenizer")
            rings(phone, "#tokenizer-train")
            expect(phone_card).to_contain_text(ZH_CN["tour_tokenizer"][:10])
            box = phone_card.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
            phone.screenshot(path=screenshot_dir / "tour-tokenizer-zh-phone-dark.png")
            phone_card.locator("[data-action=close]").click()  # closing hides it
            expect(phone_card).to_be_hidden()
            open_tab(phone, "train")
            expect(phone_card).to_be_hidden()
        finally:
            browser.close()
