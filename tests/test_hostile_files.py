"""One visitor cannot read another's upload or model by its server path (issue 27, finding 1).

Before: Gradio lets a call name any file in its upload folder, and the handlers read what the
call named: visitor B sending visitor A's upload path as B's corpus got A's text back as B's
corpus ("Corpus: secret_A.txt · 18,900 characters"), and A's bundle path as B's bundle loaded
A's model. Everything here talks to 127.0.0.1 only, each visitor with its own session and its
own address (``X-Forwarded-For`` behind a trusted proxy, as on a Space).
"""

import dataclasses
import json
import os
import shutil
from pathlib import Path

import gradio as gr
import httpx
import pytest

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.corpus import from_text
from playground.model import GPT
from playground.runtime import hosting
from playground.runtime.files import Uploads, UploadRefused
from playground.tokenizer import train_tokenizer
from playground.ui import corpus_tab, train_tab
from playground.ui.app import build_demo, launch
from playground.ui.session import Session

A, B = "198.51.100.1", "203.0.113.9"  # two networks (documentation addresses)
SECRET = "SECRET-A " * 2100  # A's text: 18,900 characters, as in the issue
REFUSED = "was not uploaded from this page"
FILE_DATA = {"_type": "gradio.FileData"}


@pytest.fixture
def served(tmp_path, monkeypatch):
    """The app behind a trusted proxy, run from tmp_path/cwd, with its lasting folder (the
    return store's) inside Gradio's upload folder, where Gradio would let a call name it.
    Yields (demo, url)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    hosting.use(dataclasses.replace(hosting.current(), trust_proxy=True,
                                    data_dir=Path(os.environ["GRADIO_TEMP_DIR"]) / "data"))
    demo = build_demo()
    _, url, _ = launch(demo, prevent_thread_lock=True, quiet=True, server_port=None)
    try:
        yield demo, url
    finally:
        demo.close()


def upload(url: str, name: str, data: bytes, address: str) -> str:
    """POST /gradio_api/upload as the page does: the path the server keeps the file at."""
    response = httpx.post(f"{url}gradio_api/upload", files={"files": (name, data)},
                          headers={"x-forwarded-for": address}, timeout=30)
    assert response.status_code == 200, response.text
    (path,) = response.json()
    return path


def call(url: str, demo, api_name: str, data: list, session_hash: str, address: str):
    """One call as the page makes it (join, then the session's stream to the event's end):
    (whether it succeeded, its output data or its error message)."""
    index = next(i for i, fn in demo.fns.items() if fn.api_name == api_name)
    joined = httpx.post(f"{url}gradio_api/queue/join", timeout=30, headers={"x-forwarded-for": address},
                        json={"data": data, "fn_index": index, "session_hash": session_hash,
                              "event_data": None, "trigger_id": None})
    assert joined.status_code == 200, joined.text
    event = joined.json()["event_id"]
    with httpx.stream("GET", f"{url}gradio_api/queue/data", params={"session_hash": session_hash},
                      headers={"x-forwarded-for": address}, timeout=60) as stream:
        for line in stream.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("event_id") == event and message.get("msg") == "process_completed":
                output = message.get("output") or {}
                return bool(message.get("success")), output.get("data") or output.get("error")
    raise AssertionError("the event never completed")


def as_corpus(path: str, api_name: str = "use_corpus") -> tuple[str, list]:
    return api_name, [None, "Upload files", [{"path": path, "meta": FILE_DATA,
                                              "orig_name": Path(path).name}], ""]


def as_bundle(path: str) -> tuple[str, list]:
    return "upload_bundle", [None, {"path": path, "meta": FILE_DATA, "orig_name": Path(path).name}]


def bundle_bytes(folder: Path, text: str) -> bytes:
    """A tiny model's bundle whose tokenizer knows the characters of ``text``."""
    tok = train_tokenizer("char", text)
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8))
    return save_bundle(folder / "b.zip", model, tok, TrainConfig(), []).read_bytes()


