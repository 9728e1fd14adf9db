"""The samples of each evaluation, side by side: which records become rows, and the table."""

import math

from playground.insight.timeline import SampleRow, sample_rows, timeline_html
from playground.train import EndRecord

from make_records import evaluation, step


def test_rows_are_the_evaluations_that_wrote_a_sample_in_the_runs_order():
    history = [evaluation(0, 4.2, 4.25, sample="zq"), step(1, 4.1), evaluation(50, 3.0, 3.1),
               evaluation(100, 2.4, 2.5, sample="the"), EndRecord(100, "done", "Finished.")]
    assert sample_rows(history) == [SampleRow(0, 4.25, "zq"), SampleRow(100, 2.5, "the")]
    assert sample_rows([]) == []


def test_the_table_has_one_row_per_sample_escaped_with_its_step_and_loss():
    rows = [SampleRow(0, 4.1749, "<b>KING</b>\n  & so"), SampleRow(1200, 1.6, "ROMEO:")]
    page = timeline_html(rows)
    assert page.count('<tr class="timeline-row"') == 2
    assert "&lt;b&gt;KING&lt;/b&gt;\n  &amp; so" in page and "<b>KING" not in page
    assert ">1,200</td>" in page and ">4.175</td>" in page and ">1.600</td>" in page
    assert page.index('data-step="0"') < page.index('data-step="1200"')  # the first at the top
    assert "white-space:pre-wrap" in page  # line breaks and indents of the text kept
    assert "var(--body-text-color" in page  # the theme's colours: dark mode too
    assert "<th" in page and "What it wrote" in page


def test_headers_in_chinese_and_a_loss_that_is_not_a_number():
    page = timeline_html([SampleRow(7, math.nan, "x")], "zh-CN")
    assert "步数" in page and "验证损失" in page and ">nan</td>" in page
