"""A page's own uploads, through a real browser, are still read once a handler takes only the
files its page uploaded (issue 27, finding 1; the refusals are in tests/test_hostile_files.py)."""

import pytest

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.model import GPT
from playground.tokenizer import train_tokenizer

pytestmark = pytest.mark.e2e


def test_a_pages_own_corpus_and_bundle_uploads_are_read(page, app_url, tmp_path):
    from playwright.sync_api import expect

    notes = tmp_path / "notes.txt"
    notes.write_text("my own notes, read by my own page. " * 20, encoding="utf-8")
    tok = train_tokenizer("char", "my own notes")
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8))
    bundle = save_bundle(tmp_path / "mine.zip", model, tok, TrainConfig(), [])
    page.goto(app_url)
    page.get_by_label("Upload files").check()
    page.locator("#corpus-files input[type=file]").set_input_files(str(notes))
    expect(page.get_by_text("Corpus: notes.txt")).to_be_visible()
    page.get_by_role("tab", name="3 · Model & training").click()
    page.locator("#train-advanced .label-wrap").first.click()
    page.locator("#upload-bundle input[type=file]").set_input_files(str(bundle))
    expect(page.locator("#train-status")).to_contain_text("Loaded")
