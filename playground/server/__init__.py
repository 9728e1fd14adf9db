"""What serves the page, apart from the page itself (``playground.ui``): the request guard in
front of Gradio (``guard``), and the sessions the server holds: coming back after a reload,
eviction when full, the sweep and the SIGTERM save (``reattach``). Like ``playground.ui``, it
imports Gradio; the core does not.
"""
