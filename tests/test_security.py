"""Hostile input against the launched app: what strangers on a public Space could try.

Every check goes through the HTTP API that ``gradio_client`` (or ``curl``) sees: the launch
settings, the endpoints on offer, uploads of the wrong kind, crafted zips and pickles, file
names with ``..``, attempts to read server files, and where the app writes.
"""

import io
import json
import os
import pickle
import tempfile
import zipfile
from pathlib import Path

import gradio as gr
import httpx
import pytest
import torch
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError
from packaging.version import Version

from playground import checkpoint
from playground.checkpoint import BundleError, load_bundle, save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground import prepare
from playground.ui import train_tab
from playground.ui.app import LOCKED_DOWN, MAX_FILE_SIZE, build_demo, launch

from checks import page_settings

FIVE_MB = 5 * 1024 * 1024
# the shared TINY run, smaller still: every test here trains just to have a model to attack
SMALLER = dict(block_size=8, n_embd=8, max_steps=3, batch_size=2, warmup_steps=1)


def settings(**changes):
    """Widget values in SETTINGS order: the tiny preset with TINY, SMALLER and ``changes`` applied."""
    return page_settings(SMALLER, **changes)


@pytest.fixture
def served(tmp_path, monkeypatch):
    """The app launched from an empty working folder, with a folder of files to upload.

    Yields (demo, url, client, inputs). Gradio's temporary folder is tmp_path/gradio
    (conftest sets GRADIO_TEMP_DIR), the working folder tmp_path/cwd.
    """
    cwd, inputs = tmp_path / "cwd", tmp_path / "inputs"
    cwd.mkdir()
    inputs.mkdir()
    monkeypatch.chdir(cwd)
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    client = Client(url, verbose=False, analytics_enabled=False,
                    download_files=str(tmp_path / "downloads"))
    yield demo, url, client, inputs
    client.close()
    demo.close()


def gradio_temp_dir() -> Path:
    return Path(os.environ["GRADIO_TEMP_DIR"]).resolve()


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


# --- versions and launch settings ---------------------------------------------------------------

def test_gradio_has_the_path_traversal_and_ssrf_fixes():
    # 6.20.0: SSRF-safe /file= proxy and max_file_size enforced on /component_server
    assert Version(gr.__version__) >= Version("6.20.0")


def test_launch_settings_cannot_be_loosened(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADIO_ALLOWED_PATHS", "/")  # Gradio would serve the whole disk
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None,
                       allowed_paths=["/"], max_file_size=None, run_history=True)
    try:
        assert demo.allowed_paths == [] and "GRADIO_ALLOWED_PATHS" not in os.environ
        assert demo.max_file_size == FIVE_MB and MAX_FILE_SIZE == "5mb"
        assert demo.run_history is False and demo.share is False
        assert httpx.get(f"{url}config").json()["max_file_size"] == FIVE_MB
        assert httpx.get(f"{url}gradio_api/file=/etc/hostname").status_code == 403
    finally:
        demo.close()
    assert LOCKED_DOWN["allowed_paths"] == [] and LOCKED_DOWN["share"] is False


def test_there_is_no_flagging():
    """Flagging once copied any server file (CVE-2025-48889): the app has none at all."""
    demo = build_demo()
    names = [fn.api_name or "" for fn in demo.fns.values()]
    assert not [n for n in names if "flag" in n.lower()]
    assert not [b for b in demo.blocks.values() if "flag" in type(b).__name__.lower()]


# --- the API on offer ---------------------------------------------------------------------------

def is_upload(parameter) -> bool:
    """A file parameter that only accepts FileData (files uploaded to this server), one or a list."""
    schema = parameter["type"]
    item = schema.get("items", schema)
    if item.get("$ref") == "#/$defs/FileData":
        item = schema["$defs"]["FileData"]
    return item.get("title") == "FileData" and item.get("required") == ["path"]


