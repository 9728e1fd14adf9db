"""The suite's command line: run the sections, print the table, write the JSON.

>>> args = parse_args(["--quick", "--only", "bpe", "--only", "generate"])
>>> args.quick, args.only
(True, ['bpe', 'generate'])
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

# set before datasets, tokenizers and gradio are imported: they read these once
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from bench import (hostile, inference, inside, load, page, process, speedrun, tasks,  # noqa: E402
                   training)
from bench.core import Context, Row, format_table, machine_info, write_json  # noqa: E402

SECTIONS = {
    "train": training.throughput,
    "app-path": training.app_overhead,
    "presets": speedrun.presets,
    "estimates": speedrun.estimates,
    "ablations": speedrun.ablations,
    "scaling": speedrun.scaling,
    "gpu": speedrun.gpu,
    "generate": inference.generation,
    "bpe": inference.bpe,
    "inside": inside.views,
    "tasks": tasks.tasks,
    "app": process.cold_start,
    "memory": process.peak_memory,
    "load": load.classroom,
    "page": page.page_vs_cli,
    "hostile": hostile.replay,
}
DEFAULT_OUT = Path(__file__).resolve().parent / "results.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and few repeats: checks that every section runs (CI)")
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS), metavar="SECTION",
                        help=f"run only this section (repeatable): {', '.join(SECTIONS)}")
    parser.add_argument("--out", type=Path, default=None,
                        help="where the JSON goes (default bench/results.json)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    return parser.parse_args(argv)


def run(sections: list[str], quick: bool) -> tuple[dict, list[Row]]:
    """Run the named sections in order; a section that fails becomes a row saying so."""
    ctx = Context(quick=quick)
    meta = {**machine_info(), "quick": quick, "sections": sections,
            "command": "python -m bench " + " ".join(sys.argv[1:])}
    rows: list[Row] = []
    for name in sections:
        start = time.perf_counter()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(SECTIONS[name](ctx))
        except Exception as error:  # one broken section must not hide the others' figures
            traceback.print_exc()
            rows.append(Row(name, "section failed", None, note=f"{type(error).__name__}: {error}"[:160]))
        print(f"[bench] {name} done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return meta, rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sections = args.only or list(SECTIONS)
    start = time.perf_counter()
    meta, rows = run(sections, args.quick)
    meta["seconds"] = round(time.perf_counter() - start, 1)
    out = args.out or DEFAULT_OUT
    write_json(out, meta, rows)
    print(f"{meta['date']} | {meta['cpu']}, {meta['cpu_kind']} ({' '.join(meta['cpu_flags'])}) | "
          f"{meta['cpu_count']} CPUs, {meta['torch_threads']} torch threads | torch {meta['torch']} "
          f"| bf16 autocast fast: {meta['bf16_autocast_fast']}, Newton-Schulz in "
          f"{meta['newton_schulz_128x256']} | load average at start {meta['load_average_at_start']}")
    print(format_table(rows, markdown=args.markdown))
    print(f"\n{len(rows)} figures in {meta['seconds']:.0f} s; JSON written to {out}")
    return 0