def test_a_visitor_cannot_use_anothers_upload_or_model_by_its_path(served, tmp_path):
    demo, url = served
    temp = Path(os.environ["GRADIO_TEMP_DIR"])
    secret = upload(url, "secret_A.txt", SECRET.encode(), A)
    ok, out = call(url, demo, *as_corpus(secret, "use_uploaded_corpus"), "page-a", A)
    assert ok and "Corpus: secret_A.txt** · 18,900 characters" in out[1]  # A's own upload works
    model = upload(url, "model_A.zip", bundle_bytes(tmp_path, "ABCDEFGH"), A)
    ok, out = call(url, demo, *as_bundle(model), "page-a", A)
    assert ok and "**Loaded** a model" in out[3]
    # B's own upload, whose folder B then climbs out of with ".."
    own = upload(url, "mine.txt", b"B's own words, nothing more.", B)
    climbing = str(Path(own).parent / ".." / Path(secret).parent.name / "secret_A.txt")
    link = temp / "link_to_A.txt"  # a symbolic link into A's file
    link.symlink_to(secret)
    kept = temp / "data" / "returning" / "digest" / "bundle.zip"  # the return store
    kept.parent.mkdir(parents=True)
    shutil.copyfile(model, kept)
    download = temp / "playground" / "workspace-a" / "playground-model-step6.zip"  # A's download
    download.parent.mkdir(parents=True)
    shutil.copyfile(model, download)
    attacks = {"A's upload path": as_corpus(secret),
               "the path relative to the working folder": as_corpus(os.path.relpath(secret)),
               "B's own folder and ..": as_corpus(climbing),
               "a symbolic link": as_corpus(str(link)),
               "the file-upload event": as_corpus(secret, "use_uploaded_corpus"),
               "A's bundle": as_bundle(model),
               "A's bundle in the return store": as_bundle(str(kept)),
               "A's download in another session's folder": as_bundle(str(download))}
    for what, (api_name, data) in attacks.items():
        for page, address in (("page-b", B), ("page-c", A)):  # another network, and A's own
            ok, out = call(url, demo, api_name, data, page, address)
            assert not ok, f"{what} from {address} was accepted: {str(out)[:200]}"
            assert REFUSED in out and "SECRET" not in out and str(temp) not in out, (what, out)
    # B's own upload still works, after all that, and B's corpus is B's
    ok, out = call(url, demo, *as_corpus(own), "page-b", B)
    assert ok and "Corpus: mine.txt" in out[1] and "SECRET" not in out[2]
    mine = upload(url, "model_B.zip", bundle_bytes(tmp_path, "abcdefgh"), B)
    ok, out = call(url, demo, *as_bundle(mine), "page-b", B)
    assert ok and "**Loaded** a model" in out[3]
    # and A's page still reads what it uploaded
    ok, out = call(url, demo, *as_corpus(secret), "page-a", A)
    assert ok and "18,900 characters" in out[1]


def test_every_file_input_of_the_page_is_checked(served):
    """The events that take a file are the ones the test above attacks: a new one must join it."""
    demo, _ = served
    taking_files = {fn.api_name for fn in demo.fns.values()
                    if any(isinstance(block, (gr.File, gr.UploadButton)) for block in fn.inputs)}
    assert taking_files == {"use_corpus", "use_uploaded_corpus", "upload_bundle"}


def test_a_refusal_leaves_the_visitor_s_work_as_it_was_and_speaks_their_language(tmp_path):
    """The handlers, called as the page calls them, with a path the page never uploaded."""
    stranger = tmp_path / "secret_A.txt"
    stranger.write_text(SECRET, encoding="utf-8")
    session = Session(lang="zh-CN")
    session.corpus = from_text("my own corpus")
    request = gr.Request(headers={"x-forwarded-for": B})
    with pytest.raises(gr.Error, match="该文件不是从本页面上传的"):
        corpus_tab.use_corpus_from_page(session, "Upload files", [str(stranger)], "", request)
    with pytest.raises(gr.Error, match="该文件不是从本页面上传的"):
        train_tab.upload_bundle_from_page(session, str(stranger), request)
    assert session.corpus.text == "my own corpus" and session.trained is None


def test_an_upload_is_one_pages_and_waits_a_bounded_time(tmp_path):
    """The ledger itself: resolved paths, one page per upload, forgotten after its wait."""
    folder = tmp_path / "gradio" / "abc"
    folder.mkdir(parents=True)
    path = folder / "notes.txt"
    uploads, page_a, page_b = Uploads(wait_s=60, per_address=2), set(), set()
    uploads.arrived([str(path)], A, now=0.0)
    with pytest.raises(UploadRefused):
        uploads.take(path, B, page_b, now=1.0)  # the right path from another network
    assert uploads.take(tmp_path / "gradio" / "x" / ".." / "abc" / "notes.txt", A, page_a,
                        now=1.0) == os.path.realpath(path)
    with pytest.raises(UploadRefused):
        uploads.take(path, A, page_b, now=2.0)  # taken: not even A's network has it again
    uploads.arrived([str(path)], A, now=3.0)  # the same file uploaded again: a page of its own
    assert uploads.take(path, A, page_b, now=4.0) == os.path.realpath(path)
    uploads.arrived([str(path)], A, now=5.0)
    with pytest.raises(UploadRefused):
        uploads.take(path, A, set(), now=70.0)  # waited past wait_s: forgotten
    for n in range(3):  # at most per_address wait; the oldest goes
        uploads.arrived([str(tmp_path / f"{n}.txt")], A, now=100.0 + n)
    with pytest.raises(UploadRefused):
        uploads.take(tmp_path / "0.txt", A, set(), now=110.0)
    assert uploads.take(tmp_path / "2.txt", A, set(), now=110.0)
