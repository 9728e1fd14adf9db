"""Entry point for `python app.py`, `gradio app.py` and Hugging Face Spaces.

Serves the Transformer Playground at http://127.0.0.1:7860 (0.0.0.0 on a Space).
"""

import os

# before anything imports tokenizers or forks (ZeroGPU runs training in a forked child)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from playground.runtime import zerogpu  # noqa: E402,F401  (imports `spaces` before torch touches CUDA)
from playground.ui.app import build_demo, launch  # noqa: E402

demo = build_demo()

if __name__ == "__main__":
    launch(demo)