def test_every_file_input_of_the_api_is_an_upload_and_no_text_input_is_a_path(served):
    _, _, client, _ = served
    api = client.view_api(return_format="dict", print_info=False)
    endpoints = {**api["named_endpoints"], **api["unnamed_endpoints"]}
    assert "/use_corpus" in endpoints and "/upload_bundle" in endpoints
    file_inputs, text_inputs = [], []
    for name, endpoint in endpoints.items():
        for p in endpoint["parameters"]:
            kind = p["python_type"]["type"]
            if "filepath" in kind or p["component"] in ("File", "UploadButton", "FileExplorer"):
                assert p["component"] == "File" and is_upload(p), (name, p["parameter_name"])
                file_inputs.append((name, p["parameter_name"]))
            elif kind == "str":
                assert p["component"] == "Textbox", (name, p)
                words = f"{p['parameter_name']} {p['label']}".lower()  # a label may be i18n data
                assert not any(w in words for w in ("path", "file", "folder", "dir")), (name, p)
                text_inputs.append((name, p["parameter_name"]))
    assert ("/use_corpus", "files") in file_inputs and ("/upload_bundle", "path") in file_inputs
    assert ("/use_corpus", "pasted") in text_inputs and ("/generate", "prompt") in text_inputs


def test_text_inputs_are_text_not_paths(served):
    _, _, client, _ = served
    secret = Path("/etc/hostname").read_text()
    for attempt in ("/etc/hostname", "../../../../etc/hostname", "file:///etc/hostname"):
        summary, preview = client.predict("Paste text", None, attempt, api_name="/use_corpus")
        assert preview == attempt and secret.strip() not in preview + summary


def test_a_file_input_naming_a_server_file_is_refused(served, tmp_path):
    """Gradio lets a FileData name only files uploaded to it: no reading /etc/passwd, nor a
    bundle lying elsewhere on the server, through the corpus or bundle inputs."""
    _, url, _, inputs = served
    tok = train_tokenizer("char", "hello world")
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8))
    elsewhere = save_bundle(inputs / "elsewhere.zip", model, tok, TrainConfig(), [])
    meta = {"_type": "gradio.FileData"}
    cases = [("use_corpus", ["Upload files", [{"path": "/etc/passwd", "meta": meta}], ""]),
             ("upload_bundle", [{"path": str(elsewhere), "meta": meta}])]
    for api_name, data in cases:
        event = httpx.post(f"{url}gradio_api/call/{api_name}", json={"data": data}).json()["event_id"]
        answer = httpx.get(f"{url}gradio_api/call/{api_name}/{event}", timeout=30).text
        assert answer.startswith("event: error") and "root:" not in answer, answer


@pytest.mark.parametrize("path", ["/etc/passwd", "{temp}/../../../../etc/passwd",
                                  "..%2F..%2F..%2Fetc%2Fpasswd", "{temp}/%2e%2e/%2e%2e/etc/passwd"])
def test_server_files_cannot_be_read_through_file_urls(served, path):
    _, url, _, _ = served
    response = httpx.get(f"{url}gradio_api/file=" + path.format(temp=gradio_temp_dir()))
    assert response.status_code in (403, 404) and "root:" not in response.text


# --- uploads ---------------------------------------------------------------------------------

def bundle_bytes() -> bytes:
    """A valid bundle of a tiny model (vocabulary 8), as bytes."""
    tok = train_tokenizer("char", "hello world")
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8))
    with tempfile.TemporaryDirectory() as folder:
        return save_bundle(Path(folder) / "b.zip", model, tok, TrainConfig(), []).read_bytes()


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def with_extra_member(name: str, data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(bundle_bytes())) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    return zip_of({**members, name: data})


