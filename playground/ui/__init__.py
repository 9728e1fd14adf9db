"""The Gradio app: a thin shell over the core, one module per tab.

``playground.ui.app.build_demo()`` builds the page; ``session`` holds each visitor's state;
``playground.runtime.zerogpu`` adapts training to Hugging Face ZeroGPU Spaces. Only this
package imports Gradio.
"""

from playground.i18n import add_translations
from playground.ui.zh_cn import ZH_CN

add_translations("zh-CN", ZH_CN)  # the page's own messages; the core's are always there
