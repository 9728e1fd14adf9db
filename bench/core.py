"""What every benchmark section shares: timing, the FLOP count, rows, the table and the JSON.

A section is a function ``run(ctx) -> list[Row]``. A ``Row`` is one figure with its unit, the
target it is held to (if any) and a note; the same rows become the printed table and the
JSON file, so the two never disagree.

>>> rows = [Row("train", "ms/step (ours)", 41.234, "ms", target="<= nanoGPT"),
...         Row("train", "ours / nanoGPT", 0.93, "x", note="same run")]
>>> print(format_table(rows))
section | metric         |  value | unit | target     | note
------- | -------------- | ------ | ---- | ---------- | --------
train   | ms/step (ours) |   41.2 | ms   | <= nanoGPT |
train   | ours / nanoGPT | 0.9300 | x    |            | same run
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

REPO_ROOT = Path(__file__).resolve().parents[1]
TEXT_PATH = REPO_ROOT / "playground" / "data" / "tinyshakespeare.txt"


@dataclass(frozen=True)
class Row:
    """One measured figure."""

    section: str
    metric: str
    value: float | int | str | bool | None  # None: not measured (the note says why)
    unit: str = ""
    target: str = ""  # what it is held to, in words: "<= 45 s", ">= 5x"
    note: str = ""
    met: bool | None = None  # whether the target was met; None when there is no target

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Context:
    """What every section gets: the mode, the data once loaded, and the peak FLOP/s cache."""

    quick: bool = False
    text: str | None = None
    # figures one section leaves for a later one (e.g. nanoGPT's ms/step for a derived time)
    shared: dict[str, float] = field(default_factory=dict)
    _peaks: dict[str, float] = field(default_factory=dict)

    def shakespeare(self) -> str:
        if self.text is None:
            self.text = TEXT_PATH.read_text(encoding="utf-8")
            if self.quick:  # a smoke run needs only enough text for a few windows
                self.text = self.text[:60_000]
        return self.text

    def peak(self, dtype: torch.dtype, device: torch.device = torch.device("cpu")) -> float:
        """This machine's matmul FLOP/s in ``dtype``, measured once per run (best of 3 probes)."""
        from playground.runtime.device import peak_flops

        key = f"{device}/{dtype}"
        if key not in self._peaks:
            n = 256 if self.quick else None
            self._peaks[key] = max(peak_flops(device, dtype, n=n) for _ in range(3))
        return self._peaks[key]


def median(values: list[float]) -> float:
    """The middle value (mean of the two middle ones for an even count).

    >>> median([3.0, 1.0, 2.0]), median([4.0, 1.0, 2.0, 3.0])
    (2.0, 2.5)
    """
    return statistics.median(values)


