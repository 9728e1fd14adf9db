"""Tab 2, Tokenizer: character-level or BPE, trained on the session's corpus.

Shows what the tokenizer learned: the vocabulary size, characters per token, a sample of
the corpus cut into coloured tokens and, for BPE, the first merges, with the merge viewer:
a slider steps through the first merges and a sample sentence's tokens fuse merge by merge
(``playground.insight.merges.tokens_after_merges``).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import gradio as gr

from playground import estimate
from playground.i18n import localize, t
from playground.insight.merges import tokens_after_merges
from playground.plots import display_token, token_html
from playground.tokenizer import BPE_DEFAULT_VOCAB, BPE_MAX_VOCAB, BPE_MIN_VOCAB, train_tokenizer
from playground.ui.lang import tr
from playground.ui.session import Session, ensure, friendly_errors
from playground.workspace import make_room
from playground.runtime.fairshare import in_turns

KINDS = [(tr("choice_kind_char"), "char"), (tr("choice_kind_bpe"), "bpe")]
SAMPLE_CHARS = 400
SHOWN_MERGES = 20
VIEWER_MERGES = 200  # the merge viewer steps through at most this many first merges
# BPE on the largest text the page takes (5 MB, no spaces, 16,384 tokens) trains in about a
# minute on two shared cores; past this it is stopped and the visitor told why
TIME_BUDGET_S = 180
VIEWER_SAMPLE = "First Citizen: Before we proceed any further, hear me speak."


def merges_markdown(merges: list[tuple[str, str]], n: int = SHOWN_MERGES, lang: str = "en") -> str:
    """The first ``n`` merges as a numbered list: ``1. t + h → th``; HTML in tokens escaped.

    >>> merges_markdown([("t", "h"), (" ", "a")])
    '**First merges learned** (␣ is a space):  \\n1: `t` + `h` → `th` · 2: `␣` + `a` → `␣a`'
    """
    def code(s: str) -> str:
        return "`" + html.escape(display_token(s, 20)).replace("`", "ˋ") + "`"

    pairs = [f"{i}: {code(a)} + {code(b)} → {code(a + b)}" for i, (a, b) in enumerate(merges[:n], 1)]
    return t("**First merges learned** (␣ is a space):", lang) + "  \n" + " · ".join(pairs)


@friendly_errors
def train_tokenizer_handler(session: Session | None, kind: str,
                            vocab_size: float) -> tuple[Session, str, str, str]:
    """Train a ``kind`` tokenizer on the corpus; returns (session, summary, tokens HTML, merges).

    For BPE, ``vocab_size`` is the vocabulary asked for; a small corpus may support fewer
    tokens, and the summary (and a warning) says so.
    """
    session = ensure(session)
    lang = session.lang
    corpus = session.corpus_or_default()
    make_room(estimate.tokenizer_memory(len(corpus.text)), keep=session)  # idle models to disk
    tokenizer = train_tokenizer(kind, corpus.text, int(vocab_size) if kind == "bpe" else None,
                                time_budget_s=TIME_BUDGET_S)
    session.tokenizer, session.tokenizer_corpus = tokenizer, corpus

    sample = corpus.text[:SAMPLE_CHARS]
    ids = tokenizer.encode(sample)
    cpt = tokenizer.chars_per_token(corpus.text)  # the whole corpus: the figure the summary states
    summary = t("**Character tokenizer trained on {name}:** {vocab} tokens in the vocabulary · "
                "{chars_per_token} characters per token on average."
                if kind == "char" else
                "**BPE tokenizer trained on {name}:** {vocab} tokens in the vocabulary · "
                "{chars_per_token} characters per token on average.", lang,
                name=localize(corpus.name, lang), vocab=f"{tokenizer.vocab_size:,}",
                chars_per_token=f"{cpt:.2f}")
    if kind == "bpe" and tokenizer.vocab_size < int(vocab_size):
        note = t("This text only supports {actual} BPE tokens, fewer than the {requested} asked "
                 "for (no other pair of tokens occurs twice). The smaller vocabulary is used; a "
                 "longer text would allow more.", lang, actual=f"{tokenizer.vocab_size:,}",
                 requested=f"{int(vocab_size):,}")
        gr.Warning(note, title=t("Warning", lang))
        summary += "  \n" + t("**Note:** {note}", lang, note=note)
    summary += "  \n" + t("Next: set up and train a model (tab 3).", lang)
    merges = (merges_markdown(tokenizer.merges(), lang=lang) if kind == "bpe"
              else "*" + t("A character tokenizer learns no merges: each character is its own "
                           "token.", lang) + "*")
    return session, summary, token_html(tokenizer.token_strs(ids), lang=lang), merges


def _code(token: str) -> str:
    return "`" + html.escape(display_token(token, 20)).replace("`", "ˋ") + "`"


@friendly_errors
def show_merges(session: Session | None, sample: str, k: float) -> tuple[str, str]:
    """The sample's tokens after the first ``k`` merges: (caption markdown, tokens HTML)."""
    session = ensure(session)
    tokenizer = session.tokenizer
    if tokenizer is None:
        return "", ""
    if tokenizer.kind != "bpe":
        return "*" + t("A character tokenizer learns no merges: each character is its own token.",
                       session.lang) + "*", token_html(
            tokens_after_merges(tokenizer, sample or "", 0), lang=session.lang)
    merges = tokenizer.merges()
    k = min(max(int(k or 0), 0), len(merges))
    tokens = tokens_after_merges(tokenizer, sample or "", k)
    if k == 0:
        caption = t("0 / {total}: {n} tokens (bytes)", session.lang, total=f"{len(merges):,}",
                    n=len(tokens))
    else:
        left, right = merges[k - 1]
        merge = t("Merge {n} of {total}: {left} + {right} becomes {merged}",
                  session.lang, n=f"{k:,}", total=f"{len(merges):,}",
                  left=_code(left), right=_code(right), merged=_code(left + right))
        caption = t("{merge} · {n} tokens", session.lang, merge=merge, n=len(tokens))
    return caption, token_html(tokens, lang=session.lang)


