"""The guided tour's steps against the page they walk through: every control a step points at
is on the page, every step's words exist in both languages, and the patterns a step waits
for match what the server really writes (so a reworded status line cannot stall the tour
unnoticed). The browser test (``e2e/test_browser_tour.py``) plays it."""

import re

from checks import CJK
from playground import describe
from playground.i18n import t
from playground.config import TrainConfig
from playground.insight.baselines import reference_lines
from playground.train import EvalRecord, StepRecord
from playground.ui import tour
from playground.i18n.labels import EN, ZH_CN
from playground.ui.lang import TABS

LANGS = ("en", "zh-CN")


def test_each_step_points_at_a_control_of_the_page_on_its_tab():
    from playground.ui.app import build_demo

    demo = build_demo()
    ids = {block.elem_id for block in demo.blocks.values() if getattr(block, "elem_id", None)}
    for step in tour.STEPS:
        assert step.tab is None or step.tab in TABS
        for selector in [step.target] + [c["selector"] for c in step.done]:
            if selector:
                assert selector.split()[0].lstrip("#") in ids, (step.name, selector)
        assert not step.press or step.target, step.name  # what is pressed is what is ringed


def test_every_word_of_the_card_is_in_english_and_chinese():
    data = tour.tour_data()
    assert set(data["text"]["en"]) == set(data["text"]["zh-CN"])
    for key, english in data["text"]["en"].items():
        chinese = data["text"]["zh-CN"][key]
        assert english.strip() and CJK.search(chinese), key
    assert [s["name"] for s in data["steps"]] == [s.name for s in tour.STEPS]
    assert "{n}" in EN["tour_progress"] and "{total}" in ZH_CN["tour_progress"]


def test_a_step_waits_for_what_the_server_really_writes():
    config = TrainConfig(max_steps=60)
    for lang in LANGS:
        training = describe.status_line(StepRecord(12, 12 * 1024, 3.1, 1e-3, 900.0, 1.5), config,
                                         64, None, lang)
        assert re.search(tour.RUN_STARTED, training), training
        assert not re.search(tour.RUN_DONE, training)
        ended = describe.end_status(None, EvalRecord(60, 61_440, 2.4, 2.5, 3.5, 3.6, 6.0), lang)
        assert not re.search(tour.RUN_DONE, ended)  # a run that ended without "done" is a problem
        lines = reference_lines(65, "to be or not to be", "bundled", "char", lang=lang)
        names = [line.label for line in lines if re.search(tour.UNIGRAM_LINE, line.label)]
        assert names == [lines[1].label], [line.label for line in lines]
    assert re.search(tour.RUN_DONE, "Done. The run reached its last step.")
    for lang in ("en", "zh-CN"):  # a generation's last note, never its empty one while it writes
        assert re.search(tour.WRITTEN, t("Written with seed {seed}, drawn at random: tick “Same "
                                         "text each time” to keep it and write this text again.",
                                         lang, seed=7))
        assert re.search(tour.WRITTEN, t("Written with the fixed seed {seed}.", lang, seed=7))
    assert not re.search(tour.WRITTEN, "")
    assert re.search(tour.RUN_DONE, "完成。")
    assert not re.search(tour.RUN_STARTED, EN["not_trained"]) and not re.search(
        tour.RUN_STARTED, ZH_CN["not_trained"])  # the first visit's status: nothing started
    assert not re.search(r"\d", EN["tokenizer_none"] + ZH_CN["tokenizer_none"])
