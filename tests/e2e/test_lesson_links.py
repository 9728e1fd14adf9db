"""A lesson link as a teacher builds it (issue 25): ticked on the Export tab, opened in a new page,
which shows only the chosen tabs and settings, the lesson's title and text as plain text, in
English and in Chinese, and the whole playground again at one button."""

import os
from pathlib import Path

import pytest

from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

SHOTS = Path(os.environ.get("PLAYGROUND_LESSON_SHOTS", "/tmp/me/shots"))
TITLE = "Heads that look back"
TEXT = "Press Start, then open tab 5.\nWhich head reads the letter before? <b>[not a link](//ev.il)"
TABS_SHOWN = ("train", "attention")
SETTINGS_SHOWN = ("n_layer", "lr")


def tick_only(group, wanted: set[str]) -> None:
    """In a CheckboxGroup, tick exactly the boxes whose labels are in ``wanted``."""
    for box in group.locator("label").all():
        checkbox = box.locator("input[type=checkbox]")
        if checkbox.count() and checkbox.is_checked() != (box.inner_text().strip() in wanted):
            box.click()


def build_link(page, app_url) -> str:
    from playwright.sync_api import expect

    page.goto(app_url)
    page.get_by_role("tab", name=EN["tab_export"]).click()
    builder = page.locator("#lesson-builder")
    builder.locator("#lesson-title input, #lesson-title textarea").fill(TITLE)
    builder.locator("#lesson-text textarea").fill(TEXT)
    tick_only(page.locator("#lesson-tabs"), {EN[f"tab_{name}"] for name in TABS_SHOWN})
    for group in ("shape", "variants", "optimisation", "evaluation"):
        tick_only(page.locator(f"#lesson-{group}"), {EN[f"label_{n}"] for n in SETTINGS_SHOWN})
    page.locator("#lesson-task input").click()
    page.get_by_role("option", name="reverse").click()
    page.locator("#lesson-button").click()
    preview = page.locator("#lesson-preview")
    expect(preview).to_contain_text("Settings shown: 2 of 48")
    expect(preview).to_contain_text(TITLE)
    link = page.locator("#lesson-link textarea, #lesson-link input").first.input_value()
    assert "title=" in link and "show=n_layer%2Clr" in link and "task=reverse" in link, link
    page.set_viewport_size({"width": 1440, "height": 900})
    builder.screenshot(path=str(SHOTS / "lesson-builder-en.png"))
    return link


def visible_tabs(page) -> list[str]:
    return [tab.inner_text().strip() for tab in page.get_by_role("tab").all() if tab.is_visible()]


def check_lesson(page, labels: dict[str, str], shot: str) -> None:
    from playwright.sync_api import expect

    lesson = page.locator("#lesson")
    expect(lesson).to_be_visible()
    expect(lesson.locator("#lesson-header")).to_contain_text(TITLE)
    expect(lesson.locator("#lesson-header")).to_contain_text("Which head reads the letter before? "
                                                             "<b>[not a link](//ev.il)")
    assert lesson.locator("a, img, b").count() == 0  # the text is shown as written, not as markup
    expect(lesson.locator("#lesson-show-all")).to_have_text(labels["lesson_show_all"])
    expect(page.get_by_role("tab", name=labels["tab_train"])).to_be_visible()
    assert sorted(visible_tabs(page)) == sorted(labels[f"tab_{n}"] for n in TABS_SHOWN)
    # the first tab shown is open, with only the chosen settings, and no preset menu
    advanced = page.locator("#train-advanced")
    for name in SETTINGS_SHOWN:
        expect(advanced.get_by_text(labels[f"label_{name}"], exact=True)).to_be_visible()
    expect(advanced.get_by_text(labels["label_n_head"], exact=True)).to_be_hidden()
    expect(advanced.get_by_text(labels["label_optimizer"], exact=True)).to_be_hidden()
    assert advanced.locator("input:visible").count() == len(SETTINGS_SHOWN)
    expect(page.locator("#preset-choice")).to_be_hidden()
    expect(page.locator("#upload-bundle")).to_be_hidden()
    page.screenshot(path=str(SHOTS / shot))
    advanced.screenshot(path=str(SHOTS / shot.replace(".png", "-settings.png")))


def test_a_lesson_link_shows_only_what_the_teacher_chose(page, app_url):
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    link = build_link(page, app_url)
    assert link.startswith(app_url.rstrip("/"))

    browser = page.context.browser
    learner = browser.new_context(locale="en-US", viewport={"width": 1440, "height": 900}).new_page()
    learner.goto(link)
    check_lesson(learner, EN, "lesson-en.png")
    # the toy task is the corpus (the Corpus tab is hidden, so shown after "show everything")
    learner.locator("#lesson-show-all").click()
    expect(learner.get_by_role("tab", name=EN["tab_corpus"])).to_be_visible()
    assert len(visible_tabs(learner)) == 8
    expect(learner.locator("#preset-choice")).to_be_visible()
    expect(learner.locator("#lesson-header")).to_contain_text(TITLE)
    learner.get_by_role("tab", name=EN["tab_corpus"]).click()
    expect(learner.locator("#corpus-task input")).to_have_value("reverse")

    chinese = browser.new_context(locale="zh-CN", viewport={"width": 1440, "height": 900}).new_page()
    chinese.goto(link)
    chinese.wait_for_function("() => document.documentElement.lang == 'zh-CN'")
    check_lesson(chinese, ZH_CN, "lesson-zh.png")
    expect(chinese.locator("#lesson-note")).to_contain_text(ZH_CN["lesson_show_all_info"])
