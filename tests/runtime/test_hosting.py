"""The host's settings (runtime.hosting): read once from the environment into one ``Hosting``,
and read nowhere else."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from playground.runtime import hosting
from playground.runtime.hosting import Hosting

REPO = Path(__file__).resolve().parents[2]
SPACE = {"SPACE_ID": "alice/playground", "SYSTEM": "spaces"}  # what a Space sets


def test_locally_every_limit_is_off_and_the_defaults_are_the_dataclasses():
    host = Hosting.from_env({})
    assert host == Hosting()
    assert (host.on_space, host.shared, host.trusts_proxy, host.compile_allowed) == (
        False, False, False, True)
    assert (host.max_run_s, host.max_estimate_s, host.max_model_mb) == (None, None, None)
    assert (host.max_runs, host.concurrency, host.session_ttl_s, host.grace_s) == (
        16, 1, 7200.0, 600.0)
    assert (host.new_sessions_per_min, host.max_sessions, host.data_dir) == (60, None, None)
    assert (host.session_disk_mb, host.app_disk_mb, host.long_run_s) == (2048.0, 20480.0, 600.0)
    assert (host.on_zero_gpu, host.chunk_s, host.listen_address, host.server_port) == (
        False, 45.0, "127.0.0.1", 7860)
    assert host.model_memory_bytes is None and not host.oauth_available


def test_on_a_space_the_limits_are_on():
    host = Hosting.from_env(SPACE)
    assert (host.on_space, host.shared, host.trusts_proxy, host.compile_allowed) == (
        True, True, True, False)
    assert (host.max_run_s, host.max_estimate_s, host.max_model_mb) == (900.0, 3600.0, 512.0)
    assert host.model_memory_bytes == 512 * 2**20
    assert host.listen_address == "0.0.0.0" and host.oauth_available
    assert host.space_id == "alice/playground"


@pytest.mark.parametrize("env", [{"SPACE_ID": "alice/playground"}, {"SYSTEM": "spaces"}])
def test_either_of_a_spaces_variables_says_it_is_one(env):
    host = Hosting.from_env(env)
    assert host.on_space and host.shared and host.trusts_proxy
    assert host.max_run_s == 900.0 and host.listen_address == "0.0.0.0"
    assert not host.oauth_available  # Gradio mounts its login only with both


def test_playground_shared_is_shared_hosting_but_not_a_space():
    host = Hosting.from_env({"PLAYGROUND_SHARED": "1"})
    assert host.shared and not host.on_space and not host.trusts_proxy
    assert (host.max_run_s, host.max_estimate_s, host.max_model_mb) == (900.0, 3600.0, 512.0)
    assert not host.compile_allowed and host.listen_address == "127.0.0.1"


@pytest.mark.parametrize("name, value, field, expected", [
    ("PLAYGROUND_SHARED", "1", "force_shared", True),
    ("PLAYGROUND_TRUST_PROXY", "1", "trust_proxy", True),
    ("PLAYGROUND_ALLOW_COMPILE", "1", "allow_compile", True),
    ("PLAYGROUND_MAX_RUN_S", "60", "max_run_s", 60.0),
    ("PLAYGROUND_MAX_ESTIMATE_S", "600", "max_estimate_s", 600.0),
    ("PLAYGROUND_MAX_MODEL_MB", "64", "max_model_mb", 64.0),
    ("PLAYGROUND_MAX_RUNS", "3", "max_runs", 3),
    ("PLAYGROUND_MAX_RUNS", "0", "max_runs", 1),  # at least one
    ("PLAYGROUND_CONCURRENCY", "4", "concurrency", 4),
    ("PLAYGROUND_SESSION_TTL_S", "60", "session_ttl_s", 60.0),
    ("PLAYGROUND_GRACE_S", "0", "grace_s", 0.0),
    ("PLAYGROUND_NEW_SESSIONS_PER_MIN", "0", "new_sessions_per_min", 0),
    ("PLAYGROUND_MAX_SESSIONS", "7", "max_sessions", 7),
    ("PLAYGROUND_MAX_SESSIONS", "0", "max_sessions", 10_000),  # Gradio's own capacity
    ("PLAYGROUND_DATA_DIR", "/srv/kept", "data_dir", Path("/srv/kept")),
    ("PLAYGROUND_SESSION_DISK_MB", "0", "session_disk_mb", None),
    ("PLAYGROUND_APP_DISK_MB", "1.5", "app_disk_mb", 1.5),
    ("PLAYGROUND_LONG_RUN_S", "90", "long_run_s", 90.0),
    ("SPACES_ZERO_GPU", "true", "on_zero_gpu", True),
    ("PLAYGROUND_CHUNK_SECONDS", "30", "chunk_s", 30.0),
    ("GRADIO_SERVER_NAME", "0.0.0.0", "server_name", "0.0.0.0"),
    ("GRADIO_SERVER_PORT", "8080", "server_port", 8080),
])
def test_each_variable_sets_its_field(name, value, field, expected):
    assert Hosting.variables()[field] == name
    assert getattr(Hosting.from_env({name: value}), field) == expected


@pytest.mark.parametrize("name", ["PLAYGROUND_MAX_RUN_S", "PLAYGROUND_MAX_ESTIMATE_S",
                                  "PLAYGROUND_MAX_MODEL_MB"])
def test_on_a_space_zero_turns_a_limit_off_and_a_typo_keeps_it(name):
    field = {v: k for k, v in Hosting.variables().items()}[name]
    assert getattr(Hosting.from_env({**SPACE, name: "0"}), field) is None
    default = getattr(Hosting.from_env(SPACE), field)
    for bad in ("", "ten", "nan"):
        assert getattr(Hosting.from_env({**SPACE, name: bad}), field) == default


@pytest.mark.parametrize("name, bad", [
    ("PLAYGROUND_MAX_RUNS", "many"), ("PLAYGROUND_CONCURRENCY", "2.5"),
    ("PLAYGROUND_SESSION_TTL_S", "-1"), ("PLAYGROUND_SESSION_TTL_S", "nan"),
    ("PLAYGROUND_GRACE_S", "inf"), ("PLAYGROUND_NEW_SESSIONS_PER_MIN", "-3"),
    ("PLAYGROUND_MAX_SESSIONS", "lots"), ("PLAYGROUND_SESSION_DISK_MB", "-1"),
    ("PLAYGROUND_APP_DISK_MB", "inf"), ("PLAYGROUND_LONG_RUN_S", "0"),
    ("PLAYGROUND_SHARED", "yes"), ("SPACES_ZERO_GPU", "0"),
])
def test_a_value_the_app_cannot_use_falls_back_to_the_default_as_before(name, bad):
    """The app always started with a host's typo in these, on the default: it still does."""
    field = {v: k for k, v in Hosting.variables().items()}[name]
    assert getattr(Hosting.from_env({name: bad}), field) == getattr(Hosting(), field)


