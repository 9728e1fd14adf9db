"""What serves the page, apart from the page itself (``playground.ui``): the request guard in
front of Gradio (``guard``), and the sessions the server holds: coming back after a reload,
eviction when full, the sweep and the SIGTERM save (``reattach``). What they need of Gradio
beyond its public API is in ``gradio_internals``, the one module that touches its private
parts, which refuses at launch a Gradio it was not made for. Like ``playground.ui``, this
package imports Gradio; the core does not.
"""
