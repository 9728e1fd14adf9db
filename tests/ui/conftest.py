"""Fixtures of the page's handler tests."""

import pytest


@pytest.fixture
def ready(tiny_text):
    """A session with a pasted corpus and a character tokenizer, as a visitor's after tabs 1-2."""
    from playground.ui import corpus_tab, tokenizer_tab

    session = corpus_tab.use_corpus(None, "Paste text", None, tiny_text)[0]
    tokenizer_tab.train_tokenizer_handler(session, "char", 512)
    return session
