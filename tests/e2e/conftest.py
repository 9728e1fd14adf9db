"""Browser tests: the app launched in this process, Debian's Chromium driven by Playwright.

The root ``tests/conftest.py`` skips tests marked ``e2e`` when /usr/bin/chromium is missing
(and fails them when ``CI`` is set).
"""

import os

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def page():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # busy shared cores: be patient, never flaky
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(60_000)
        try:
            yield page
        finally:
            browser.close()


@pytest.fixture
def screenshot_dir(tmp_path):
    """docs/screenshots when PLAYGROUND_SCREENSHOTS=1 (to refresh the committed ones), else tmp."""
    if os.environ.get("PLAYGROUND_SCREENSHOTS") == "1":
        from pathlib import Path

        folder = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    else:
        folder = tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
