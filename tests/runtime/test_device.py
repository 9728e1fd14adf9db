"""Device and dtype choice: what "auto" picks, and clear errors for what is not there."""

import contextlib
import re
import subprocess
import sys
import time

import pytest
import torch

from playground.runtime import device as dev
from playground.config import ConfigError
from playground.i18n import localize
from playground.runtime.device import (
    DeviceError,
    Reclaimer,
    autocast_context,
    cpu_has_amx,
    describe_device,
    pick_device,
    pick_dtype,
    setup_backends,
)

from checks import CJK, assert_translated

CPU = torch.device("cpu")
CUDA = torch.device("cuda")


@pytest.fixture
def no_accelerators(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


def test_auto_prefers_cuda_then_mps_then_cpu(monkeypatch, no_accelerators):
    assert pick_device("auto") == CPU
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device("auto") == torch.device("mps")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device("auto") == CUDA
    assert pick_device(None) == CUDA


@pytest.mark.parametrize("pref", ["cpu", "CPU", " cpu "])
def test_cpu_is_always_there(pref):
    assert pick_device(pref) == CPU


@pytest.mark.parametrize("pref, message", [
    ("cuda", r"CUDA was asked for, but this machine has no usable NVIDIA GPU.*Choose device auto or cpu"),
    ("cuda:0", r"CUDA was asked for"),
    ("mps", r"Apple's MPS was asked for, but it is not available here"),
    ("tpu", r"Unknown device 'tpu'\. Choose auto, cpu, cuda or mps\."),
    ("meta", r"Unknown device 'meta'"),
])
def test_a_device_that_is_not_there_is_an_error(no_accelerators, pref, message):
    with pytest.raises(DeviceError, match=message):
        pick_device(pref)


def test_gpu_number_beyond_the_count(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert pick_device("cuda:0") == torch.device("cuda", 0)
    with pytest.raises(DeviceError, match=r"GPU number 2 was asked for, but this machine has 1 GPU "):
        pick_device("cuda:2")


def test_device_error_is_a_config_error():
    """Callers that show ConfigError messages in the page show these too."""
    assert issubclass(DeviceError, ConfigError) and issubclass(DeviceError, ValueError)


@pytest.mark.parametrize("name, dtype", [("float32", torch.float32), ("bfloat16", torch.bfloat16),
                                         ("float16", torch.float16)])
def test_explicit_dtype_is_kept(name, dtype):
    assert pick_dtype(name, CPU) == dtype


def test_unknown_dtype_is_an_error():
    with pytest.raises(DeviceError, match=r"dtype must be one of auto, float32, bfloat16, float16; got 'fp8'"):
        pick_dtype("fp8", CPU)


@pytest.mark.parametrize("fast", [True, False])
def test_auto_dtype_on_cpu_follows_the_measurement(monkeypatch, fast):
    monkeypatch.setattr(dev, "cpu_bf16_is_fast", lambda: fast)
    assert pick_dtype("auto", CPU) == (torch.bfloat16 if fast else torch.float32)


@pytest.mark.parametrize("bf16, expected", [(True, torch.bfloat16), (False, torch.float32)])
def test_auto_dtype_on_cuda(monkeypatch, bf16, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)
    assert pick_dtype("auto", CUDA) == expected


def test_bfloat16_on_a_gpu_without_it_is_an_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    with pytest.raises(DeviceError, match=r"This GPU cannot compute in bfloat16"):
        pick_dtype("bfloat16", CUDA)


def test_auto_dtype_on_mps_is_float32():
    assert pick_dtype("auto", torch.device("mps")) == torch.float32


@pytest.mark.parametrize("bf16_s, fp32_s, fast", [(1.0, 2.0, True), (1.0, 1.2, False), (2.0, 1.0, False)])
def test_bf16_probe_needs_a_clear_win(monkeypatch, bf16_s, fp32_s, fast):
    seconds = {torch.bfloat16: bf16_s, torch.float32: fp32_s}
    monkeypatch.setattr(dev, "_median_matmul_seconds", lambda n, dtype, reps, *a: seconds[dtype])
    dev.cpu_bf16_is_fast.cache_clear()
    try:
        assert dev.cpu_bf16_is_fast() is fast
    finally:
        dev.cpu_bf16_is_fast.cache_clear()  # the next caller measures this machine for real


def test_bf16_probe_measures_once():
    first = dev.cpu_bf16_is_fast()
    assert isinstance(first, bool)
    assert dev.cpu_bf16_is_fast() is first
    assert dev.cpu_bf16_is_fast.cache_info().hits >= 1


def test_autocast_context():
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    assert isinstance(autocast_context(CPU, torch.float32), contextlib.nullcontext)
    with autocast_context(CPU, torch.float32):
        assert (a @ b).dtype == torch.float32
    with autocast_context(CPU, torch.bfloat16):
        assert (a @ b).dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")


def test_describe_cpu():
    text = describe_device(CPU)
    match = re.fullmatch(r"CPU \((\d+) threads, bf16 fast: (yes|no)\)", text)
    assert match, text
    assert int(match.group(1)) == torch.get_num_threads()
    assert (match.group(2) == "yes") == dev.cpu_bf16_is_fast()


def test_describe_gpu(monkeypatch):
    class Props:
        name, total_memory = "NVIDIA H100 80GB HBM3", 80 * 2**30

    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: Props)
    assert describe_device(CUDA) == "GPU: NVIDIA H100 80GB HBM3 (80 GiB)"
    assert describe_device(torch.device("mps")) == "Apple GPU (MPS)"


def test_setup_backends_touches_only_cuda():
    before = (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
    setup_backends(CPU)
    assert (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()) == before


@pytest.mark.parametrize("flags, expected", [
    ("fpu sse avx512f avx512_bf16 amx_bf16 amx_tile amx_int8", True),
    ("fpu sse avx2 avx512f avx512_bf16", False),
])
def test_cpu_has_amx_reads_the_flags(tmp_path, flags, expected):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n\n")
    assert cpu_has_amx(cpuinfo) is expected
    assert cpu_has_amx(tmp_path / "missing") is False


def test_peak_flops_is_a_positive_rate():
    flops = dev.peak_flops(CPU, torch.float32, n=128, reps=2)
    assert 0 < flops < float("inf")


def test_core_imports_no_gradio():
    """device and checkpoint are core modules: the CLI and notebooks use them without a web stack."""
    code = "import sys, playground.runtime.device, playground.checkpoint; print('gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------------------------
# What the page shows in Chinese (the English above stays what the CLI prints)



def _one_gpu(monkeypatch, count=1, bf16=True):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)


@pytest.mark.parametrize("call, english, kept", [
    (lambda mp: pick_device("tpu"), "Unknown device 'tpu'. Choose auto, cpu, cuda or mps.",
     ["'tpu'", "auto", "mps"]),
    (lambda mp: pick_device("cuda"),
     "CUDA was asked for, but this machine has no usable NVIDIA GPU (or this PyTorch build has "
     "no CUDA support). Choose device auto or cpu.", ["CUDA", "auto", "cpu"]),
    (lambda mp: pick_device("mps"),
     "Apple's MPS was asked for, but it is not available here (it needs a Mac with Apple "
     "silicon and a PyTorch build with MPS). Choose device auto or cpu.", ["MPS", "cpu"]),
    (lambda mp: (_one_gpu(mp), pick_device("cuda:2")),
     "GPU number 2 was asked for, but this machine has 1 GPU (numbered from 0). Choose cuda or "
     "auto.", ["2", "1", "0", "cuda"]),
    (lambda mp: (_one_gpu(mp, count=3), pick_device("cuda:5")),
     "GPU number 5 was asked for, but this machine has 3 GPUs (numbered from 0). Choose cuda or "
     "auto.", ["5", "3"]),
    (lambda mp: pick_dtype("fp8", CPU),
     "dtype must be one of auto, float32, bfloat16, float16; got 'fp8'.", ["dtype", "'fp8'"]),
    (lambda mp: (_one_gpu(mp, bf16=False), pick_dtype("bfloat16", CUDA)),
     "This GPU cannot compute in bfloat16. Choose dtype auto or float32.",
     ["bfloat16", "float32"]),
])
def test_device_errors_keep_their_english_and_have_chinese(no_accelerators, monkeypatch, call,
                                                           english, kept):
    with pytest.raises(DeviceError) as info:
        call(monkeypatch)
    assert_translated(info.value, english, kept)


@pytest.mark.parametrize("fast, english", [(True, "CPU (3 threads, bf16 fast: yes)"),
                                           (False, "CPU (3 threads, bf16 fast: no)")])
def test_the_device_line_has_chinese_too(monkeypatch, fast, english):
    monkeypatch.setattr(dev, "cpu_bf16_is_fast", lambda: fast)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 3)
    line = describe_device(CPU)
    assert line == english
    chinese = localize(line, "zh-CN")
    assert CJK.search(chinese) and "3" in chinese and chinese != english
    assert localize(describe_device(torch.device("mps")), "zh-CN") != "Apple GPU (MPS)"


