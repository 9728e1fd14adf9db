"""Toy tasks whose attention a learner can predict: copy, reverse, sort, add, brackets, lookup.

Each task writes problems as lines of text, ``question>answer``, from a seed. A task's
corpus (``task_corpus``) is a ``Corpus`` like any other (source "task"), so it trains through
the same path as Tiny Shakespeare; a fixed held-out set of problems (``Task.held_out``), never
written into any task corpus, measures exact-match accuracy at every evaluation
(``score``): the model must write the whole answer and the line's end after ``>``, greedily.

Where the answer comes from is known, so so is the attention to expect: to write the i-th
answer character of ``reverse`` a head should look at the question's i-th character from
the end (an anti-diagonal); of ``copy`` at the i-th character (an offset diagonal, which an
induction head draws). ``Task.sources`` names those positions for a problem, and
``head_focus`` measures, on a trained model, how much attention mass each head puts there,
so the page names the head that shows the pattern from the model itself, not by assumption.

>>> task = TASKS["reverse"]
>>> task.line(*task.make(random.Random(0)))
'gaehge>egheag'
>>> corpus = task_corpus("reverse")
>>> corpus.source, corpus.text.count("\\n") == TASK_LINES
('task', True)
>>> held = {q for q, _ in task.held_out()}
>>> any(line.split(">")[0] in held for line in corpus.text.splitlines())
False
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from playground.config import ModelConfig, Preset, TrainConfig
from playground.corpus import Corpus
from playground.i18n import Message, localize, msg, t

SEPARATOR = ">"  # between the question and the answer; each problem is one line
TASK_LINES = 20_000  # problems in a task corpus: about 300,000 characters
HELD_OUT = 200  # problems in the held-out set
HELD_OUT_SEED = 2024  # the held-out set is the same for every corpus seed
SHOWN = 4  # held-out problems written out, right or wrong, at each evaluation

LETTERS = "abcdefgh"


def _letters(rng: random.Random, low: int, high: int) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(low, high)))


def _copy(rng: random.Random) -> tuple[str, str]:
    q = _letters(rng, 3, 8)
    return q, q


def _reverse(rng: random.Random) -> tuple[str, str]:
    q = _letters(rng, 3, 8)
    return q, q[::-1]


def _sort(rng: random.Random) -> tuple[str, str]:
    q = _letters(rng, 3, 8)
    return q, "".join(sorted(q))


def _add(rng: random.Random) -> tuple[str, str]:
    """Every number written from its ones digit, filled to three digits (the sum to four): the
    digits of one place then stand at fixed distances, where a head can learn to look. (Written
    as usual, with 1 to 3 digits, the task-add preset learned 0.5% of the held-out sums in 1000
    steps; this way 96.5%.)"""
    a, b = rng.randint(0, 999), rng.randint(0, 999)
    return f"{a:03d}"[::-1] + "+" + f"{b:03d}"[::-1], f"{a + b:04d}"[::-1]


def _brackets(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(1, 5)
    if rng.random() < 0.5:  # a balanced string: a random walk that never goes below zero
        depth, chars = 0, []
        for i in range(2 * n):
            opening = depth == 0 or (depth < 2 * n - i and rng.random() < 0.5)
            chars.append("(" if opening else ")")
            depth += 1 if opening else -1
        q = "".join(chars)
    else:
        q = "".join(rng.choice("()") for _ in range(2 * n))
    depth, ok = 0, True
    for c in q:
        depth += 1 if c == "(" else -1
        ok = ok and depth >= 0
    return q, "y" if ok and depth == 0 else "n"


def _lookup(rng: random.Random) -> tuple[str, str]:
    keys = rng.sample(LETTERS, rng.randint(2, 5))
    pairs = {k: str(rng.randint(0, 9)) for k in keys}
    asked = rng.choice(keys)
    return "".join(k + v for k, v in pairs.items()) + ":" + asked, pairs[asked]


# Where each answer character comes from: for answer character i, the question positions
# (0-based) a head should look at to write it; None where no one position holds it.
def _copy_sources(q: str, a: str) -> list[set[int]]:
    return [{i} for i in range(len(a))]


def _reverse_sources(q: str, a: str) -> list[set[int]]:
    return [{len(q) - 1 - i} for i in range(len(a))]


def _sort_sources(q: str, a: str) -> list[set[int]]:
    return [{j for j, c in enumerate(q) if c == ch} for ch in a]


def _add_sources(q: str, a: str) -> list[set[int]]:
    # the two digits of the place (ones first: 0 and 4, then 1 and 5, 2 and 6); the last digit
    # of the sum is the hundreds' carry
    return [{min(i, 2), 4 + min(i, 2)} for i in range(len(a))]


def _lookup_sources(q: str, a: str) -> list[set[int]]:
    asked = q[-1]
    return [{q.index(asked) + 1}]  # the value right after the key asked for


@dataclass(frozen=True)
class Task:
    """One toy task: its generator, what it teaches, and the preset that learns it."""

    name: str
    make: Callable[[random.Random], tuple[str, str]]  # (question, answer) from a generator
    example: str  # one problem, as a line
    explanation: Message  # the task in plain words
    pattern: Message  # the attention to expect, and where to look for it
    preset: Preset
    expected_accuracy: float  # what the preset reaches on the held-out set (bench, 2 cores)
    sources: Callable[[str, str], list[set[int]]] | None = field(default=None, repr=False)

    @staticmethod
    def line(question: str, answer: str) -> str:
        return f"{question}{SEPARATOR}{answer}"

    def held_out(self) -> list[tuple[str, str]]:
        """The fixed held-out problems: ``HELD_OUT`` distinct questions from ``HELD_OUT_SEED``."""
        rng, problems = random.Random(f"{self.name}:{HELD_OUT_SEED}"), {}
        for _ in range(100 * HELD_OUT):
            q, a = self.make(rng)
            problems.setdefault(q, a)
            if len(problems) == HELD_OUT:
                break
        return list(problems.items())


def _preset(name: str, description: str, max_steps: int, muon_lr: float = 0.02,
            **model) -> Preset:
    """2 layers of 4 heads, 64 wide, RoPE, trained by Muon (the speedrun's recipe, momentum
    0.8): on the copy and reverse tasks Muon reaches 95% of the held-out problems in 200 and
    400 steps, where AdamW at lr 3e-3 stood at 10% and 84% after 600 (AMD EPYC, 2 threads)."""
    return Preset(
        f"task-{name}", description,
        ModelConfig(**{"block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 64,
                       "pos": "rope", **model}),
        TrainConfig(max_steps=max_steps, batch_size=32, lr=4e-3, min_lr=4e-4, warmup_steps=5,
                    optimizer="muon", muon_lr=muon_lr, muon_momentum=0.8,
                    eval_interval=100, eval_iters=5, sample_tokens=0, dtype="float32"))


TASKS: dict[str, Task] = {t.name: t for t in [
    Task("copy", _copy, "abcd>abcd",
         msg("Copy: write the letters before > again, in the same order."),
         msg("Expect an offset diagonal: writing the i-th letter of the answer, a head of the "
             "last layer looks at the i-th letter of the question, one step further along each "
             "time. This is an induction head: find the letter just written earlier in the line, "
             "and look at the one after it."),
         # the token shift hands each position the letter before it, so one head of the second
         # layer does the induction: 96.5% at 200 steps, where without it 600 steps of AdamW
         # reached 10%
         _preset("copy", "Copy letters (an induction head forms): 2 layers with the token "
                 "shift, 300 steps.", 300, token_shift=True),
         0.95, _copy_sources),  # 1.0 measured (bench, section tasks)
    Task("reverse", _reverse, "abcd>dcba",
         msg("Reverse: write the letters before > backwards."),
         msg("Expect an anti-diagonal: writing the i-th letter of the answer, a head looks at "
             "the i-th letter from the end of the question, one step further back each time."),
         _preset("reverse", "Reverse letters (an anti-diagonal): 2 layers, 500 steps.", 500),
         0.95, _reverse_sources),  # 0.975 measured
    Task("sort", _sort, "dbca>abcd",
         msg("Sort: write the letters before > in alphabetical order."),
         msg("Expect each answer letter to look at where that letter stands in the question: "
             "bright cells that jump around, not a line, because the order comes from the "
             "letters, not from their places."),
         _preset("sort", "Sort letters: 2 layers, 800 steps.", 800),
         0.95, _sort_sources),  # 1.0 measured
    Task("add", _add, "720+583>2140",
         msg("Addition: add the two numbers. Every number is written backwards, ones digit "
             "first and filled with zeros (27 is 720, 385 is 583, their sum 412 is 2140): the "
             "way you add on paper, from the right, so each digit of the sum needs only the two "
             "digits of its place and the carry."),
         msg("Expect each digit of the sum to look at the two digits of its place, four "
             "positions apart in the question (the ones digits first), and at the place before "
             "for the carry: two or three bright cells per row, moving right together."),
         # learning addition is a sudden jump after a plateau whose length depends on the
         # seed: at Muon's lr 0.02 two seeds of six jumped within 1500 steps; at 0.01 and 3000
         # steps five of six did (the preset's seed at step 2100-2400), one stayed at 1%
         _preset("add", "Add numbers up to 999, written ones digit first: 2 layers, 3000 "
                 "steps (Muon at half its usual step).", 3000, muon_lr=0.01),
         0.9, _add_sources),  # 0.99 measured
    Task("brackets", _brackets, "(()())>y",
         msg("Brackets: answer y if the brackets are balanced (every one closed, never closed "
             "before it opened), n if not."),
         msg("Expect no single bright cell: to count, the answer looks at every bracket about "
             "evenly, so its row of the map is spread across the question."),
         _preset("brackets", "Balanced brackets: 2 layers, 600 steps.", 600),
         0.8),  # 0.82 measured
    Task("lookup", _lookup, "a3c7b1:c>7",
         msg("Lookup: the line lists keys with their values (a letter, then a digit); after : "
             "comes a key, and the answer is its value."),
         msg("Expect one bright cell per row: at >, a head of the last layer looks at the value "
             "just after the key asked for. The position of each value knows its key because "
             "something copied the key into it: an earlier layer, or the token shift."),
         _preset("lookup", "Key-value lookup: 2 layers with the token shift, 600 steps.", 600,
                 token_shift=True),
         0.6, _lookup_sources),  # 0.625 measured: the task this recipe learns least
]}


def task_corpus(name: str, seed: int = 0, lines: int = TASK_LINES) -> Corpus:
    """``lines`` problems of the task ``name`` drawn from ``seed``, one a line, none of them
    a held-out question; a ``Corpus`` whose name is the task's, source "task".

    >>> task_corpus("copy", lines=3).text
    'edccadbb>edccadbb\\ncff>cff\\nadah>adah\\n'
    """
    task = TASKS[name]
    held = {q for q, _ in task.held_out()}
    rng, out = random.Random(f"{name}:{seed}"), []
    while len(out) < lines:
        q, a = task.make(rng)
        if q not in held:
            out.append(task.line(q, a) + "\n")
    return Corpus("".join(out), name=name, source="task")


def task_of(corpus: Corpus | None) -> Task | None:
    """The task a corpus was written for, or None for any other text."""
    if corpus is None or corpus.source != "task":
        return None
    return TASKS.get(corpus.name)


# --- scoring ------------------------------------------------------------------------------------


def _encoded(tokenizer, problems: list[tuple[str, str]]):
    """Each problem as the model reads it after a line end: ("\\n" question >, answer "\\n")
    token ids, and where in the line the answer starts."""
    out = []
    for q, a in problems:
        prompt = tokenizer.encode("\n" + q + SEPARATOR)
        out.append((prompt, tokenizer.encode(a + "\n")))
    return out


def _forward(model, rows: list[list[int]], return_attn: bool = False):
    """The model on rows of ids padded at the end (causal: padding changes nothing before it)."""
    import torch  # here, so the CLI starts without loading torch

    device = next(model.parameters()).device
    width = max(len(r) for r in rows)
    x = torch.zeros(len(rows), width, dtype=torch.long, device=device)
    for i, r in enumerate(rows):
        x[i, :len(r)] = torch.tensor(r, dtype=torch.long)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits, _, attn = model(x, return_attn=return_attn)
    finally:
        model.train(was_training)
    return logits, attn


def accuracy(model, tokenizer, problems: list[tuple[str, str]]) -> float:
    """The share of problems whose answer the model writes exactly, greedily, with the line's end.

    Greedy decoding writes the answer exactly when, fed the right answer so far, the model's
    likeliest next token is the right one at every step, so one forward pass over each
    problem with its answer scores it (exact for a character tokenizer).

    >>> from playground.model import GPT
    >>> from playground.tokenizer import train_tokenizer
    >>> tok = train_tokenizer("char", task_corpus("copy", lines=50).text)
    >>> model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=32, n_layer=1, n_head=2, n_embd=8))
    >>> accuracy(model, tok, TASKS["copy"].held_out()[:20])   # an untrained model
    0.0
    """
    encoded = _encoded(tokenizer, problems)
    limit = model.config.block_size
    rows = [(p + a)[:-1][:limit] for p, a in encoded]
    logits, _ = _forward(model, rows)
    guesses = logits.argmax(-1).tolist()  # (N, T)
    right = 0
    for (prompt, answer), guess in zip(encoded, guesses):
        start = len(prompt) - 1  # the position of > predicts the first answer token
        right += guess[start:start + len(answer)] == answer
    return right / len(problems)


def written(model, tokenizer, problems: list[tuple[str, str]]) -> list[tuple[str, str, bool]]:
    """What the model writes greedily after each question's ``>`` (up to the line's end):
    (question, the model's answer, right?)."""
    from playground.config import SampleConfig
    from playground.generate import generate_text

    out = []
    for q, a in problems:
        sampling = SampleConfig(max_new_tokens=len(a) + 1, temperature=0.0)
        text = generate_text(model, tokenizer, "\n" + q + SEPARATOR, sampling, top_n=0)
        answer = text.split("\n")[0]
        out.append((q, answer, answer == a))
    return out


def score(task: Task, model, tokenizer) -> tuple[float, str]:
    """Held-out accuracy and the first ``SHOWN`` problems as the model answers them, marked.

    The second part is what an ``EvalRecord`` of a task shows as its sample, one problem a
    line: ``abc>cba ✓`` or ``abc>bca ✗ (cba)``.
    """
    problems = task.held_out()
    lines = [f"{q}{SEPARATOR}{got} ✓" if ok else f"{q}{SEPARATOR}{got} ✗ ({a})"
             for (q, got, ok), (_, a) in zip(written(model, tokenizer, problems[:SHOWN]),
                                             problems[:SHOWN])]
    return accuracy(model, tokenizer, problems), "\n".join(lines)


# --- the attention to expect --------------------------------------------------------------------


def expected_cells(task: Task, question: str, answer: str,
                   shift: int = 0) -> list[tuple[int, set[int]]]:
    """For the line ``"\\n" question > answer`` as token positions (character tokens): each
    position that predicts an answer character, with the positions it should look at.
    ``shift`` 1 is for a model with the token shift (``ModelConfig.token_shift``): there the
    position after a letter carries it too, so a head may read it from either.

    >>> expected_cells(TASKS["reverse"], "abc", "cba")   # > at 4 looks at c at 3, ...
    [(4, {3}), (5, {2}), (6, {1})]
    """
    if task.sources is None:
        return []
    start = len(question) + 1  # the position of >, after the leading "\\n"
    return [(start + i, {1 + j + d for j in keys for d in range(shift + 1)} & set(range(start + i + 1)))
            for i, keys in enumerate(task.sources(question, answer))]


def model_shift(model) -> int:
    """1 where the model has the token shift (each position also carries the one before), else 0."""
    return int(model.config.token_shift)


def head_focus(task: Task, model, tokenizer, problems: list[tuple[str, str]] | None = None):
    """(n_layer, n_head) tensor: each head's mean attention mass on the expected positions,
    over the answer positions of the held-out problems (character tokens); None for a task
    without expected positions."""
    import torch

    if task.sources is None:
        return None
    problems = problems or task.held_out()
    rows = [p + a for p, a in _encoded(tokenizer, problems)]
    _, attn = _forward(model, [r[:model.config.block_size] for r in rows], return_attn=True)
    att = torch.stack(attn, dim=1)  # (N, L, nh, T, T)
    total, count = torch.zeros(att.shape[1:3]), 0
    for n, (q, a) in enumerate(problems):
        for query, keys in expected_cells(task, q, a, model_shift(model)):
            total += att[n, :, :, query, sorted(keys)].sum(-1).float().cpu()
            count += 1
    return total / max(count, 1)


def best_head(task: Task, model, tokenizer) -> tuple[int, int, float] | None:
    """(layer, head, mass): the head whose attention sits most on the expected positions."""
    focus = head_focus(task, model, tokenizer)
    if focus is None:
        return None
    index = int(focus.argmax())
    layer, head = divmod(index, focus.shape[1])
    return layer, head, float(focus[layer, head])


def pattern_note(task: Task, model, tokenizer) -> Message:
    """The task's expected pattern and the head of ``model`` that shows it, as measured."""
    found = best_head(task, model, tokenizer)
    if found is None:
        return task.pattern
    layer, head, mass = found
    if model_shift(model):
        return msg("{pattern} In this model, layer {layer} head {head} shows it most: on the "
                   "held-out problems {share} of its attention from the answer positions falls "
                   "on the expected cells. The model has the token shift, so each position also "
                   "carries the letter before it: the head may look at the letter or at the "
                   "place right after it.", pattern=task.pattern, layer=layer, head=head,
                   share=f"{mass:.0%}")
    return msg("{pattern} In this model, layer {layer} head {head} shows it most: on the "
               "held-out problems {share} of its attention from the answer positions falls on "
               "the expected letters.", pattern=task.pattern, layer=layer, head=head,
               share=f"{mass:.0%}")


# --- what the page shows ------------------------------------------------------------------------


def task_note(task: Task, lang: str = "en") -> str:
    """Markdown for the Corpus tab: the task, an example, the attention to expect, the preset.

    >>> print(task_note(TASKS["reverse"]).splitlines()[0])
    **Reverse: write the letters before > backwards.** Example: `abcd>dcba`
    """
    return "\n\n".join([
        f"**{localize(task.explanation, lang)}** "
        + t("Example: `{example}`", lang, example=task.example),
        localize(task.pattern, lang),
        t("The training settings are now its preset, {preset}: about {accuracy} of {n} held-out "
          "problems answered exactly, in one to three minutes on two CPU cores. After training, the "
          "Attention and Inside tabs open on a held-out problem with the expected cells marked.",
          lang, preset=task.preset.name, accuracy=f"{task.expected_accuracy:.0%}", n=HELD_OUT),
    ])


def task_text(task: Task) -> str:
    """The text the Attention and Inside tabs open on: a held-out problem with the longest
    question (its pattern the easiest to see), after a line end, with its answer."""
    question, answer = max(task.held_out(), key=lambda p: len(p[0]))
    return "\n" + task.line(question, answer)


def task_marks(task: Task, text: str, shift: int = 0) -> list[tuple[int, int]]:
    """The (query, key) cells to outline in the attention map of ``text`` (character tokens):
    those of the first line of ``text`` that holds a problem of ``task`` (``shift``: as
    ``expected_cells``).

    >>> task_marks(TASKS["reverse"], "\\nabc>cba")
    [(4, 3), (5, 2), (6, 1)]
    """
    at = 0
    for line in text.split("\n"):
        if SEPARATOR in line:
            question, answer = line.split(SEPARATOR, 1)
            try:
                cells = expected_cells(task, question, answer, shift)
            except (ValueError, IndexError):  # a line that is not a problem of this task
                return []
            shift = at - 1  # expected_cells counts a "\n" before the question
            return [(q + shift, k + shift) for q, keys in cells for k in sorted(keys)
                    if q + shift < len(text)]
        at += len(line) + 1
    return []
