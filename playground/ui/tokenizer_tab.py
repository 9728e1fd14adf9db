"""Tab 2, Tokenizer: character-level or BPE, trained on the session's corpus.

Shows what the tokenizer learned: the vocabulary size, characters per token, a sample of
the corpus cut into coloured tokens and, for BPE, the first merges.
"""

from __future__ import annotations

import html

import gradio as gr

from playground.plots import display_token, token_html
from playground.tokenizer import BPE_DEFAULT_VOCAB, BPE_MAX_VOCAB, BPE_MIN_VOCAB, train_tokenizer
from playground.ui.session import Session, ensure, friendly_errors

KINDS = [("Characters: one token per character", "char"),
         ("BPE: frequent pieces of words become tokens", "bpe")]
SAMPLE_CHARS = 400
SHOWN_MERGES = 20


def merges_markdown(merges: list[tuple[str, str]], n: int = SHOWN_MERGES) -> str:
    """The first ``n`` merges as a numbered list: ``1. t + h → th``; HTML in tokens escaped.

    >>> merges_markdown([("t", "h"), (" ", "a")])
    '**First merges learned** (␣ is a space):  \\n1: `t` + `h` → `th` · 2: `␣` + `a` → `␣a`'
    """
    def code(s: str) -> str:
        return "`" + html.escape(display_token(s, 20)).replace("`", "ˋ") + "`"

    pairs = [f"{i}: {code(a)} + {code(b)} → {code(a + b)}" for i, (a, b) in enumerate(merges[:n], 1)]
    return "**First merges learned** (␣ is a space):  \n" + " · ".join(pairs)


@friendly_errors
def train_tokenizer_handler(session: Session | None, kind: str,
                            vocab_size: float) -> tuple[Session, str, str, str]:
    """Train a ``kind`` tokenizer on the corpus; returns (session, summary, tokens HTML, merges).

    For BPE, ``vocab_size`` is the vocabulary asked for; a small corpus may support fewer
    tokens, and the summary (and a warning) says so.
    """
    session = ensure(session)
    corpus = session.corpus_or_default()
    tokenizer = train_tokenizer(kind, corpus.text, int(vocab_size) if kind == "bpe" else None)
    session.tokenizer, session.tokenizer_corpus = tokenizer, corpus

    sample = corpus.text[:SAMPLE_CHARS]
    ids = tokenizer.encode(sample)
    cpt = tokenizer.chars_per_token(corpus.text[:100_000])
    summary = (f"**{'Character' if kind == 'char' else 'BPE'} tokenizer trained on {corpus.name}:** "
               f"{tokenizer.vocab_size:,} tokens in the vocabulary · "
               f"{cpt:.2f} characters per token on average.")
    if kind == "bpe" and tokenizer.vocab_size < int(vocab_size):
        note = (f"This text only supports {tokenizer.vocab_size:,} BPE tokens, fewer than the "
                f"{int(vocab_size):,} asked for (no other pair of tokens occurs twice). The "
                "smaller vocabulary is used; a longer text would allow more.")
        gr.Warning(note)
        summary += "  \n**Note:** " + note
    summary += "  \nNext: set up and train a model (tab 3)."
    merges = merges_markdown(tokenizer.merges()) if kind == "bpe" else (
        "*A character tokenizer learns no merges: each character is its own token.*")
    return session, summary, token_html(tokenizer.token_strs(ids)), merges


def toggle_vocab(kind: str) -> dict:
    return gr.update(interactive=kind == "bpe")


def build(session: gr.State) -> dict[str, gr.components.Component]:
    gr.Markdown("A tokenizer cuts text into the pieces (tokens) the model reads and writes. "
                "Train one on your corpus.")
    with gr.Row():
        kind = gr.Radio(KINDS, value="char", label="Kind of tokenizer",
                        info="Characters are simplest; BPE makes tokens of common letter groups, "
                             "so the model sees more text at once.")
        vocab_size = gr.Slider(BPE_MIN_VOCAB, BPE_MAX_VOCAB, value=BPE_DEFAULT_VOCAB, step=64,
                               label="BPE vocabulary size", interactive=False,
                               info="How many different tokens BPE learns (only for BPE).")
    train_btn = gr.Button("Train tokenizer", variant="primary")
    summary = gr.Markdown("*No tokenizer yet: press 'Train tokenizer'.*")
    tokens = gr.HTML(label="The start of the corpus, cut into tokens (colours alternate)")
    merges = gr.Markdown()

    kind.change(toggle_vocab, kind, vocab_size, queue=False, api_visibility="private")
    event = train_btn.click(train_tokenizer_handler, [session, kind, vocab_size],
                            [session, summary, tokens, merges], concurrency_limit=2,
                            api_name="train_tokenizer")
    return {"summary": summary, "event": event}
