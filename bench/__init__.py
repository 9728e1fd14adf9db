"""The benchmark suite: ``python -m bench`` (or ``make bench``) measures and prints a table.

Sections (``--only NAME``): train, app-path, presets, ablations, scaling, gpu, generate, bpe,
app, memory. Every comparison runs side by side in the same process; see docs/PERFORMANCE.md
for the figures and how to read them.
"""
