"""A handler's outputs named once: the tuple it returns and the widgets ``build()`` wires, in
one order.

Handlers return plain tuples (what an API caller receives, and what the tests index), in the
order of the widgets their event writes to. ``Outputs`` holds that order: a handler names
each value it returns, one that leaves some outputs as they are on the page names only the
others (``only``: the rest are ``gr.skip()``, written here alone), and ``build()`` names
each widget (``widgets``).

>>> SHOWN = Outputs("view", "summary", "figure")
>>> SHOWN(view="v", summary="s", figure=None)
('v', 's', None)
>>> SHOWN.only(summary="s") == (gr.skip(), "s", gr.skip())
True
>>> SHOWN.widgets({"view": "V", "summary": "S", "lens": "L"}, figure="F")
['V', 'S', 'F']
>>> SHOWN(view="v", summary="s")
Traceback (most recent call last):
...
TypeError: no value for the output(s) figure (of view, summary, figure)
>>> SHOWN.only(sumary="s")
Traceback (most recent call last):
...
TypeError: no output named sumary (of view, summary, figure)
"""

from __future__ import annotations

from typing import Any, Mapping

import gradio as gr


class Outputs:
    """The names of a handler's outputs, in the order of its tuple and of its event's widgets."""

    def __init__(self, *names: str):
        if len(set(names)) < len(names):
            raise ValueError(f"an output is named twice in {names}")
        self.names = names

    def __len__(self) -> int:
        return len(self.names)

    def __call__(self, **values: Any) -> tuple:
        """Every output's value: the tuple, in order."""
        self._known(values)
        return tuple(self._every(values))

    def only(self, **values: Any) -> tuple:
        """The outputs named, in order; every other one left as it is on the page."""
        self._known(values)
        return tuple(values[name] if name in values else gr.skip() for name in self.names)

    def widgets(self, page: Mapping[str, Any] | None = None, /, **widgets: Any) -> list:
        """In ``build()``: every output's widget, in order, by name from ``widgets`` or else
        from ``page`` (a tab's widgets by name; those of other events are left out)."""
        self._known(widgets)
        return self._every({**(page or {}), **widgets})

    def _every(self, given: Mapping[str, Any]) -> list:
        missing = [name for name in self.names if name not in given]
        if missing:
            raise TypeError(f"no value for the output(s) {', '.join(missing)} "
                            f"(of {', '.join(self.names)})")
        return [given[name] for name in self.names]

    def _known(self, given: Mapping[str, Any]) -> None:
        unknown = [name for name in given if name not in self.names]
        if unknown:
            raise TypeError(f"no output named {', '.join(unknown)} (of {', '.join(self.names)})")
