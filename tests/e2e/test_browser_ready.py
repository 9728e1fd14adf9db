"""A first visit in a real browser: before anything is trained the status line says a ready-made
model is in use, Generate writes with it, Attention draws its heatmap and Inside runs its
forward pass (``playground.ready``)."""

import re

import pytest

from checks import open_tab

pytestmark = pytest.mark.e2e

VIEW = "#generated-text .copy-view"


def drawn(page, elem_id):
    """Wait until Plotly has drawn the figure of ``elem_id`` with a height."""
    page.wait_for_function(
        "(id) => { const c = document.querySelector('#' + id + ' .svg-container');"
        " return c && c.getBoundingClientRect().height > 0; }", arg=elem_id)


def test_a_fresh_page_generates_draws_attention_and_looks_inside_without_training(page, app_url):
    from playwright.sync_api import expect

    page.goto(app_url)
    open_tab(page, "train")
    expect(page.locator("#train-status")).to_contain_text(
        "Until you train a model of your own, Generate, Attention and Inside use a ready-made one")

    open_tab(page, "generate")
    prompt = page.locator("#generate-prompt textarea:visible")
    prompt.fill("ROMEO:")
    page.get_by_role("button", name="Generate", exact=True).click()
    expect(page.locator("#generate-note")).to_contain_text(re.compile(r"Written with seed \d+"))
    assert page.locator(VIEW).inner_text().startswith("ROMEO:")
    assert len(page.locator(VIEW).inner_text()) > 100

    open_tab(page, "attention")
    page.get_by_role("button", name="Show attention").click()
    drawn(page, "attention-heatmap")
    expect(page.locator("#attention-text textarea")).to_have_value(re.compile(r"^ROMEO:"))

    open_tab(page, "inside")
    expect(page.locator("#inside-step-status")).to_contain_text("This is the ready-made model")
    page.locator("#inside-forward-run").click()
    expect(page.locator("#inside-forward-summary")).to_contain_text(re.compile(r"\d+ tokens\."))
    drawn(page, "inside-lens")
    expect(page.locator("#inside-timeline tr.timeline-row").first).to_be_visible()
