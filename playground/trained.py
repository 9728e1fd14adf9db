"""A trained model and what belongs with it, as one object: ``TrainedModel``.

Whoever holds a model holds it in this shape: ``checkpoint.load_bundle`` returns one,
``prepare.prepare_run`` builds one (``PreparedRun.trained``) and the page's session keeps one
(``ui.session.Session.trained``). Its own module, not ``checkpoint`` or ``prepare``, because
both of those need it and ``checkpoint`` already imports ``prepare``.

>>> from playground.config import ModelConfig, TrainConfig
>>> from playground.model import GPT
>>> from playground.tokenizer import train_tokenizer
>>> tok = train_tokenizer("char", "hello world")
>>> cfg = ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8)
>>> trained = TrainedModel(GPT(cfg), tok, cfg, TrainConfig())
>>> trained.step, trained.history, trained.bundle_path
(0, [], None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.config import ModelConfig, TrainConfig
from playground.corpus import Corpus
from playground.model import GPT
from playground.tokenizer import Tokenizer
from playground.train import Record


@dataclass
class TrainedModel:
    """A model with its tokenizer, settings and training so far: replaced whole when a run
    starts or a bundle is loaded, so its parts always describe the same model.

    ``tokenizer`` is the one the model was trained with; ``corpus`` the text it trained on
    (None for a loaded bundle: a bundle does not carry its text); ``bundle_path`` the bundle
    it was last saved to, None until one is written; ``meta`` a loaded bundle's ``meta.json``;
    ``ready_made`` names the shipped model this is (``playground.ready``), "" for a model the
    visitor trained or uploaded.
    """

    model: GPT
    tokenizer: Tokenizer
    model_config: ModelConfig  # the model's own (model.config)
    train_config: TrainConfig
    history: list[Record] = field(default_factory=list)  # the run's records, as Trainer.history
    trainer_state: dict[str, Any] | None = None  # what continuing the run exactly needs
    corpus: Corpus | None = None
    bundle_path: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    ready_made: str = ""  # a shipped model's name (``playground.ready``), "" for one's own

    @property
    def step(self) -> int:
        """The optimiser steps the saved run has done (0 without a trainer state)."""
        return int(self.trainer_state["step"]) if self.trainer_state else 0
