"""A newcomer's click-through in a real browser, from the corpus to the attention maps.

Run with ``PLAYGROUND_SCREENSHOTS=1`` to refresh the screenshots in docs/screenshots.
"""

import os
import re

import pytest

from checks import close_toasts
from playground.i18n.labels import EN, ZH_CN

pytestmark = pytest.mark.e2e

SMALL = {"block_size": 32, "n_layer": 1, "n_head": 2, "n_embd": 32, "batch_size": 8,
         "max_steps": 60, "eval_interval": 10, "eval_iters": 10}
POEM = ("床前明月光，疑是地上霜。举头望明月，低头思故乡。\n"
        "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n"
        "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。\n")


def open_tab(page, name):
    page.get_by_role("tab", name=name).click()


def open_advanced(page, labels=EN):
    """Open the training tab's closed 'Advanced' section, where every setting is."""
    if not page.get_by_label(labels["label_n_layer"], exact=True).is_visible():
        page.get_by_text(labels["advanced"], exact=True).click()


def fill(page, values):
    """Type settings into the training tab's number boxes (under Advanced)."""
    open_advanced(page)
    for name, value in values.items():
        box = page.get_by_label(EN[f"label_{name}"], exact=True)
        box.fill(str(value))
        box.press("Tab")


def loss_points(page) -> int:
    """Points on the train-loss curve, read from the plotly.js figure in the page."""
    return page.evaluate("""() => {
        const plot = document.querySelector('#loss-plot .js-plotly-plot');
        return plot && plot.data && plot.data[0] && plot.data[0].x ? plot.data[0].x.length : 0;
    }""")


def trace_names(page, plot_id) -> list:
    """The names of the traces of a plotly.js figure in the page."""
    return page.evaluate("""(id) => {
        const plot = document.querySelector('#' + id + ' .js-plotly-plot');
        return plot && plot.data ? plot.data.map(t => t.name) : [];
    }""", plot_id)


def status(page) -> str:
    return page.locator("#train-status").inner_text()


def wait_status(page, pattern, timeout=120_000):
    page.wait_for_function(
        "([pattern]) => new RegExp(pattern).test(document.querySelector('#train-status').innerText)",
        arg=[pattern], timeout=timeout)


def pick(page, elem_id, option):
    """Choose ``option`` in a Gradio dropdown: type it to filter the list, then click it."""
    from playwright.sync_api import expect

    box = page.locator(f"#{elem_id} input")
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    expect(box).to_have_value(option)