# --- container limits: fake cgroup trees ------------------------------------------------------

GB = 2**30


def cgroup(tmp_path, files: dict[str, str]):
    """A fake ``/sys/fs/cgroup`` holding ``files`` (path relative to the root -> content)."""
    for name, text in files.items():
        path = tmp_path / "cgroup" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "cgroup"


def meminfo(tmp_path, available_kb: int):
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:       99999999 kB\nMemAvailable:   {available_kb} kB\n")
    return path


@pytest.mark.parametrize("files, free", [
    # cgroup v2: 16 GB limit, 10 GB used of which 2 GB is page cache the kernel can drop
    ({"memory.max": str(16 * GB), "memory.current": str(10 * GB),
      "memory.stat": f"anon 1\ninactive_file {2 * GB}\n"}, 8 * GB),
    ({"memory.max": "max", "memory.current": str(GB)}, None),  # v2 without a limit
    # cgroup v1: 2.5 GB limit, 1 GB used, no stat file
    ({"memory/memory.limit_in_bytes": str(int(2.5 * GB)),
      "memory/memory.usage_in_bytes": str(GB)}, int(1.5 * GB)),
    ({"memory/memory.limit_in_bytes": "9223372036854771712",  # v1's "no limit"
      "memory/memory.usage_in_bytes": str(GB)}, None),
    ({}, None),  # no cgroup files at all
    ({"memory.max": str(GB), "memory.current": str(3 * GB)}, 0),  # over the limit: nothing free
])
def test_the_containers_memory_limit_is_read_from_cgroup_v2_and_v1(tmp_path, files, free):
    assert dev.container_memory_free(cgroup(tmp_path, files)) == free


