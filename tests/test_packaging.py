"""The installable package: pyproject.toml agrees with the requirements files, and the wheel
holds every module, the bundled corpus and both console scripts.

The wheel is built from a copy of the sources in ``tmp_path`` (setuptools writes ``build/``
next to the sources it builds), without build isolation so nothing is fetched: torch 2.13
itself requires setuptools >= 77, the version ``[build-system]`` asks for.
"""

from __future__ import annotations

import os
import shutil
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SCRIPTS = {"playground": "playground.cli:main", "playground-app": "playground.ui.app:main"}


def requirement_lines(name: str) -> list[str]:
    """A requirements file's requirements, in order, without comments and ``-r`` includes."""
    lines = (line.split("#")[0].strip() for line in (ROOT / name).read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-r")]


def test_dependencies_are_requirements_txt():
    assert PYPROJECT["project"]["dependencies"] == requirement_lines("requirements.txt")


def test_dev_extra_is_requirements_dev_txt():
    assert PYPROJECT["project"]["optional-dependencies"]["dev"] == \
        requirement_lines("requirements-dev.txt")


def test_no_two_test_files_share_a_name():
    """pytest imports test files by their bare name (no ``__init__.py`` under tests/), so two
    folders holding the same file name stop the whole collection with "import file mismatch"."""
    seen: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_the_core_imports_no_gradio():
    """Every module of the core (all of ``playground`` but the page, ``playground.ui``, and what
    serves it, ``playground.server``) imports without Gradio, found by its files, so
    a new module is checked without a line here."""
    package = ROOT / "playground"
    core = sorted(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                  for path in package.rglob("*.py")
                  if path.relative_to(package).parts[0] not in ("ui", "server", "__main__.py"))
    assert len(core) > 40 and "playground.runtime.zerogpu" in core
    # (by file, not pkgutil.walk_packages: that imports every package it walks, ui/ too)
    code = (f"import importlib, sys\nfor name in {core!r}: importlib.import_module(name)\n"
            "print('gradio' in sys.modules, any(m.startswith(('playground.ui', 'playground.server'))"
            " for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_the_architecture_names_every_module():
    """docs/ARCHITECTURE.md, the map of the package, names each of its modules (by file name,
    or by name where a subpackage's line lists them): a new module gets its line."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    modules = sorted(path.stem for path in (ROOT / "playground").rglob("*.py")
                     if path.stem not in ("__init__", "__main__"))
    assert len(modules) > 50 and "runs" in modules
    assert [m for m in modules if not re.search(rf"\b{m}\b", text)] == []


def test_console_scripts_name_the_cli_and_the_app():
    assert PYPROJECT["project"]["scripts"] == SCRIPTS


def test_app_main_answers_help_without_serving(capsys):
    from playground.ui.app import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "usage: playground-app" in capsys.readouterr().out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "playground", source / "playground",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "-q", "-w", str(out), str(source)], check=True)
    (built,) = out.glob("transformer_playground-*.whl")
    return built


def test_wheel_holds_every_file_of_the_package(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {path.relative_to(ROOT).as_posix() for path in (ROOT / "playground").rglob("*")
               if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}
    assert {name for name in names if name.startswith("playground/")} == sources
    # corpus.BUNDLED_PATH and publish.TEMPLATE are read from beside the modules
    assert {"playground/data/tinyshakespeare.txt", "playground/export/standalone.py"} <= names


def test_wheel_metadata(wheel):
    archive = zipfile.ZipFile(wheel)
    info = "transformer_playground-0.1.0.dist-info"
    metadata = archive.read(f"{info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    requires = [line.removeprefix("Requires-Dist: ") for line in metadata.splitlines()
                if line.startswith("Requires-Dist: ") and "extra ==" not in line]
    # the same requirements, whatever order setuptools writes each one's bounds in
    assert [Requirement(r) for r in requires] == \
        [Requirement(r) for r in requirement_lines("requirements.txt")]
    assert archive.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    entry_points = archive.read(f"{info}/entry_points.txt").decode()
    for name, target in SCRIPTS.items():
        assert f"{name} = {target}" in entry_points


def test_unpacked_wheel_loads_the_bundled_corpus(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import playground.corpus as c; t = c.load_tiny_shakespeare().text; "
            "print(c.BUNDLED_PATH.is_relative_to(sys.argv[1]), len(t))")
    # from a folder outside the checkout, with only the unpacked wheel on the path
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", "import sys; " + code, str(site)], cwd=tmp_path,
                            env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "1115394"]
