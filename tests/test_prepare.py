"""One way to assemble a run (``playground.prepare``), and honest bits per character.

Bits per character are computed here directly from their definition, for each split: the
loss (nats per token) times the split's tokens, divided by the split's characters (of the
decoded split) and by ln 2. The CLI's printed figure, the page's history and the Compare
tab's runs must all equal it, for character and BPE tokenizers, and on a corpus whose last
tenth (the validation split) is another language, where a whole-corpus figure is far off.
"""

import json
import math

import pytest
import torch

from checks import TINY_MODEL, TINY_TRAIN, page_settings
from playground.cli import main
from playground.config import ConfigError, ModelConfig, TrainConfig
from playground.corpus import from_text
from playground.prepare import new_model, prepare_run
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord

CHINESE = "床前明月光，疑是地上霜。举头望明月，低头思故乡。春眠不觉晓，处处闻啼鸟。"


def two_language_text(english: str) -> str:
    """English, then a last tenth in Chinese: the validation split is all Chinese."""
    chinese = (CHINESE * (len(english) // 9 // len(CHINESE) + 1))[: len(english) // 9]
    return english + chinese


def direct_bpc(loss: float, ids: list[int], tokenizer) -> float:
    """loss x tokens / characters / ln 2, for one split's token ids."""
    return loss * len(ids) / len(tokenizer.decode(ids)) / math.log(2)


def splits(text: str, tokenizer, val_fraction: float = 0.1) -> tuple[list[int], list[int]]:
    """The two splits as the definition has them: the first part of the tokens trains."""
    ids = tokenizer.encode(text)
    n_train = int(len(ids) * (1 - val_fraction))
    return ids[:n_train], ids[n_train:]


@pytest.fixture(params=["char", "bpe", "bpe-two-languages"])
def corpus_and_tokenizer(request, tiny_text):
    text = two_language_text(tiny_text) if request.param == "bpe-two-languages" else tiny_text
    kind = request.param.split("-")[0]
    return from_text(text), train_tokenizer(kind, text, 300 if kind == "bpe" else None)


def test_the_trainers_bits_per_character_equal_the_direct_computation(corpus_and_tokenizer):
    corpus, tok = corpus_and_tokenizer
    run = prepare_run(corpus, tok, ModelConfig(**TINY_MODEL), TrainConfig(**TINY_TRAIN))
    train_ids, val_ids = splits(corpus.text, tok)
    assert run.data.train_ids.tolist() == train_ids and run.data.val_ids.tolist() == val_ids
    evals = [r for r in run.trainer().run() if isinstance(r, EvalRecord)]
    assert len(evals) == 3
    for e in evals:
        assert e.val_bpc == pytest.approx(direct_bpc(e.val_loss, val_ids, tok), rel=1e-12)
        assert e.train_bpc == pytest.approx(direct_bpc(e.train_loss, train_ids, tok), rel=1e-12)


def test_a_whole_corpus_figure_is_far_off_when_the_validation_split_is_another_language(tiny_text):
    text = two_language_text(tiny_text)
    tok = train_tokenizer("bpe", text, 300)
    run = prepare_run(from_text(text), tok, ModelConfig(**TINY_MODEL), TrainConfig(**TINY_TRAIN))
    whole = len(text) / (len(run.data.train_ids) + len(run.data.val_ids))
    # the Chinese split packs far fewer characters per token than the corpus as a whole
    assert run.data.val_chars_per_token < 0.6 * whole
    assert run.data.train_chars_per_token > whole


def test_the_cli_prints_the_direct_bits_per_character_for_bpe(tmp_path, tiny_text, capsys):
    text = two_language_text(tiny_text)
    corpus = tmp_path / "two.txt"
    corpus.write_text(text, encoding="utf-8")
    flags = [f"--{k}={v}" for k, v in {**TINY_MODEL, **TINY_TRAIN}.items()]
    status = main(["train", "--corpus", str(corpus), "--tokenizer", "bpe", "--vocab_size", "300",
                   *flags, "--out", str(tmp_path / "b.zip")])
    assert status == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    tok = train_tokenizer("bpe", text, 300)  # BPE training is deterministic: the run's tokenizer
    _, val_ids = splits(text, tok)
    assert summary["val_bpc"] == pytest.approx(direct_bpc(summary["val_loss"], val_ids, tok),
                                               rel=1e-12)


def test_the_page_history_and_the_compare_tab_use_the_direct_figure(tiny_text):
    from playground.ui import corpus_tab, tokenizer_tab, train_tab

    text = two_language_text(tiny_text)
    session, *_ = corpus_tab.use_corpus(None, "Paste text", None, text)
    tokenizer_tab.train_tokenizer_handler(session, "bpe", 300)
    list(train_tab.train_model(session, False, *page_settings()))
    tok = session.trained.tokenizer
    _, val_ids = splits(text, tok)
    last = [r for r in session.trained.history if isinstance(r, EvalRecord)][-1]
    assert last.val_bpc == pytest.approx(direct_bpc(last.val_loss, val_ids, tok), rel=1e-12)
    run = session.runs.runs[-1]
    assert run.final_val_bpc == pytest.approx(last.val_bpc, rel=1e-12)


def test_a_new_model_is_seeded_without_touching_the_global_generator():
    cfg = ModelConfig(vocab_size=20, **TINY_MODEL)
    state = torch.get_rng_state()
    a, b = new_model(cfg, 5), new_model(cfg, 5)
    assert torch.get_rng_state().equal(state)
    assert all(x.equal(y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert not new_model(cfg, 6).lm_head.weight.equal(a.lm_head.weight)


def test_a_run_bigger_than_the_free_memory_is_refused_before_the_model_is_built(monkeypatch,
                                                                              tiny_text):
    from playground import prepare

    built = []
    monkeypatch.setattr(prepare, "available_memory", lambda device: 2**10)
    monkeypatch.setattr(prepare, "new_model", lambda *a: built.append(a))
    tok = train_tokenizer("char", tiny_text)
    with pytest.raises(ConfigError, match="needs about .* of memory to train, but only 1.0 KB"):
        prepare_run(from_text(tiny_text), tok, ModelConfig(**TINY_MODEL), TrainConfig(**TINY_TRAIN))
    assert built == []


def test_continuing_a_finished_run_says_to_raise_max_steps(tiny_text):
    tok = train_tokenizer("char", tiny_text)
    run = prepare_run(from_text(tiny_text), tok, ModelConfig(**TINY_MODEL), TrainConfig(**TINY_TRAIN))
    trainer = run.trainer()
    list(trainer.run())
    with pytest.raises(ConfigError, match="already trained 6 steps. Set max_steps above 6"):
        prepare_run(from_text(tiny_text), tok, run.trained.model_config, TrainConfig(**TINY_TRAIN),
                    model=run.trained.model, trainer_state=trainer.state_dict())
