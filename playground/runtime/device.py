"""Where the model runs and in which number format: device and dtype choice.

"auto" picks CUDA, then Apple's MPS, then the CPU. The number format follows the hardware:
bfloat16 on GPUs that support it, float32 on MPS, and on the CPU bfloat16 only when a
quick measurement shows this CPU is clearly faster at it (AMX does that; most CPUs
without it are slower in bfloat16 than in float32). Nothing is assumed from a CPU's name.

>>> pick_device("cpu")
device(type='cpu')
>>> pick_dtype("float32", torch.device("cpu"))
torch.float32
>>> with autocast_context(torch.device("cpu"), torch.float32):
...     pass                          # float32 needs no autocast: a plain context
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import logging
import math
import os
import statistics
import threading
import time
from pathlib import Path

import torch

from playground.config import DTYPES, ConfigError
from playground.i18n import Message, msg
from playground.runtime import compute

DTYPE_BY_NAME = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

# bfloat16 must beat float32 by this factor on the probe before "auto" uses it on a CPU:
# a marginal win is not worth the lost precision, and the timing is noisy on shared cores.
BF16_SPEEDUP_REQUIRED = 1.3


class DeviceError(ConfigError):
    """A device or number format that this machine cannot provide, said plainly."""


def pick_device(pref: str = "auto") -> torch.device:
    """The device to run on: "auto" (CUDA, then MPS, then CPU) or the one asked for.

    A device that is asked for but not present is an error, not a silent fallback, so a
    user who wanted the GPU learns that they are not getting it.

    >>> pick_device("cpu")
    device(type='cpu')
    >>> pick_device("tpu")
    Traceback (most recent call last):
    ...
    playground.runtime.device.DeviceError: Unknown device 'tpu'. Choose auto, cpu, cuda or mps.
    """
    pref = str(pref or "auto").strip().lower()
    if pref == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        device = torch.device(pref)
    except RuntimeError:
        raise DeviceError(msg("Unknown device {device}. Choose auto, cpu, cuda or mps.",
                              device=repr(pref))) from None
    if device.type == "cpu":
        return device
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(msg("CUDA was asked for, but this machine has no usable NVIDIA GPU "
                                  "(or this PyTorch build has no CUDA support). Choose device "
                                  "auto or cpu."))
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            key = ("GPU number {index} was asked for, but this machine has {count} GPU (numbered "
                   "from 0). Choose cuda or auto."
                   if count == 1 else
                   "GPU number {index} was asked for, but this machine has {count} GPUs (numbered "
                   "from 0). Choose cuda or auto.")
            raise DeviceError(msg(key, index=device.index, count=count))
        return device
    if device.type == "mps":
        if not torch.backends.mps.is_available():
            raise DeviceError(msg("Apple's MPS was asked for, but it is not available here (it "
                                  "needs a Mac with Apple silicon and a PyTorch build with MPS). "
                                  "Choose device auto or cpu."))
        return device
    raise DeviceError(msg("Unknown device {device}. Choose auto, cpu, cuda or mps.",
                          device=repr(pref)))


def describe_device(device: torch.device) -> Message:
    """One line for people: which device, and what matters about it.

    >>> describe_device(torch.device("cpu"))  # doctest: +SKIP
    'CPU (2 threads, bf16 fast: no)'
    """
    device = torch.device(device)
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        return msg("GPU: {name} ({memory} GiB)", name=props.name,
                   memory=f"{props.total_memory / 2**30:.0f}")
    if device.type == "mps":
        return msg("Apple GPU (MPS)")
    key = ("CPU ({threads} threads, bf16 fast: yes)"
           if cpu_bf16_is_fast() else
           "CPU ({threads} threads, bf16 fast: no)")
    return msg(key, threads=torch.get_num_threads())


# On a CPU, bfloat16 pays only for wide matmuls: measured on an AMX Xeon, a 128-wide model
# ran 42-49% slower in bfloat16 and a 384-wide one 2.3x faster (shared/notes/perf-reliability.md).
CPU_BF16_MIN_WIDTH = 256


def pick_dtype(pref: str, device: torch.device, n_embd: int | None = None) -> torch.dtype:
    """The number format for training and inference on ``device``.

    "auto": bfloat16 on a CUDA GPU that supports it, else float32 (float16 would need a
    gradient scaler, and float32 is always correct); float32 on MPS; on a CPU bfloat16
    only for models at least ``CPU_BF16_MIN_WIDTH`` wide (when ``n_embd`` is given) and
    where ``cpu_bf16_is_fast()`` measured it clearly faster.

    >>> pick_dtype("bfloat16", torch.device("cpu"))
    torch.bfloat16
    """
    device = torch.device(device)
    if pref not in DTYPES:
        raise DeviceError(msg("{name} must be one of {choices}; got {value}.",
                              name="dtype", choices=", ".join(DTYPES),
                              value=repr(pref)))
    if pref != "auto":
        dtype = DTYPE_BY_NAME[pref]
        if device.type == "cuda" and dtype == torch.bfloat16 and not torch.cuda.is_bf16_supported():
            raise DeviceError(msg("This GPU cannot compute in bfloat16. Choose dtype auto or "
                                  "float32."))
        return dtype
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    wide = n_embd is None or n_embd >= CPU_BF16_MIN_WIDTH
    if device.type == "cpu" and wide and cpu_bf16_is_fast():
        return torch.bfloat16
    return torch.float32


def autocast_context(device: torch.device, dtype: torch.dtype):
    """A mixed-precision context for the forward pass and the loss (weights stay float32).

    >>> ctx = autocast_context(torch.device("cpu"), torch.bfloat16)
    >>> with ctx:
    ...     (torch.ones(2, 2) @ torch.ones(2, 2)).dtype
    torch.bfloat16
    """
    device = torch.device(device)
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def setup_backends(device: torch.device) -> None:
    """Fast defaults for ``device``: on CUDA, float32 matmuls through TF32 tensor cores.

    Only the CUDA switches are touched. ``torch.set_float32_matmul_precision`` would also
    change CPU (oneDNN) matmuls, and the CPU path must stay exact float32.
    """
    if torch.device(device).type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True


def cpu_has_amx(cpuinfo: str | Path = "/proc/cpuinfo") -> bool:
    """Whether the CPU reports Intel AMX for bfloat16 (Linux only; False elsewhere).

    Information for people only: the dtype choice trusts ``cpu_bf16_is_fast()``, a
    measurement, never this flag.
    """
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            return "amx_bf16" in line.split(":", 1)[-1].split()
    return False


def _median_matmul_seconds(
    n: int, dtype: torch.dtype, reps: int, device: torch.device = torch.device("cpu")
) -> float:
    """Median wall time of one (n, n) @ (n, n) matmul in ``dtype`` after one warm-up."""
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    return statistics.median(matmul_times(a, b, reps, device))


def matmul_times(a: torch.Tensor, b: torch.Tensor, reps: int, device: torch.device) -> list[float]:
    """Wall seconds of ``reps`` runs of ``a @ b``, after one untimed run."""
    timed_seconds(lambda: a @ b, device)  # the first run pays for allocation and kernel selection
    return [timed_seconds(lambda: a @ b, device) for _ in range(reps)]


def timed_seconds(work, device: torch.device) -> float:
    """Wall seconds of one call of ``work()``, the device's queue drained before and after."""
    _synchronize(device)
    start = time.perf_counter()
    work()
    _synchronize(device)
    return time.perf_counter() - start


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