@pytest.mark.parametrize("name, bad", [("GRADIO_SERVER_PORT", "http"),
                                       ("PLAYGROUND_CHUNK_SECONDS", "forty")])
def test_a_value_that_stopped_the_app_before_is_refused_saying_which_and_what(name, bad):
    with pytest.raises(ValueError, match=rf"^{name} must be .*, got '{bad}'\. Set it to .*, or "
                                         r"leave it unset for \d+"):
        Hosting.from_env({name: bad})


def test_a_hosting_built_by_hand_is_checked_too():
    with pytest.raises(ValueError, match=r"^PLAYGROUND_GRACE_S must be a number of seconds, 0 or "
                                         r"more, got -1\.0\. .*leave it unset for 600\.0\."):
        Hosting(grace_s=-1.0)
    with pytest.raises(ValueError, match="^PLAYGROUND_MAX_RUN_S must be a number above 0"):
        Hosting(max_run_s=0.0)  # no limit is None, as from_env gives for "0"
    with pytest.raises(ValueError, match="^GRADIO_SERVER_PORT must be a port number"):
        Hosting(server_port=70_000)
    with pytest.raises(ValueError, match="^SPACES_ZERO_GPU must be 1 or unset"):
        Hosting(on_zero_gpu="yes")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Hosting().max_runs = 3


def test_the_process_reads_its_settings_once_and_a_test_can_give_its_own(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_MAX_RUNS", "5")
    first = hosting.current()
    assert first.max_runs == 5 and hosting.current() is first
    monkeypatch.setenv("PLAYGROUND_MAX_RUNS", "6")
    assert hosting.max_runs() == 5  # kept: read once
    hosting.use(Hosting(max_runs=2))
    assert hosting.max_runs() == 2 and hosting.run_time_cap() is None
    hosting.use(None)  # read the environment again
    assert hosting.max_runs() == 6


def test_the_readme_documents_every_variable_and_nothing_else():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| Variable |"):]
    table = table[:table.index("\n\n")]
    documented = re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.M)
    assert sorted(documented) == sorted(Hosting.variables().values())
    assert len(documented) == len(set(documented))


# Reading the environment is hosting.py's job; these modules read variables that are not the
# host's settings of this app (torchrun's, Gradio's, the Hub libraries', a subprocess's).
PLUMBING = {"cli.py", "tokenizer.py", "corpus.py", "runtime/distributed.py", "workspace.py",
            "ui/app.py"}
HOST_VARIABLE = re.compile(r"PLAYGROUND_[A-Z0-9_]+|SPACE_ID|SYSTEM|SPACES_ZERO_GPU"
                           r"|GRADIO_SERVER_(NAME|PORT)")
TORCHRUN_OWN = {"runtime/distributed.py": {"PLAYGROUND_DIST_TIMEOUT"}}  # a torchrun launch's


def _code_strings(tree: ast.AST) -> list[str]:
    """The string constants of a module's code: not its docstrings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_module_but_hosting_reads_a_host_variable():
    package = REPO / "playground"
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name == "runtime/hosting.py":
            continue
        source = path.read_text(encoding="utf-8")
        if name not in PLUMBING:
            assert not re.search(r"os\.environ|getenv", source), f"{name} reads the environment"
        named = {s for s in _code_strings(ast.parse(source)) if HOST_VARIABLE.fullmatch(s)}
        assert named <= TORCHRUN_OWN.get(name, set()), f"{name} names {sorted(named)}"