@pytest.mark.parametrize("files, free", [
    # v1: the container (root) 8 GB with 5 GB used; the process's own cgroup below it 2 GB
    # with 1.5 GB used: 0.5 GB before this cgroup is killed
    ({"memory/memory.limit_in_bytes": str(8 * GB), "memory/memory.usage_in_bytes": str(5 * GB),
      "memory/jobs/a/memory.limit_in_bytes": str(2 * GB),
      "memory/jobs/a/memory.usage_in_bytes": str(int(1.5 * GB))}, GB // 2),
    # its own without a limit, one above it with one: that one's room
    ({"memory/jobs/memory.limit_in_bytes": str(3 * GB),
      "memory/jobs/memory.usage_in_bytes": str(GB),
      "memory/jobs/a/memory.limit_in_bytes": "9223372036854771712",
      "memory/jobs/a/memory.usage_in_bytes": str(GB)}, 2 * GB),
    # v2, its own cgroup's limit
    ({"memory.max": "max", "memory.current": str(GB),
      "jobs/a/memory.max": str(4 * GB), "jobs/a/memory.current": str(GB)}, 3 * GB),
])
def test_the_limit_of_the_processs_own_cgroup_and_those_above_it_counts(tmp_path, files, free):
    """A process put in a cgroup below the container's (a job runner, the hostile bench's
    capped server) is killed at that cgroup's limit, not the mount root's."""
    own = tmp_path / "self-cgroup"
    own.write_text("4:memory:/jobs/a\n0::/jobs/a\n")
    assert dev.container_memory_free(cgroup(tmp_path, files), own) == free


def test_free_memory_is_the_lesser_of_the_host_and_the_container(tmp_path):
    host = meminfo(tmp_path, 100 * GB // 1024)  # the host shows 100 GB available
    limited = cgroup(tmp_path, {"memory.max": str(16 * GB), "memory.current": str(4 * GB)})
    assert dev.available_memory(CPU, root=limited, meminfo=host) == 12 * GB
    unlimited = tmp_path / "nothing"
    assert dev.available_memory(CPU, root=unlimited, meminfo=host) == 100 * GB
    assert dev.available_memory(CPU, root=unlimited, meminfo=tmp_path / "missing") is None


@pytest.mark.parametrize("files, expected", [
    ({"cpu.max": "200000 100000"}, 2),  # v2: a quota of 2 CPUs
    ({"cpu.max": "150000 100000"}, 2),  # 1.5 CPUs: two threads can share them
    ({"cpu.max": "max 100000"}, 64),  # no quota: the CPUs it may run on
    ({"cpu/cpu.cfs_quota_us": "100000", "cpu/cpu.cfs_period_us": "100000"}, 1),  # v1: 1 CPU
    ({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, 64),  # v1: no quota
    ({}, 64),
])
def test_the_cpu_count_follows_the_containers_quota(tmp_path, monkeypatch, files, expected):
    monkeypatch.setattr(dev.os, "sched_getaffinity", lambda pid: set(range(64)))
    assert dev.cpu_limit(cgroup(tmp_path, files)) == expected


def test_a_run_never_asks_for_more_threads_than_the_container_has(monkeypatch):
    from playground.config import ModelConfig, TrainConfig
    from playground.model import GPT
    from playground.runtime import execution

    model = GPT(ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=2, n_embd=16))
    before = torch.get_num_threads()
    monkeypatch.setattr(execution, "cpu_limit", lambda: 1)
    try:
        torch.set_num_threads(2)
        assert execution.place_model(model, TrainConfig(device="cpu", threads=1024)).threads == 1
        # PyTorch's own choice; the run holds the count only while it computes
        assert execution.place_model(model, TrainConfig(device="cpu", threads=0)).threads == 1
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


# A thread fills the C heap with 200 MB of small blocks and frees them; glibc keeps them in that
# thread's arena, and return_free_memory hands them back. Prints the resident MB at each stage.
TRIM_CHILD = r"""
import threading
from playground.runtime.device import return_free_memory

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024

def fill():
    blocks = [bytearray(64 * 1024) for _ in range(3200)]  # under glibc's mmap threshold
    del blocks[:-1]  # the last one pins the top of the heap, as live objects do
    held.append(blocks)

held = []
thread = threading.Thread(target=fill)
thread.start(); thread.join()
before = rss()
trimmed = return_free_memory()
print(before, rss(), trimmed)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim, /proc")
def test_freed_memory_goes_back_to_the_system():
    done = subprocess.run([sys.executable, "-c", TRIM_CHILD], capture_output=True, text=True,
                          timeout=120, check=True)
    before, after, trimmed = done.stdout.split()
    assert trimmed == "True"
    assert int(before) - int(after) > 100, done.stdout  # most of the 200 MB freed


def wait_for(condition, limit_s=30.0):
    deadline = time.monotonic() + limit_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_a_burst_of_frees_is_reclaimed_once_after_it_ends():
    done = []
    reclaimer = Reclaimer(quiet_s=0.2, max_wait_s=30, reclaim=lambda: done.append(time.monotonic()))
    asked = time.monotonic()
    for _ in range(8):  # a class closing its tabs
        reclaimer.soon()
    assert reclaimer.busy()  # asked for: what a caller waits on
    assert wait_for(lambda: reclaimer.runs == 1)
    assert wait_for(lambda: not reclaimer.busy())
    assert done[0] - asked >= 0.2  # not at once: after the burst went quiet
    time.sleep(0.5)
    assert reclaimer.runs == 1  # one reclaim for the whole burst
    reclaimer.soon()  # a later free: served again, by a new thread
    assert wait_for(lambda: reclaimer.runs == 2)


def test_steady_frees_are_still_reclaimed_by_the_longest_wait():
    reclaimer = Reclaimer(quiet_s=0.3, max_wait_s=0.5, reclaim=lambda: None)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:  # a free every 0.1 s: never quiet for 0.3 s
        reclaimer.soon()
        time.sleep(0.1)
    assert reclaimer.runs >= 2


def test_a_failed_reclaim_does_not_stop_the_next():
    def fail():
        raise RuntimeError("boom")
    reclaimer = Reclaimer(quiet_s=0.05, max_wait_s=1, reclaim=fail)
    reclaimer.soon()
    assert wait_for(lambda: reclaimer.runs == 1)
    reclaimer.soon()
    assert wait_for(lambda: reclaimer.runs == 2)
