"""A shared link cannot put content into the page (issue 14): the browser shows what a link
held as plain text. Before, ``?v=1&n_layer=2&[Log in to keep your model](//ev.il)=1&![x](https://
ev.il/p.png)=1`` showed a clickable "Log in to keep your model" and loaded a remote image in the
app's own banner.
"""

from urllib.parse import quote, urlsplit

import pytest

pytestmark = pytest.mark.e2e

LOGIN, PIXEL = "[Log in to keep your model](//ev.il)", "![x](https://ev.il/p.png)"


def banner(page, app_url, query: str):
    from playwright.sync_api import expect

    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{app_url}?{query}")
    message = page.locator("#link-message")
    expect(message).to_be_visible()
    return message, requests


def test_unknown_keys_of_a_link_are_counted_not_shown(page, app_url, tmp_path):
    message, requests = banner(page, app_url, f"v=1&n_layer=2&{quote(LOGIN)}=1&{quote(PIXEL)}=1")
    from playwright.sync_api import expect

    expect(message).to_contain_text("2 settings this version does not know")
    assert message.locator("a, img").count() == 0 and "Log in" not in message.inner_text()
    assert not [url for url in requests if urlsplit(url).hostname == "ev.il"]
    page.screenshot(path=str(tmp_path / "link-unknown-keys.png"))


def test_a_bad_value_of_a_link_is_shown_as_plain_text(page, app_url, tmp_path):
    value = "[Log in](https://ev.il)<img src=https://ev.il/p.png>"
    message, requests = banner(page, app_url, f"v=1&n_layer={quote(value)}")
    from playwright.sync_api import expect

    expect(message).to_contain_text("n_layer must be a whole number, got '[Log in](https://ev.il)")
    assert message.locator("a, img").count() == 0
    assert not [url for url in requests if urlsplit(url).hostname == "ev.il"]
    page.screenshot(path=str(tmp_path / "link-bad-value.png"))
