"""Training records for tests: a test names the fields it is about, the rest get plausible values.

>>> step(2, 3.9)
StepRecord(step=2, tokens=128, loss=3.9, lr=0.001, tokens_per_s=900.0, elapsed=0.2)
>>> evaluation(2, 3.8, 3.95).val_bpc == 3.95 / math.log(2)
True
"""

import math

from playground.train import EndRecord, EvalRecord, StepRecord

TOKENS_PER_STEP = 64


def step(step: int, loss: float, *, tokens: int | None = None, lr: float = 1e-3,
         tokens_per_s: float = 900.0, elapsed: float | None = None) -> StepRecord:
    """A step record; tokens and elapsed follow the step unless given."""
    return StepRecord(step, TOKENS_PER_STEP * step if tokens is None else tokens, loss, lr,
                      tokens_per_s, step / 10 if elapsed is None else elapsed)


def evaluation(step: int, train_loss: float, val_loss: float, *, tokens: int | None = None,
               train_bpc: float | None = None, val_bpc: float | None = None,
               elapsed: float | None = None, sample: str | None = None) -> EvalRecord:
    """An evaluation record; bits per character are those of a character tokenizer unless given."""
    return EvalRecord(step, TOKENS_PER_STEP * step if tokens is None else tokens, train_loss, val_loss,
                      train_loss / math.log(2) if train_bpc is None else train_bpc,
                      val_loss / math.log(2) if val_bpc is None else val_bpc,
                      step / 10 if elapsed is None else elapsed, sample)


def end(step: int, reason: str = "done", message: str = "Finished.") -> EndRecord:
    return EndRecord(step, reason, message)