HOSTILE_BUNDLES = {
    "pickle.pt": (lambda: pickle.dumps({"weights": [1, 2]}), "Invalid file type"),
    "torch_save.pth": (lambda: b"PK\x03\x04" + b"\x00" * 40, "Invalid file type"),
    "renamed_pickle.zip": (lambda: pickle.dumps({"weights": [1, 2]}), "is a Python pickle"),
    "torch_save.zip": (lambda: _torch_save_bytes(), "holds pickled data"),
    "bomb.zip": (lambda: with_extra_member("padding.bin", b"\x00" * (20 * 2**20)), "zip bomb"),
    "traversal.zip": (lambda: with_extra_member("../../evil.txt", b"evil"), "suspicious entry"),
    "absolute.zip": (lambda: with_extra_member("/tmp/evil.txt", b"evil"), "suspicious entry"),
    "other.zip": (lambda: zip_of({"readme.txt": b"hi"}), "not a Transformer Playground bundle"),
    "truncated.zip": (lambda: bundle_bytes()[:300], "damaged or incomplete"),
    "notes.txt": (lambda: b"just text", "Invalid file type"),
}


def _torch_save_bytes() -> bytes:
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buffer)  # a zip holding data.pkl
    return buffer.getvalue()


@pytest.mark.parametrize("name", list(HOSTILE_BUNDLES))
def test_hostile_bundle_uploads_are_refused_with_a_message(served, name, tmp_path):
    demo, _, client, inputs = served
    make, message = HOSTILE_BUNDLES[name]
    (inputs / name).write_bytes(make())
    with pytest.raises(AppError, match=message):
        client.predict(handle_file(str(inputs / name)), api_name="/upload_bundle")
    assert not (tmp_path / "evil.txt").exists() and not Path("/tmp/evil.txt").exists()
    assert files_under(Path.cwd()) == set()


def test_deeply_nested_json_in_a_bundle_is_refused_with_a_message(tmp_path):
    """A member of JSON nested 100,000 deep makes json.loads raise RecursionError."""
    with zipfile.ZipFile(io.BytesIO(bundle_bytes())) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    path = tmp_path / "deep.zip"
    path.write_bytes(zip_of({**members, "history.json": b"[" * 100_000}))
    with pytest.raises(BundleError, match="history.json"):
        load_bundle(path)


def test_a_bundle_claiming_a_huge_model_is_refused_before_building_it(tmp_path, monkeypatch):
    huge = ModelConfig(vocab_size=8, block_size=8, n_layer=1, n_head=8, n_embd=1024)  # 12.6M weights
    with zipfile.ZipFile(io.BytesIO(bundle_bytes())) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    members["model_config.json"] = json.dumps(huge.to_dict()).encode()
    path = tmp_path / "liar.zip"
    path.write_bytes(zip_of(members))
    built = []
    real_gpt = checkpoint.GPT

    def recording_gpt(config):
        model = real_gpt(config)
        built.append(next(model.parameters()).device.type)
        return model

    monkeypatch.setattr(checkpoint, "GPT", recording_gpt)
    with pytest.raises(BundleError, match="do not fit"):
        load_bundle(path)
    assert "cpu" not in built  # no real allocation for a model the weights cannot fill


def test_corpus_uploads_of_the_wrong_kind_or_size_are_refused(served):
    _, url, client, inputs = served
    (inputs / "model.pt").write_bytes(pickle.dumps([1]))
    (inputs / "archive.zip").write_bytes(zip_of({"a.txt": b"hi"}))
    for name in ("model.pt", "archive.zip"):
        with pytest.raises(AppError, match="Invalid file type"):
            client.predict("Upload files", [handle_file(str(inputs / name))], "",
                           api_name="/use_corpus")
    # over the 5 MB limit: the server answers 413 before keeping anything
    response = httpx.post(f"{url}gradio_api/upload",
                          files={"files": ("big.txt", b"a" * (FIVE_MB + 1))})
    assert response.status_code == 413 and "maximum allowed size" in response.text
    assert not [p for p in gradio_temp_dir().rglob("big.txt")]