def test_click_through_from_corpus_to_attention(page, app_url, screenshot_dir, tmp_path):
    from playwright.sync_api import expect

    page.goto(app_url)
    expect(page.get_by_text("1,115,394 characters")).to_be_visible()
    page.screenshot(path=screenshot_dir / "1-corpus.png", full_page=True)

    # 2. the character tokenizer on Tiny Shakespeare
    open_tab(page, "2 · Tokenizer")
    page.get_by_role("button", name="Train tokenizer").click()
    expect(page.get_by_text("Character tokenizer trained on Tiny Shakespeare")).to_be_visible()
    expect(page.locator(".token-view span").first).to_be_visible()
    page.screenshot(path=screenshot_dir / "2-tokenizer.png", full_page=True)

    # 3. a small model for a few dozen steps: the curve gains points as it trains
    # (with PLAYGROUND_SCREENSHOTS=1 the page's own defaults, so the pictures show a real run)
    run = {"max_steps": 300} if os.environ.get("PLAYGROUND_SCREENSHOTS") == "1" else SMALL
    steps = run["max_steps"]
    open_tab(page, "3 · Model & training")
    fill(page, run)
    expect(page.get_by_text(re.compile(r"parameters\*?\*? · about"))).to_be_visible()
    # the curve's length each time the page redraws the plot, noted by the page itself (a poll
    # from here can miss a fast run's middle: on an AVX2 EPYC it saw 0, 1 and 60 points)
    page.evaluate("""() => {
        window.drawnPoints = [];
        const box = document.querySelector('#loss-plot');
        new MutationObserver(() => {
            const plot = box.querySelector('.js-plotly-plot');
            const x = plot && plot.data && plot.data[0] && plot.data[0].x;
            if (x) window.drawnPoints.push(x.length);
        }).observe(box, {subtree: true, childList: true, attributes: true});
    }""")
    page.get_by_role("button", name="Start training").click()
    for _ in range(12_000):  # until the run ends (10 minutes at most)
        if re.search(r"Done\.|Problem:", status(page)):
            break
        page.wait_for_timeout(50)
    assert f"Finished all {steps} steps" in status(page)
    assert loss_points(page) == steps
    drawn = page.evaluate("() => window.drawnPoints")
    assert any(0 < n < steps for n in drawn), f"the plot never showed a run in progress: {drawn}"
    expect(page.get_by_role("button", name="Download the trained model (.zip)")).to_be_visible()
    expect(page.locator("#coach-notes")).to_contain_text("Training coach")
    # what good looks like: the reference lines are on from the start, the x axis counts tokens
    expect(page.get_by_label("Show reference lines")).to_be_checked()
    page.wait_for_function("() => document.querySelector('#loss-plot .js-plotly-plot').data.length == 5")
    names = trace_names(page, "loss-plot")
    assert names[2].startswith("guessing letters at random (4.17")
    assert names[4].startswith("nanoGPT's big GPU model (1.47")
    page.get_by_label("tokens seen").first.check()
    page.wait_for_function("() => document.querySelector('#loss-plot .js-plotly-plot')"
                           ".layout.xaxis.title.text == 'tokens seen'")
    # (test_first_screen.py takes the screenshots of tab 3)
    page.get_by_label("steps", exact=True).first.check()

    # continue it as a long run: a second Start is refused, Stop ends it and keeps the model
    page.get_by_label("Continue training the current model").check()
    fill(page, {"max_steps": 100000})
    page.get_by_role("button", name="Start training").click()
    wait_status(page, r"Training: step \d")
    # force: a page redrawing its plot on busy cores may never look "stable" to Playwright
    page.get_by_role("button", name="Start training").click(force=True)
    expect(page.get_by_text("A training run is already going").first).to_be_visible()
    page.get_by_role("button", name="Stop").click(force=True)
    wait_status(page, "Stopped at step")
    assert "The model is ready" in status(page)
    close_toasts(page)  # tidy the page for the screenshots
    page.get_by_label("Continue training the current model").uncheck()

    # 4. generation streams into the view of the text, then the next-token chart appears
    # (test_browser_generate_attention.py takes the screenshots of tabs 4 and 5)
    open_tab(page, "4 · Generate")
    page.get_by_role("button", name="Generate").click()
    output = page.locator("#generated-text .copy-view")
    expect(output).to_have_text(re.compile(r"^ROMEO:.{20,}", re.S), timeout=60_000)
    expect(page.locator("#next-token-chart .js-plotly-plot")).to_be_visible()
    # the memorisation check of the new text, under it
    expect(page.locator("#generate-note")).to_contain_text(
        re.compile(r"occurs word for word|No span of 20"))

    # 5. attention of the last generation, one head and all heads
    open_tab(page, "5 · Attention")
    expect(page.get_by_label("Text to look at")).to_have_value(re.compile("^ROMEO:"))
    page.get_by_role("button", name="Show attention").click()
    expect(page.locator("#attention-heatmap .js-plotly-plot .heatmaplayer")).to_be_visible()
    expect(page.locator("#attention-grid .js-plotly-plot")).to_be_visible()

    # 6. compare runs: the first run and the same run without position encoding, overlaid
    open_tab(page, "6 · Compare runs")
    runs = page.locator("#compare-runs")
    expect(runs.get_by_label("run 1", exact=True)).to_be_visible()
    expect(runs.get_by_label("run 2", exact=True)).to_be_visible()
    pick(page, "one-change-base", "run 1")
    pick(page, "one-change-setting", "pos")
    # the value list follows the run and setting: the first other position encoding
    # (the quick preset uses RoPE)
    expect(page.locator("#one-change-value input")).to_have_value("learned")
    pick(page, "one-change-value", "none")
    page.get_by_role("button", name="Train the same run with this one change").click()
    expect(page.get_by_role("tab", name="3 · Model & training")).to_have_attribute(
        "aria-selected", "true")
    wait_status(page, f"Finished all {steps} steps", timeout=600_000)
    open_tab(page, "6 · Compare runs")
    expect(runs.get_by_label("run 1, pos=none", exact=True)).to_be_visible()
    runs.get_by_label("run 2", exact=True).uncheck()
    runs.get_by_label("run 1", exact=True).check()
    runs.get_by_label("run 1, pos=none", exact=True).check()
    # the plot had two runs before the ticks changed too: wait for the two now ticked
    page.wait_for_function("() => { const p = document.querySelector('#compare-plot .js-plotly-plot');"
                           " return p && p.data.map(t => t.name).join('|') == 'run 1|run 1, pos=none'; }")
    assert trace_names(page, "compare-plot") == ["run 1", "run 1, pos=none"]
    table = page.locator("#compare-table")
    expect(table).to_contain_text("pos")
    expect(table).to_contain_text("none")
    page.screenshot(path=screenshot_dir / "6-compare.png", full_page=True)

    # then a Chinese text: upload, tokenizer, training
    chinese = tmp_path / "poems.txt"
    chinese.write_text(POEM * 40, encoding="utf-8")
    open_tab(page, "1 · Corpus")
    page.get_by_label("Upload files").check()
    page.locator("#corpus-files input[type=file]").set_input_files(str(chinese))
    expect(page.get_by_text("Corpus: poems.txt")).to_be_visible()
    open_tab(page, "2 · Tokenizer")
    page.get_by_role("button", name="Train tokenizer").click()
    expect(page.get_by_text("Character tokenizer trained on poems.txt")).to_be_visible()
    open_tab(page, "3 · Model & training")
    fill(page, {**SMALL, "max_steps": 30})
    page.get_by_role("button", name="Start training").click()
    wait_status(page, "Finished all 30 steps")
    open_tab(page, "4 · Generate")
    # the tab offers the poems' own openings, and one as the prompt in place of "ROMEO:"
    expect(page.get_by_label("Prompt")).to_have_value(POEM[:4])
    expect(page.locator("#generate-tab").get_by_text(POEM[:4], exact=True)).to_be_visible()
    page.get_by_label("Prompt").fill("床前")
    page.get_by_role("button", name="Generate").click()
    expect(output).to_have_text(re.compile(r"^床前.{20,}", re.S), timeout=60_000)
    expect(output.locator(".cursor")).to_have_count(0)  # the stream has ended: no cursor mark
    assert set(output.inner_text()) <= set(POEM)


