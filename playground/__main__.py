"""``python -m playground``: see ``playground.cli``."""

from playground.cli import main

raise SystemExit(main())