def test_an_upload_named_with_dots_and_slashes_lands_inside_the_temp_folder(served, tmp_path):
    _, url, client, _ = served
    for name in ("../../evil.txt", "..\\..\\evil.txt", "/etc/evil.txt"):
        response = httpx.post(f"{url}gradio_api/upload", files={"files": (name, b"hello evil")})
        (stored,) = response.json()
        assert Path(stored).resolve().is_relative_to(gradio_temp_dir()), stored
        assert Path(stored).resolve() == Path(stored)  # no ".." segment left in it
        assert Path(stored).name.endswith("evil.txt") and "/" not in Path(stored).name
    assert not (tmp_path / "evil.txt").exists() and not Path("/etc/evil.txt").exists()
    assert files_under(Path.cwd()) == set()


def the_download(outputs):
    """The one file among train_model's outputs (the Download button's update carries it)."""
    values = [o.get("value") if isinstance(o, dict) and o.get("__type__") == "update" else o
              for o in outputs]
    (found,) = [v for v in values if isinstance(v, dict) and "path" in v
                or isinstance(v, str) and v.endswith(".zip") and os.path.isfile(v)]
    return found


def test_everything_the_app_writes_or_returns_is_inside_its_temp_folder(served, tmp_path, tiny_text):
    demo, url, client, inputs = served
    (inputs / "poem.txt").write_text(tiny_text, encoding="utf-8")
    client.predict("Upload files", [handle_file(str(inputs / "poem.txt"))], "",
                   api_name="/use_corpus")
    client.predict("char", 512, api_name="/train_tokenizer")
    download = the_download(client.predict(False, *settings(), api_name="/train_model"))
    # the client fetched the bundle through a /file= URL the server handed out
    assert Path(download).name.startswith("playground-model-step3") and load_bundle(download)
    raw = Client(url, verbose=False, analytics_enabled=False, download_files=False)
    try:
        raw.predict("Upload files", [handle_file(str(inputs / "poem.txt"))], "", api_name="/use_corpus")
        raw.predict("char", 512, api_name="/train_tokenizer")
        served_file = the_download(raw.predict(False, *settings(), api_name="/train_model"))
    finally:
        raw.close()
    assert Path(served_file["path"]).resolve().is_relative_to(gradio_temp_dir())
    # nothing anywhere else: the working folder is empty, tmp_path holds only what we made
    assert files_under(Path.cwd()) == set()
    assert {p.name for p in tmp_path.iterdir()} == {"cwd", "inputs", "gradio", "downloads"}


# --- settings at their extremes -----------------------------------------------------------------

NUMERIC = [name for name, value in zip(train_tab.SETTINGS, train_tab.preset_values("tiny"))
           if isinstance(value, (int, float)) and not isinstance(value, bool)]
# the settings for which 0 is a meaningful value (off, none, or "let PyTorch decide")
ZERO_ALLOWED = {"dropout", "min_lr", "warmup_steps", "lr_decay_steps", "weight_decay", "beta1",
                "beta2", "grad_clip", "label_smoothing", "sample_tokens", "seed", "threads",
                "muon_momentum", "logit_softcap", "first_eval_iters"}  # (0: off, as usual)
EXTREMES = [-1, -1e9, 1e30, 10**40, float("nan"), float("inf"), float("-inf"), "abc", "", None]


class Started(Exception):
    """Raised where a run would build its model: the settings passed every check."""


@pytest.fixture
def nothing_may_start(monkeypatch):
    """Record (and stop) any run that gets as far as building a model."""
    started = []

    def new_model(*args):
        started.append("model")
        raise Started

    monkeypatch.setattr(prepare, "new_model", new_model)
    return started


@pytest.fixture(scope="module")
def ready_session_factory():
    from playground.ui import corpus_tab, tokenizer_tab

    def make():
        session, _, _ = corpus_tab.use_corpus(None, "Paste text", None, "hello world, " * 80)
        tokenizer_tab.train_tokenizer_handler(session, "char", 512)
        return session
    return make


