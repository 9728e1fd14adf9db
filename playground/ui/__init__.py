"""The Gradio app: a thin shell over the core, one module per tab.

``playground.ui.app.build_demo()`` builds the page; ``session`` holds each visitor's state;
``playground.runtime.zerogpu`` adapts training to Hugging Face ZeroGPU Spaces; what serves the
page (the request guard, sessions and coming back, eviction, SIGTERM) is ``playground.server``.
Only this package and ``playground.server`` import Gradio. What the page says is in
``playground.i18n``: its labels by id in ``labels.py``, its messages' Chinese in ``zh_cn.py``.
"""
