"""Write the ready-made models the package ships (``playground/data/ready/*.zip``).

    $ PYTHONPATH=. python scripts/make_ready_models.py            # all of playground.ready.SHIPPED
    $ PYTHONPATH=. python scripts/make_ready_models.py task-copy --out /tmp/ready

Each is trained from its preset by ``playground.ready.train_ready`` (fixed seed, one CPU
thread, float32 Newton-Schulz), so a rerun writes the same weights; only the bundle's
timestamps differ. tests/test_ready.py re-trains one and compares it with the shipped file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from playground.ready import READY_DIR, SHIPPED, save_ready, train_ready
from playground.train import EvalRecord


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"which to make (default: all of {', '.join(SHIPPED)})")
    parser.add_argument("--out", type=Path, default=READY_DIR, help="folder to write them to")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in SHIPPED]
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}; choose from {', '.join(SHIPPED)}")
    for name in args.names or SHIPPED:
        began = time.perf_counter()
        trained = train_ready(name)
        path = save_ready(trained, args.out / f"{name}.zip")
        last = next(r for r in reversed(trained.history) if isinstance(r, EvalRecord))
        accuracy = "" if last.accuracy is None else f", held-out accuracy {last.accuracy:.1%}"
        print(f"{path}: {path.stat().st_size / 1e6:.2f} MB, step {last.step}, val loss "
              f"{last.val_loss:.4f}{accuracy}, {time.perf_counter() - began:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