def time_call(fn: Callable[[], Any], repeats: int, warmup: int = 1) -> list[float]:
    """Wall seconds of ``repeats`` calls of ``fn`` after ``warmup`` untimed ones.

    >>> len(time_call(lambda: None, repeats=3))
    3
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def flops_per_token(n_layer: int, n_head: int, head_size: int, block_size: int,
                    non_embedding_params: int) -> float:
    """Training FLOPs per token, PaLM appendix B: 6N + 12 * L * H * Q * T.

    6N covers the forward (2N) and backward (4N) matmuls with the weights; the second term is
    attention's QK^T and AV products, which have no weights. nanoGPT's ``estimate_mfu`` uses
    the same formula, so figures compare.

    >>> flops_per_token(4, 4, 32, 64, non_embedding_params=795_904)
    5168640
    """
    return 6 * non_embedding_params + 12 * n_layer * n_head * head_size * block_size


def check(value: float | None, target: float, higher_is_better: bool) -> bool | None:
    """Whether ``value`` meets ``target``; None when there is no value.

    >>> check(40.0, 45.0, higher_is_better=False), check(4.0, 5.0, True), check(None, 1, True)
    (True, False, None)
    """
    if value is None:
        return None
    return value >= target if higher_is_better else value <= target


def _format_value(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        magnitude = abs(value)
        if magnitude >= 1e6:
            return f"{value:.3g}"
        if magnitude >= 100:
            return f"{value:,.0f}"
        if magnitude >= 10:
            return f"{value:.1f}"
        if magnitude >= 1:
            return f"{value:.2f}"
        return f"{value:.4f}"
    return str(value)


def format_table(rows: list[Row], markdown: bool = False) -> str:
    """The rows as an aligned text table (or a Markdown table with ``markdown=True``)."""
    header = ["section", "metric", "value", "unit", "target", "note"]
    body = []
    for r in rows:
        target = r.target + ("" if r.met is None else (" ✓" if r.met else " ✗"))
        body.append([r.section, r.metric, _format_value(r.value), r.unit, target, r.note])
    widths = [max(len(line[i]) for line in [header] + body) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = [c.rjust(w) if i == 2 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        text = " | ".join(parts)
        return f"| {text} |" if markdown else text.rstrip()

    rule = ["-" * w for w in widths]
    if markdown:
        rule[2] = rule[2][:-1] + ":"  # right-align the value column
    return "\n".join([line(header), line(rule)] + [line(cells) for cells in body])


def machine_info() -> dict[str, Any]:
    """Date, CPU model, core and thread counts, torch version: the header of every report."""
    cpu = platform.processor() or platform.machine()
    flags: list[str] = []
    try:
        for text_line in Path("/proc/cpuinfo").read_text().splitlines():
            if text_line.startswith("model name") and cpu == (platform.processor() or platform.machine()):
                cpu = text_line.split(":", 1)[1].strip()
            elif text_line.startswith("flags") and not flags:
                # the ones that decide fp32 vs bf16 speed on a CPU
                wanted = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile")
                flags = [f for f in text_line.split(":", 1)[1].split() if f in wanted]
    except OSError:
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    from playground.optim import newton_schulz_dtype
    from playground.runtime.device import cpu_bf16_is_fast, cpu_has_amx

    capability = torch.backends.cpu.get_cpu_capability()
    info = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "amx_bf16": cpu_has_amx(),
        "cpu_flags": flags,
        # the kind of CPU the figures hold for: its flags, and the kernels PyTorch uses on it
        # (ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA can hold a CPU to fewer than it has)
        "cpu_kind": cpu_kind(flags, capability),
        "torch_cpu_capability": capability,
        "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA"),
        # the formats this process's probes picked
        "bf16_autocast_fast": cpu_bf16_is_fast(),
        "newton_schulz_128x256": str(newton_schulz_dtype("cpu", 128, 256)).removeprefix("torch."),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "load_average_at_start": load,
    }
    return info


def cpu_kind(flags: list[str], capability: str) -> str:
    """A name for the kind of CPU: what decides bf16's speed here.

    >>> cpu_kind(["avx2", "avx512f", "avx512_bf16"], "AVX512"), cpu_kind(["avx2"], "AVX2")
    ('AVX512-BF16', 'AVX2 only')
    >>> cpu_kind(["avx2", "avx512f", "avx512_bf16"], "AVX2")   # held to AVX2 by the environment
    'AVX2 only (limited by ATEN_CPU_CAPABILITY)'
    """
    if "amx_bf16" in flags:
        kind = "AMX"
    elif "avx512_bf16" in flags:
        kind = "AVX512-BF16"
    elif "avx512f" in flags:
        kind = "AVX512"
    else:
        kind = "AVX2 only" if "avx2" in flags else "no AVX2"
    if capability == "AVX2" and kind not in ("AVX2 only", "no AVX2"):
        return "AVX2 only (limited by ATEN_CPU_CAPABILITY)"
    return kind


def write_json(path: Path, meta: dict[str, Any], rows: list[Row]) -> Path:
    """Meta and rows as one JSON file, grouped by section for readers and as a flat list."""
    sections: dict[str, dict[str, Any]] = {}
    for r in rows:
        sections.setdefault(r.section, {})[r.metric] = r.value
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "sections": sections, "rows": [r.to_dict() for r in rows]}
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    return path
