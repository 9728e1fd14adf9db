"""The one module that touches Gradio's private parts: at launch it lets the installed Gradio
through, and refuses, naming the versions that work, a version outside its range or a Gradio
that lacks a part it needs. The parts themselves are exercised by the server's own tests
(test_sessions_return.py, test_hostile_app.py) on the Gradio installed."""

import re
import types

import gradio as gr
import pytest
from packaging.requirements import Requirement

from playground.server import gradio_internals
from playground.server.gradio_internals import UnsupportedGradio, check_gradio
from playground.ui.app import build_demo, launch

from checks import REPO


def small_demo() -> gr.Blocks:
    with gr.Blocks() as demo:
        text = gr.Textbox()
        text.submit(str.upper, text, text)
    return demo


def requirement(file: str) -> Requirement:
    lines = (REPO / file).read_text(encoding="utf-8").splitlines()
    return next(Requirement(line) for line in lines if re.match(r"gradio\s*[=<>]", line))


def test_the_range_is_requirements_txts_and_the_tested_version_is_the_pinned_one():
    assert requirement("requirements.txt") == Requirement(gradio_internals.REQUIREMENT)
    pinned = requirement("requirements-dev.txt")
    assert str(pinned.specifier) == f"=={gradio_internals.TESTED_WITH}"
    assert gradio_internals.version_problem(gradio_internals.TESTED_WITH) is None


def test_the_installed_gradio_passes_with_the_page_it_serves():
    demo = build_demo()
    assert gradio_internals.version_problem(gr.__version__) is None
    assert gradio_internals.missing_internals(demo) == []
    check_gradio(demo)  # nothing raised


@pytest.mark.parametrize("version", ["5.49.1", "6.19.2", "7.0.0", "7.1.0b2", "not a version"])
def test_another_version_is_refused_with_the_versions_that_work(version):
    with pytest.raises(UnsupportedGradio) as refused:
        check_gradio(small_demo(), version)
    message = str(refused.value)
    assert f"Gradio {version} is outside that range" in message
    assert "Gradio 6.20 or a later 6.x (gradio>=6.20,<7; tested with 6.31.0)" in message
    assert message.endswith('pip install "gradio>=6.20,<7".')


@pytest.mark.parametrize("version", ["6.20.0", "6.31.0", "6.40.1", "6.32.0rc1"])
def test_the_versions_in_the_range_pass(version):
    check_gradio(small_demo(), version)


@pytest.mark.parametrize("attribute", ["push", "event_queue_per_concurrency_id", "active_jobs",
                                       "pending_event_ids_session"])
def test_a_queue_without_a_part_it_needs_is_refused_by_name(attribute):
    demo = small_demo()
    parts = {name: getattr(demo._queue, name) for name in gradio_internals.NEEDED["Queue"]}
    del parts[attribute]
    demo._queue = types.SimpleNamespace(**parts)  # a Gradio whose queue has no such thing
    with pytest.raises(UnsupportedGradio, match=f"has no Queue.{attribute}[.;]") as refused:
        check_gradio(demo, gr.__version__)
    assert "gradio>=6.20,<7" in str(refused.value)
    assert gradio_internals.missing_internals(demo) == [f"Queue.{attribute}"]


def test_a_blocks_without_its_private_parts_is_refused_with_each_named():
    missing = gradio_internals.missing_internals(types.SimpleNamespace())
    assert {"Blocks._queue", "Blocks.fns", "Queue.active_jobs", "BlockFunction.concurrency_id",
            "SessionState._update_value_in_config"} <= set(missing)
    assert not any(name.startswith(("StateHolder.", "EventQueue.")) for name in missing)


def test_launch_refuses_to_start_on_a_gradio_without_the_parts():
    demo = small_demo()
    del demo._queue
    with pytest.raises(UnsupportedGradio, match=r"has no Blocks\._queue"):
        launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    assert not demo.is_running


def test_a_demo_not_launched_holds_no_sessions():
    demo = small_demo()
    assert not gradio_internals.serves_sessions(demo)
    assert gradio_internals.session_states(demo) == {} and gradio_internals.session_count(demo) == 0
    assert gradio_internals.is_closed(demo, "any") and gradio_internals.last_used(demo, "any") is None
    assert not gradio_internals.has_pending_events(demo, "any")
    assert gradio_internals.function_at(demo, 0).concurrency_id == demo.fns[0].concurrency_id
    assert gradio_internals.function_at(demo, "0") is None
    assert gradio_internals.function_named(demo, "nothing") is None
