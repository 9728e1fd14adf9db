"""The class board in a real browser (issue 25): a teacher ticks "A class board" in the lesson
builder and projects the link's Class board tab; a learner opens the link, picks a nickname
and ticks "Share my runs with the class" on the board's tab, and trains; the teacher's board
shows the run without a reload. A page of another class shows none of it. Screenshots in English at 1440x900 and in
Chinese on a phone in dark mode."""

import os
import re
from pathlib import Path

import pytest

from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

SHOTS = Path(os.environ.get("PLAYGROUND_LESSON_SHOTS", "/tmp/me/shots"))
STEPS = 20


def build_class_link(page, app_url) -> str:
    from playwright.sync_api import expect

    page.goto(app_url)
    page.get_by_role("tab", name=EN["tab_train"]).click()
    page.locator("#train-advanced").get_by_text(EN["advanced"]).first.click()
    box = page.get_by_label(EN["label_max_steps"], exact=True)
    box.fill(str(STEPS))  # the link carries the page's settings: a short run for the class
    box.press("Tab")
    page.get_by_role("tab", name=EN["tab_export"]).click()
    builder = page.locator("#lesson-builder")
    builder.locator("#lesson-title input, #lesson-title textarea").fill("Who trains best?")
    builder.locator("#lesson-board input[type=checkbox]").check()
    builder.locator("#lesson-button").click()
    expect(builder.locator("#lesson-preview")).to_contain_text("Class board: on.")
    link = builder.locator("#lesson-link textarea, #lesson-link input").first.input_value()
    assert re.search(r"[?&]class=[A-Za-z0-9_-]{16}(&|$)", link) and f"max_steps={STEPS}" in link
    return link


def open_board(page, labels) -> None:
    from playwright.sync_api import expect

    tab = page.get_by_role("tab", name=labels["tab_board"])
    expect(tab).to_be_visible()
    tab.click()
    expect(page.locator("#board-note")).to_be_visible()


def test_a_learners_shared_run_appears_on_the_class_board_live(page, app_url):
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    link = build_class_link(page, app_url)
    browser = page.context.browser

    # the teacher's projector: the link's board, empty so far
    projector = browser.new_context(locale="en-US", viewport={"width": 1440, "height": 900}).new_page()
    projector.goto(link)
    open_board(projector, EN)
    expect(projector.locator("#board-note")).to_contain_text("No one in this class has shared")

    # a learner shares and trains
    learner = browser.new_context(locale="en-US", viewport={"width": 1440, "height": 900}).new_page()
    learner.goto(link)
    open_board(learner, EN)  # "share my runs" is at the top of the board
    share = learner.locator("#class-share")
    expect(share).to_be_visible()
    share.locator("#class-share-toggle input[type=checkbox]").click()  # no nickname yet: unticked
    expect(share.locator("#class-share-note")).to_contain_text("Choose a nickname first")
    expect(share.locator("#class-share-toggle input[type=checkbox]")).not_to_be_checked()
    share.locator("#class-nickname textarea, #class-nickname input").first.fill("Ada")
    share.locator("#class-share-toggle input[type=checkbox]").check()
    expect(share.locator("#class-share-note")).to_contain_text("You will share as Ada")
    share.screenshot(path=str(SHOTS / "class-share-en.png"))
    learner.get_by_role("tab", name=EN["tab_train"]).click()
    learner.locator("#start-button").scroll_into_view_if_needed()
    learner.locator("#start-button").click()
    expect(learner.locator("#train-status")).to_contain_text("Done.", timeout=300_000)

    # the projector's board follows without a reload
    ranking = projector.locator("#board-ranking")
    expect(ranking).to_contain_text("Ada", timeout=60_000)
    expect(projector.locator("#board-note")).to_contain_text("Runs this class shared: 1")
    expect(projector.locator("#board-plot .scatterlayer .trace")).to_have_count(1)  # its curve
    projector.screenshot(path=str(SHOTS / "class-board-en.png"), full_page=True)

    # the learner sees it too; a page of another class does not
    open_board(learner, EN)
    expect(learner.locator("#board-ranking")).to_contain_text("Ada")
    other = browser.new_context(locale="en-US").new_page()
    other.goto(re.sub(r"class=[A-Za-z0-9_-]{16}", "class=" + "Z" * 16, link))
    open_board(other, EN)
    expect(other.locator("#board-note")).to_contain_text("No one in this class has shared")
    assert "Ada" not in other.locator("#board-ranking").inner_text()

    # a page without a class has no board and nothing to share
    plain = browser.new_context(locale="en-US").new_page()
    plain.goto(app_url)
    expect(plain.get_by_role("tab", name=EN["tab_corpus"])).to_be_visible()
    expect(plain.get_by_role("tab", name=EN["tab_board"])).to_be_hidden()
    expect(plain.locator("#class-share")).to_be_hidden()

    # Chinese, on a phone, in dark mode
    phone = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844},
                                device_scale_factor=2).new_page()
    phone.goto(link + "&__theme=dark")
    phone.wait_for_function("() => document.documentElement.lang == 'zh-CN'")
    open_board(phone, ZH_CN)
    expect(phone.locator("#board-note")).to_contain_text("这个班级分享了 1 次训练")
    phone.screenshot(path=str(SHOTS / "class-board-zh-phone-dark.png"), full_page=True)
