"""Transformer Playground: build, train and look inside a small Transformer.

The core engine (everything here except ``playground.ui``, the page, and ``playground.server``,
what serves it) imports no Gradio, so the CLI, the tests and the app all drive the same code.
"""

__version__ = "0.1.0"