def setup_merges(session: Session | None, sample: str):
    """After a tokenizer is trained: the viewer's slider range, and the sample at 0 merges.
    Returns (slider, caption, tokens HTML)."""
    session = ensure(session)
    tokenizer = session.tokenizer
    n = len(tokenizer.merges()) if tokenizer is not None and tokenizer.kind == "bpe" else 0
    slider = gr.Slider(minimum=0, maximum=max(1, min(VIEWER_MERGES, n)), value=0,
                       interactive=n > 0)
    return (slider, *show_merges(session, sample, 0))


def toggle_vocab(kind: str) -> dict:
    return gr.update(interactive=kind == "bpe")


@dataclass
class TokenizerTab:
    """The Tokenizer tab's widgets and event that other tabs use."""

    kind: gr.Radio  # the share link reads and restores it, with vocab_size
    vocab_size: gr.Slider
    event: gr.events.Dependency  # training a tokenizer; the training tab's summary follows it


def build(session: gr.State, concurrency_limit: int) -> TokenizerTab:
    """The tab's widgets; training a tokenizer is a compute job (``concurrency_limit`` at once,
    shared with training and generation): on text without spaces it is the costliest thing
    this tab does."""
    gr.Markdown(tr("tokenizer_intro"))
    with gr.Row():
        kind = gr.Radio(KINDS, value="char", label=tr("tokenizer_kind"),
                        info=tr("tokenizer_kind_info"))
        vocab_size = gr.Slider(BPE_MIN_VOCAB, BPE_MAX_VOCAB, value=BPE_DEFAULT_VOCAB, step=64,
                               label=tr("vocab_size"), interactive=False,
                               info=tr("vocab_size_info"))
    train_btn = gr.Button(tr("tokenizer_train_button"), variant="primary", elem_id="tokenizer-train")
    summary = gr.Markdown(tr("tokenizer_none"), elem_id="tokenizer-summary")
    tokens = gr.HTML(label=tr("tokenizer_tokens"))
    merges = gr.Markdown()
    with gr.Accordion(tr("merges_title"), open=True):
        gr.Markdown(tr("merges_intro"))
        with gr.Row():
            sample = gr.Textbox(VIEWER_SAMPLE, label=tr("merges_sample"),
                                info=tr("merges_sample_info"), scale=2)
            step = gr.Slider(0, 1, value=0, step=1, label=tr("merges_step"),
                             info=tr("merges_slider_info"), interactive=False, scale=2,
                             elem_id="merge-step")
        caption = gr.Markdown(elem_id="merge-caption")
        fused = gr.HTML(elem_id="merge-view")

    kind.change(toggle_vocab, kind, vocab_size, queue=False, api_visibility="private")
    event = train_btn.click(in_turns(train_tokenizer_handler), [session, kind, vocab_size],
                            [session, summary, tokens, merges], concurrency_limit=concurrency_limit,
                            concurrency_id="compute", api_name="train_tokenizer")
    event.success(setup_merges, [session, sample], [step, caption, fused], concurrency_limit=2,
                  api_visibility="private")
    gr.on([step.change, sample.submit], show_merges, [session, sample, step], [caption, fused],
          concurrency_limit=2, trigger_mode="always_last", api_name="show_merges",
          show_progress="hidden")
    return TokenizerTab(kind=kind, vocab_size=vocab_size, event=event)
