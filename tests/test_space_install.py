"""What torch each install gets, resolved by pip itself: a ZeroGPU Space (Python 3.10.13 or
3.12.12) gets a torch that ZeroGPU runs, and ``make run`` / ``make test`` / CI here keep the CPU
build the Makefile installs, with no file edited between the two.

A Space's builder runs ``pip install -r pre-requirements.txt``, then ``pip install -r
requirements.txt`` (then gradio at ``sdk_version`` and ``spaces``); the Makefile runs ``pip
install $(TORCH)``, then ``pip install -r requirements.txt``. Each step is asked of pip with
``--dry-run --report`` against an index of stand-in torch wheels built in ``tmp_path`` (each
holding only its metadata), so the test needs no network and no multi-GB download: the first
step with pip's ``--python-version`` and ``--platform`` for the Space's interpreter; the second
in a bare environment that already holds the torch of the first (pip ``--python``), where pip
must keep it. (pip evaluates environment markers for the interpreter it runs on, not for
``--python-version``, so a marker on the Python version could not be checked this way, and the
Space would then depend on which Python it was given.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ZEROGPU_TORCH = {"2.8.0", "2.9.1", "2.10.0", "2.11.0"}  # what ZeroGPU runs (hub-docs, 2026)
SPACE_PYTHONS = ["3.10.13", "3.12.12"]
LOCAL_PYTHON = "3.11"
# every torch the stand-in index offers: ZeroGPU's, our CPU build, and a newer one
OFFERED = sorted(ZEROGPU_TORCH | {"2.13.0", "2.14.1"}, key=lambda v: tuple(map(int, v.split("."))))


def requirement_lines(name: str) -> list[str]:
    """A requirements file's requirements, without comments and ``-r`` includes."""
    lines = (line.split("#")[0].strip() for line in (ROOT / name).read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-r")]


def torch_line(name: str) -> str:
    (line,) = [line for line in requirement_lines(name) if re.match(r"torch\b", line)]
    return line


def makefile_torch() -> str:
    return re.search(r"^TORCH \?= (\S+)$", (ROOT / "Makefile").read_text(), re.M).group(1)


def stand_in_wheel(folder: Path, version: str, python: str) -> None:
    """A torch wheel for CPython ``python`` (``"310"``) on manylinux x86_64 that holds only
    its metadata: all pip reads for a dry run."""
    tag = f"cp{python}-cp{python}-manylinux_2_28_x86_64"
    info = f"torch-{version}.dist-info"
    with zipfile.ZipFile(folder / f"torch-{version}-{tag}.whl", "w") as wheel:
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: {tag}\n")
        wheel.writestr(f"{info}/RECORD", "")


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("index")
    for version in OFFERED:
        for python in ("310", "311", "312"):
            stand_in_wheel(folder, version, python)
    return folder


def pip_install(index: Path, report: Path, *args: str, pip_python: str | None = None) -> list[str]:
    """``pip install --dry-run`` from ``index`` alone; the ``torch-<version>`` files it would
    install. No pip configuration or environment variable of this machine takes part."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    python = ["--python", pip_python] if pip_python else []
    out = subprocess.run(
        [sys.executable, "-m", "pip", *python, "install", "--dry-run", "--quiet", "--report",
         str(report), "--no-index", "--find-links", str(index), "--no-deps",
         "--disable-pip-version-check", *args],
        capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    installs = json.loads(report.read_text())["install"]
    return [item["download_info"]["url"].rsplit("/", 1)[1] for item in installs]


def first_step(index: Path, tmp_path: Path, python: str, requirement: str) -> list[str]:
    """What pip installs for ``requirement`` into an empty folder for CPython ``python``."""
    return pip_install(index, tmp_path / "first.json", "--ignore-installed",
                       "--only-binary=:all:", "--python-version", python,
                       "--platform", "manylinux_2_28_x86_64", "--implementation", "cp",
                       "--target", str(tmp_path / "target"), requirement)


def second_step(index: Path, tmp_path: Path, installed: str) -> list[str]:
    """What ``pip install -r requirements.txt``'s torch line adds to an environment that holds
    torch ``installed`` already (the first step's)."""
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    site = next(env.glob("lib/python*/site-packages"))
    info = site / f"torch-{installed}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {installed}\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text("")
    return pip_install(index, tmp_path / "second.json", torch_line("requirements.txt"),
                       pip_python=str(env / "bin" / "python"))


@pytest.mark.parametrize("python", SPACE_PYTHONS)
def test_a_zerogpu_space_installs_a_torch_that_zerogpu_runs(index, tmp_path, python):
    (wheel,) = first_step(index, tmp_path, python, torch_line("pre-requirements.txt"))
    version = wheel.split("-")[1]
    assert version in ZEROGPU_TORCH and f"-cp{python.replace('.', '')[:3]}-" in wheel
    assert second_step(index, tmp_path, version) == []  # requirements.txt keeps it


def test_make_run_keeps_the_local_cpu_build(index, tmp_path):
    torch = makefile_torch()
    assert torch == "torch==2.13.0" and "pre-requirements.txt" not in (ROOT / "Makefile").read_text()
    (wheel,) = first_step(index, tmp_path, LOCAL_PYTHON, torch)
    assert wheel.startswith("torch-2.13.0-cp311-")
    assert second_step(index, tmp_path, "2.13.0") == []


def test_without_the_first_step_requirements_txt_would_take_the_newest_torch(index, tmp_path):
    """The check above can fail: in an empty environment the same line picks a torch that
    ZeroGPU does not run."""
    (wheel,) = first_step(index, tmp_path, SPACE_PYTHONS[0], torch_line("requirements.txt"))
    assert wheel.startswith(f"torch-{OFFERED[-1]}-") and OFFERED[-1] not in ZEROGPU_TORCH