def test_the_numeric_settings_are_the_expected_ones():
    assert len(NUMERIC) == 30 and ZERO_ALLOWED < set(NUMERIC)


@pytest.mark.parametrize("name", NUMERIC)
def test_every_numeric_setting_at_its_extremes_is_refused_before_any_work(
        name, nothing_may_start, ready_session_factory):
    session = ready_session_factory()
    for value in EXTREMES + [0]:
        values = dict(zip(train_tab.SETTINGS, settings()))
        values[name] = value
        with pytest.raises(gr.Error) as info:
            list(train_tab.train_model(session, False, *[values[k] for k in train_tab.SETTINGS]))
        if nothing_may_start:  # it got through every check to building the model
            assert value == 0 and name in ZERO_ALLOWED, f"{name}={value!r} was accepted"
            nothing_may_start.clear()
            continue
        assert name in info.value.message, (value, info.value.message)  # says which setting
        assert session.trained is None and not session.run.running


def test_a_model_bigger_than_the_free_memory_is_refused_before_it_is_built(
        monkeypatch, nothing_may_start, ready_session_factory):
    session = ready_session_factory()
    huge = settings(n_layer=256, n_embd=65536, n_head=256, block_size=65536, batch_size=65536)
    with pytest.raises(gr.Error, match="of memory to train, but only .* is free"):
        list(train_tab.train_model(session, False, *huge))
    # and a tiny model on a machine with 1 KB free
    monkeypatch.setattr(prepare, "available_memory", lambda device: 2**10)
    with pytest.raises(gr.Error, match="Make it smaller"):
        list(train_tab.train_model(session, False, *settings()))
    assert nothing_may_start == [] and session.trained is None


def test_numbers_that_are_not_numbers_are_refused_through_the_api(served):
    """What gradio_client cannot even send (NaN, infinity) goes as raw JSON."""
    demo, url, client, _ = served
    client.predict("Paste text", None, "hello world, " * 80, api_name="/use_corpus")
    client.predict("char", 512, api_name="/train_tokenizer")
    lr, n_embd = train_tab.SETTINGS.index("lr") + 1, train_tab.SETTINGS.index("n_embd") + 1
    # refused by the settings' own checks, each naming its setting (no Gradio minimum on the boxes)
    for position, value, message in [(lr, "abc", "lr must be a number, got 'abc'."),
                                     # Gradio's own refusal: no exception text (show_error=False)
                                     (n_embd, [3], "has not enabled verbose error reporting"),
                                     (lr, -1, "lr must be between 1e-08 and 10, got -1."),
                                     (lr, 1e30, "lr must be between")]:
        args = [False, *settings()]
        args[position] = value
        with pytest.raises(AppError, match=message):
            client.predict(*args, api_name="/train_model")
    index = next(i for i, fn in demo.fns.items() if fn.api_name == "train_model")
    for position, literal, message in [(lr, "NaN", "lr must be a number, got nan"),
                                       (lr, "Infinity", "lr must be between"),
                                       (n_embd, "NaN", None)]:  # Gradio's: no text at all
        data = [None, False, *settings()]  # the session's State goes as null
        data[position + 1] = "__X__"
        body = json.dumps({"data": data, "fn_index": index, "session_hash": client.session_hash,
                           "event_data": None, "trigger_id": None}).replace('"__X__"', literal)
        event = httpx.post(f"{url}gradio_api/queue/join", content=body,
                           headers={"content-type": "application/json"}).json()["event_id"]
        with httpx.stream("GET", f"{url}gradio_api/queue/data",
                          params={"session_hash": client.session_hash}, timeout=60) as stream:
            ends = [json.loads(line[5:]) for line in stream.iter_lines()
                    if line.startswith("data:") and '"process_completed"' in line]
        (end,) = [e for e in ends if e["event_id"] == event]
        said = end["output"]["error"]
        assert end["success"] is False and (said is None if message is None else message in said), end
