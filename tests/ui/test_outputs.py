"""``ui.outputs.Outputs``: a handler's tuple and its event's widgets in one order, every name
checked (the doctest shows the values; these the refusals)."""

import gradio as gr
import pytest

from playground.ui.outputs import Outputs

SHOWN = Outputs("view", "summary", "figure")


def test_only_leaves_the_rest_unchanged_each_its_own_skip():
    out = SHOWN.only(figure=None)
    assert out == (gr.skip(), gr.skip(), None) and out[0] is not out[1]
    assert SHOWN.only() == (gr.skip(),) * len(SHOWN)


@pytest.mark.parametrize("call", [lambda: SHOWN(view=1, summary=2, figure=3, lens=4),
                                  lambda: SHOWN.only(lens=4),
                                  lambda: SHOWN.widgets(view=1, summary=2, figure=3, lens=4)])
def test_an_unknown_name_is_refused_by_name(call):
    with pytest.raises(TypeError, match="no output named lens"):
        call()


def test_widgets_takes_every_name_from_the_arguments_or_the_page():
    page = {"view": "V", "summary": "S", "lens": "L"}  # (lens: another event's widget)
    assert SHOWN.widgets(page, figure="F") == ["V", "S", "F"]
    assert SHOWN.widgets(page, summary="s", figure="F") == ["V", "s", "F"]
    with pytest.raises(TypeError, match="no value for the output.s. figure"):
        SHOWN.widgets(page)


def test_a_name_given_twice_is_refused():
    with pytest.raises(ValueError, match="named twice"):
        Outputs("view", "view")