@functools.lru_cache(maxsize=1)
@compute.routed
def cpu_bf16_is_fast(n: int = 512, reps: int = 5) -> bool:
    """Measure once per process whether a bfloat16 matmul beats float32 clearly here.

    About 0.1 s on most CPUs. True on CPUs with AMX; False on most others, where bfloat16
    matmuls are emulated and slower than float32.
    """
    # alternate the two and keep each one's best time, so load from other processes in one
    # stretch of the probe cannot make the slower format look faster
    rounds = [(_median_matmul_seconds(n, torch.bfloat16, reps),
               _median_matmul_seconds(n, torch.float32, reps)) for _ in range(3)]
    bf16, fp32 = min(b for b, _ in rounds), min(f for _, f in rounds)
    return bf16 * BF16_SPEEDUP_REQUIRED < fp32


def peak_flops(
    device: torch.device, dtype: torch.dtype = torch.float32, n: int | None = None, reps: int = 5
) -> float:
    """The matmul throughput this machine reaches, in FLOP/s: the denominator of MFU.

    Median over ``reps`` square matmuls of size ``n`` (2048 on a CPU, 8192 on a GPU);
    one matmul costs 2·n³ floating-point operations.

    >>> peak_flops(torch.device("cpu"), n=256, reps=2) > 0
    True
    """
    device = torch.device(device)
    if n is None:
        n = 2048 if device.type == "cpu" else 8192
    return 2 * n**3 / _median_matmul_seconds(n, dtype, reps, device)


