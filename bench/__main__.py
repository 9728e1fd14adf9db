"""``python -m bench [--quick] [--only SECTION ...] [--out PATH]``."""

from bench.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