def test_a_shared_link_restores_the_settings_and_the_merge_viewer(page, app_url, screenshot_dir):
    from playwright.sync_api import expect

    page.goto(app_url)
    open_tab(page, "3 · Model & training")
    fill(page, {"n_layer": 3, "lr": 0.002})
    open_tab(page, "4 · Generate")
    page.get_by_label("Prompt").fill("JULIET:")
    open_tab(page, "7 · Export & share")
    page.get_by_role("button", name="Make a link to these settings").click()
    link = page.locator("#share-link textarea")
    expect(link).to_have_value(re.compile(r"\?v=1&"))
    url = link.input_value()
    assert url.startswith(app_url.rstrip("/")) and "n_layer=3" in url and "lr=0.002" in url
    assert "prompt=JULIET%3A" in url
    # with only the ready-made model (the Generate tab loaded it), export says to train one's own
    page.get_by_role("button", name="Make the standalone script").click()
    expect(page.get_by_text("ready-made one that comes with the playground").filter(
        visible=True).first).to_be_visible()
    page.screenshot(path=screenshot_dir / "7-export.png", full_page=True)

    page.goto(url)  # a fresh page, as whoever gets the link sees it
    expect(page.locator("#link-message")).to_contain_text("Settings restored from the link.")
    open_tab(page, "3 · Model & training")
    # the link's settings are no preset's: no preset name is left standing for them
    expect(page.locator("#preset-card")).to_contain_text("Your own settings.")
    open_advanced(page)
    expect(page.get_by_label(EN["label_n_layer"], exact=True)).to_have_value("3")
    expect(page.get_by_label(EN["label_lr"], exact=True)).to_have_value("0.002")
    open_tab(page, "4 · Generate")
    expect(page.get_by_label("Prompt")).to_have_value("JULIET:")

    # the merge viewer: BPE on Tiny Shakespeare, then step to merge 5
    open_tab(page, "2 · Tokenizer")
    page.get_by_label("BPE: frequent pieces of words become tokens").check()
    page.get_by_role("button", name="Train tokenizer").click()
    expect(page.get_by_text("BPE tokenizer trained on Tiny Shakespeare")).to_be_visible(timeout=180_000)
    step = page.locator("#merge-step input[type=number]")
    expect(step).to_be_enabled()
    step.fill("5")
    step.press("Enter")
    expect(page.locator("#merge-caption")).to_contain_text("Merge 5 of")
    expect(page.locator("#merge-view .token-view span").first).to_be_visible()
    page.screenshot(path=screenshot_dir / "2b-merges.png", full_page=True)


