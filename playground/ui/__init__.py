"""The Gradio app: a thin shell over the core, one module per tab.

``playground.ui.app.build_demo()`` builds the page; ``session`` holds each visitor's state;
``zerogpu`` adapts training to Hugging Face ZeroGPU Spaces. Only this package imports Gradio.
"""
