"""The Gradio app: a thin shell over the core, one module per tab.

``playground.ui.app.build_demo()`` builds the page; ``session`` holds each visitor's state;
``playground.runtime.zerogpu`` adapts training to Hugging Face ZeroGPU Spaces; what serves the
page (the request guard, sessions and coming back, eviction, SIGTERM) is ``playground.server``.
Only this package and ``playground.server`` import Gradio.
"""

from playground.i18n import add_translations
from playground.ui.zh_cn import ZH_CN

add_translations("zh-CN", ZH_CN)  # the page's own messages; the core's are always there