def test_the_page_in_chinese(app_url, screenshot_dir):
    """A browser whose language is Simplified Chinese gets the Chinese labels, and the server
    writes in Chinese too, until English is picked under Settings."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # as the page fixture: busy shared cores, be patient
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900}).new_page()
            page.set_default_timeout(60_000)
            page.goto(app_url)
            expect(page.get_by_text("上传文件", exact=True)).to_be_visible()  # a choice, translated
            expect(page.get_by_text("1,115,394 个字符")).to_be_visible()  # written by the server
            expect(page.get_by_role("tab", name="3 · 模型与训练")).to_be_visible()
            page.get_by_role("tab", name="3 · 模型与训练").click()
            open_advanced(page, ZH_CN)
            expect(page.get_by_label("层数 (n_layer)", exact=True)).to_be_visible()
            expect(page.get_by_role("button", name="开始训练")).to_be_visible()
            expect(page.locator("#train-status")).to_contain_text("还没有训练。")
            page.get_by_role("tab", name="4 · 生成").click()
            page.get_by_role("button", name="生成", exact=True).click()  # the ready-made model
            expect(page.locator("#generate-note")).to_contain_text("这段文字由现成的模型写成",
                                                                   timeout=120_000)

            # straight to Start with no tokenizer: a character tokenizer, said in Chinese, and
            # the progress and end-of-run lines are the server's, in Chinese too
            page.get_by_role("tab", name="3 · 模型与训练").click()
            box = page.get_by_label(ZH_CN["label_max_steps"], exact=True)
            box.fill("40")
            box.press("Tab")
            page.get_by_role("button", name="开始训练").click()
            expect(page.get_by_text("还没有训练分词器").first).to_be_visible()
            wait_status(page, "完成。")
            expect(page.locator("#train-status")).to_contain_text("全部 40 步")
            close_toasts(page)
            page.screenshot(path=screenshot_dir / "8-chinese.png", full_page=True)

            # English under Settings (the footer): the labels switch, and the next message the
            # server writes is English too (the page reports <html lang>, lang.SYNC_JS)
            page.get_by_role("contentinfo").get_by_role("button", name=re.compile("设置")).click()
            page.locator("input[aria-label=Language]").click()
            page.get_by_role("option", name="English").click()
            page.wait_for_function("() => document.documentElement.lang == 'en'")
            page.mouse.click(5, 5)  # close the settings panel (a click outside it)
            box = page.get_by_label(EN["label_max_steps"], exact=True)  # the summary's line
            box.fill("41")
            box.press("Tab")
            expect(page.get_by_text(re.compile(r"parameters\*?\*? · about"))).to_be_visible()

            # the page's own switch (top right): Chinese again, every tab label too, and the
            # server rewrites what it wrote (the corpus summary) in Chinese
            page.locator("#lang-switch").get_by_text("简体中文").click()
            page.wait_for_function("() => document.documentElement.lang == 'zh-CN'")
            expect(page.get_by_role("tab", name="7 · 导出与分享")).to_be_visible()
            expect(page.get_by_role("tab", name="1 · 语料")).to_be_visible()
            page.get_by_role("tab", name="1 · 语料").click()
            expect(page.get_by_text("1,115,394 个字符")).to_be_visible()

            # ?lang= in the address wins over the browser's language
            other = browser.new_context(locale="en-US").new_page()
            other.goto(app_url + "?lang=zh-CN")
            expect(other.get_by_text("1,115,394 个字符")).to_be_visible()
            expect(other.get_by_role("tab", name="3 · 模型与训练")).to_be_visible()
        finally:
            browser.close()


def test_a_refused_number_leaves_start_working(page, app_url):
    """A negative learning rate is refused by our own message, naming the setting, with no
    pill of Gradio's over the box; once it is fixed, Start trains (the session is not stuck)."""
    from playwright.sync_api import expect

    page.goto(app_url)
    open_tab(page, "3 · Model & training")
    fill(page, {**SMALL, "max_steps": 6, "eval_interval": 3, "eval_iters": 1, "lr": -1})
    page.get_by_role("button", name="Start training").click()
    expect(page.get_by_text("lr must be between 1e-08 and 10, got -1.").first).to_be_visible()
    expect(page.get_by_text("less than minimum")).to_have_count(0)
    box = page.get_by_label(EN["label_lr"], exact=True)
    expect(box).to_have_value("-1")  # the settings keep what was typed
    close_toasts(page)
    fill(page, {"lr": 0.003})
    page.get_by_role("button", name="Start training").click()
    wait_status(page, r"Done\.|Problem:")
    assert "Finished all 6 steps" in status(page)
    expect(page.get_by_text("A training run is already going")).to_have_count(0)