CGROUP_ROOT = Path("/sys/fs/cgroup")  # where a container's limits are mounted
MEMINFO = Path("/proc/meminfo")
# cgroup v2 files, then v1's, relative to CGROUP_ROOT: (limit, usage, stat, reclaimable field)
_MEMORY_FILES = (("memory.max", "memory.current", "memory.stat", "inactive_file"),
                 ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes",
                  "memory/memory.stat", "total_inactive_file"))
_NO_LIMIT = 2**60  # v1 writes "no limit" as a number near 2**63


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _stat_field(text: str | None, name: str) -> int:
    for line in (text or "").splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


PROC_CGROUP = Path("/proc/self/cgroup")


def own_cgroups(proc_cgroup: Path = PROC_CGROUP) -> dict[str, str]:
    r"""This process's cgroup paths: "" (cgroup v2) or "memory" (v1) -> its path there.

    >>> import tempfile; f = Path(tempfile.mkdtemp()) / "cgroup"
    >>> _ = f.write_text("4:memory:/jobs/a\n1:cpu,cpuacct:/\n0::/\n")
    >>> own_cgroups(f)
    {'memory': '/jobs/a', 'cpu': '/', 'cpuacct': '/', '': '/'}
    """
    found = {}
    for line in (_read(proc_cgroup) or "").splitlines():
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        for name in controllers.split(","):
            found.setdefault(name, path)
    return found


def container_memory_free(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int | None:
    """Bytes this container may still take before it is killed: its cgroup's limit minus
    what it uses (page cache it can drop not counted); None when it has no limit.

    A container's ``/proc/meminfo`` shows the host's memory, so only this says how close a
    process in a 16 GB Space is to being killed. The process's own cgroup is read where the
    mount shows it (``/proc/self/cgroup``: a process put in a cgroup below the container's, as
    a job runner or the hostile bench does), else the mount's root (a container's namespace
    shows its own cgroup as the root).
    """
    own = own_cgroups(proc_cgroup)
    for limit_file, usage_file, stat_file, reclaimable in _MEMORY_FILES:
        v1 = limit_file.startswith("memory/")
        top = root / "memory" if v1 else root
        parts = [p for p in ((own.get("memory") if v1 else own.get("")) or "/").split("/") if p]
        frees, found = [], False
        for depth in range(len(parts), -1, -1):  # its own cgroup, then each one above it
            base = top.joinpath(*parts[:depth])
            limit = _read(base / limit_file.removeprefix("memory/"))
            usage = _read(base / usage_file.removeprefix("memory/"))
            if limit is None or usage is None:
                continue
            found = True
            if not (limit.isdigit() and usage.isdigit()) or int(limit) >= _NO_LIMIT:
                continue  # "max" (v2) or a huge number (v1): no limit at this level
            stat = _read(base / stat_file.removeprefix("memory/"))
            used = int(usage) - _stat_field(stat, reclaimable)
            frees.append(max(0, int(limit) - max(0, used)))
        if found:
            return min(frees) if frees else None
    return None


def host_memory_available(meminfo: Path = MEMINFO) -> int | None:
    """The machine's available RAM in bytes (``MemAvailable``), or None if unknown."""
    for line in (_read(meminfo) or "").splitlines():
        if line.startswith("MemAvailable:"):
            parts = line.split()
            return int(parts[1]) * 1024 if len(parts) > 1 and parts[1].isdigit() else None
    return None


def available_memory(device: torch.device, *, root: Path = CGROUP_ROOT,
                     meminfo: Path = MEMINFO) -> int | None:
    """Free bytes on ``device``: GPU memory, or the lesser of the machine's available RAM and
    what the container's memory limit leaves; None if unknown."""
    if device.type == "cuda":
        try:
            return int(torch.cuda.mem_get_info(device)[0])
        except RuntimeError:
            return None
    known = [v for v in (host_memory_available(meminfo), container_memory_free(root)) if v is not None]
    return min(known) if known else None


def return_free_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``), after a
    session's model and run are freed: glibc keeps freed blocks for reuse, in one arena per
    thread that allocated them, so without this a server's resident memory stays near its
    peak after a class has gone. Returns whether anything was given back; False where the C
    library has no ``malloc_trim`` (musl, macOS, Windows)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return False
    return bool(trim(0))


