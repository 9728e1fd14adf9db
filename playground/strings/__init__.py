"""Messages written on the server, in English and Simplified Chinese, one module per area.

Each module holds ``EN`` and ``ZH_CN``: {message id: text} with ``{name}`` placeholders, as
``playground.i18n`` explains. ``playground.i18n`` merges them into its catalogue and refuses
an id defined twice; its tests check that both languages have the same ids and placeholders.
"""

from playground.strings import data, engine, page

SERVER_CATALOGUES = (engine, data, page)