# A burst of frees (a class closing its tabs) is reclaimed once, after it ends: a full garbage
# collection holds the interpreter for as long as it takes (0.2 s for the app alone, seconds
# in a process with millions of objects), and one per freed session, back to back, stalled
# the server's other requests past a client's 5 s timeout.
RECLAIM_QUIET_S = 2.0  # reclaim once no free came for this long ...
RECLAIM_MAX_WAIT_S = 15.0  # ... or at the latest this long after the first free of a burst


def collect_and_trim() -> None:
    gc.collect()  # (a model's tensors may sit in reference cycles)
    return_free_memory()


class Reclaimer:
    """Gives freed memory back to the system in one go after a burst of frees: ``soon()``
    asks for it, and one background thread collects garbage and trims the C heap once the
    requests stop for ``quiet_s`` (or ``max_wait_s`` after the first, under steady churn).
    ``runs`` counts the reclaims done; ``busy()`` says whether one is asked for or under way."""

    def __init__(self, quiet_s: float = RECLAIM_QUIET_S, max_wait_s: float = RECLAIM_MAX_WAIT_S,
                 reclaim=collect_and_trim):
        self.quiet_s, self.max_wait_s, self._reclaim = quiet_s, max_wait_s, reclaim
        self._lock = threading.Lock()
        self._first: float | None = None
        self._last = 0.0
        self._thread: threading.Thread | None = None
        self.runs = 0

    def soon(self) -> None:
        with self._lock:
            now = time.monotonic()
            if self._first is None:
                self._first = now
            self._last = now
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="reclaim-memory",
                                                daemon=True)
                self._thread.start()

    def busy(self) -> bool:
        with self._lock:
            return self._thread is not None

    def _serve(self) -> None:
        while True:
            with self._lock:
                if self._first is None:  # nothing asked since the last reclaim: done
                    self._thread = None
                    return
                wait = min(self._last + self.quiet_s, self._first + self.max_wait_s) - time.monotonic()
                if wait <= 0:
                    self._first = None
            if wait > 0:
                time.sleep(wait)
                continue
            try:
                self._reclaim()
            except Exception:  # never the end of this thread: the next burst is served too
                logging.getLogger(__name__).warning("reclaiming freed memory failed", exc_info=True)
            self.runs += 1


RECLAIMER = Reclaimer()


def cpu_limit(root: Path = CGROUP_ROOT) -> int:
    """How many CPUs this process may use: the CPUs it may run on, capped by the container's
    CPU quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``)."""
    try:
        visible = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        visible = os.cpu_count() or 1
    quota = period = None
    v2 = (_read(root / "cpu.max") or "").split()
    if len(v2) == 2 and v2[0].isdigit() and v2[1].isdigit():
        quota, period = int(v2[0]), int(v2[1])
    else:
        q, p = _read(root / "cpu/cpu.cfs_quota_us"), _read(root / "cpu/cpu.cfs_period_us")
        if q and p and q.isdigit() and p.isdigit():  # -1 (no quota) is not all digits
            quota, period = int(q), int(p)
    if quota and period:
        visible = min(visible, math.ceil(quota / period))
    return max(1, visible)
