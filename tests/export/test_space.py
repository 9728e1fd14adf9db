"""Ready for a Space, checked offline: the front matter the Hub reads, the model card's metadata
and instructions, "Sign in with Hugging Face" wired to the push (the token Gradio hands over is
the one pushed with), and share links that point at the Space's page."""

import re
from pathlib import Path

import gradio as gr
import pytest
import yaml
from huggingface_hub import ModelCard, SpaceCard

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.export.links import decode_settings
from playground.export.publish import bundle_info, model_card, space_page
from playground.model import GPT
from playground.runtime import hosting
from playground.runtime.hosting import Hosting
from playground.tokenizer import train_tokenizer
from playground.train import EvalRecord
from playground.ui import export_tab
from playground.trained import TrainedModel
from playground.ui.session import Session

from checks import REPO, TINY_MODEL, page_settings

SPACE = "alice/playground"
# the hardware flavours the Spaces configuration reference accepts for suggested_hardware
FLAVOURS = {"cpu-basic", "cpu-upgrade", "t4-small", "t4-medium", "l4x1", "l4x4", "l40sx1",
            "l40sx4", "l40sx8", "a10g-small", "a10g-large", "a10g-largex2", "a10g-largex4",
            "a100-large", "a100x4", "a100x8"}


def front_matter() -> dict:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return SpaceCard(text).data.to_dict()  # huggingface_hub's own reading of it


# --- the Space's front matter -------------------------------------------------------------------

def test_the_front_matter_is_a_gradio_space_on_python_3_10_at_the_tested_gradio():
    data = front_matter()
    pinned = re.search(r"^gradio==(\S+)$", (REPO / "requirements-dev.txt").read_text(), re.M)
    assert data["sdk"] == "gradio" and data["sdk_version"] == pinned.group(1)
    assert data["python_version"] == "3.10.13"  # ZeroGPU's Python, and a string, not 3.1
    assert (REPO / data["app_file"]).is_file()


def test_the_front_matter_asks_for_sign_in_with_write_access_and_describes_the_space():
    data = front_matter()
    assert data["hf_oauth"] is True
    assert "write-repos" in data["hf_oauth_scopes"]
    assert set(data["hf_oauth_scopes"]) <= {"write-repos", "contribute-repos", "read-repos"}
    assert data["datasets"] == ["karpathy/tiny_shakespeare"]
    assert data["tags"] and all(re.fullmatch(r"[a-z0-9-]+", tag) for tag in data["tags"])
    assert data["suggested_hardware"] in FLAVOURS
    assert data["fullWidth"] is True


def test_python_version_is_quoted_in_the_yaml_itself():
    """Unquoted, YAML reads 3.10 as the float 3.1: the text must hold a string."""
    head = (REPO / "README.md").read_text(encoding="utf-8").split("---")[1]
    assert isinstance(yaml.safe_load(head)["python_version"], str)


# --- the model card -----------------------------------------------------------------------------

@pytest.fixture()
def bundle_path(tiny_text, tmp_path):
    tok = train_tokenizer("char", tiny_text)
    model = GPT(ModelConfig(**TINY_MODEL, vocab_size=tok.vocab_size))
    history = [EvalRecord(step=0, tokens=0, train_loss=4.2, val_loss=4.2, train_bpc=6.0,
                          val_bpc=6.0, elapsed=0.5)]
    return save_bundle(tmp_path / "run.zip", model, tok, TrainConfig(max_steps=10), history)


def test_the_card_metadata_is_what_huggingface_hub_reads_back(bundle_path):
    card = ModelCard(model_card(bundle_info(bundle_path, "Tiny Shakespeare"), "alice/bard"))
    assert card.data.library_name == "pytorch" and card.data.pipeline_tag == "text-generation"
    assert card.data.datasets == ["karpathy/tiny_shakespeare"]
    assert "char-level" in card.data.tags
    # a text of one's own is no dataset of the Hub's
    own = ModelCard(model_card(bundle_info(bundle_path, "diary.txt"), "alice/bard"))
    assert own.data.datasets is None


def test_the_card_says_hf_download_not_the_removed_huggingface_cli(bundle_path):
    card = model_card(bundle_info(bundle_path), "alice/bard")
    assert "hf download alice/bard model.zip generate_standalone.py --local-dir ." in card
    assert "huggingface-cli" not in card


# --- sign in to push ----------------------------------------------------------------------------

def on_a_space(monkeypatch, space: str | None) -> None:
    """The environment a Space with ``hf_oauth: true`` runs in (its OAuth app's variables,
    which Gradio reads when imported), or none of it."""
    import gradio.oauth

    names = {"SYSTEM": "spaces", "SPACE_ID": space}
    oauth = {"OAUTH_CLIENT_ID": "client", "OAUTH_CLIENT_SECRET": "secret",
             "OAUTH_SCOPES": "openid profile write-repos contribute-repos",
             "OPENID_PROVIDER_URL": "https://huggingface.co"}
    for name, value in names.items():
        if space:
            monkeypatch.setenv(name, value)
        else:
            monkeypatch.delenv(name, raising=False)
    for name, value in oauth.items():
        monkeypatch.setattr(gradio.oauth, name, value if space else None)
    hosting.use(Hosting.from_env())  # the Space's settings as the app reads them (Gradio reads
    #   SYSTEM and SPACE_ID itself, hence the environment too)


def export_page(monkeypatch, space: str | None) -> gr.Blocks:
    on_a_space(monkeypatch, space)
    with gr.Blocks() as demo:  # Gradio builds its server here, OAuth routes included
        export_tab.build(gr.State(None), 1)
    return demo


def token_box(demo: gr.Blocks) -> gr.Textbox:
    return next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "hub-token")


def test_on_a_space_the_page_signs_in_and_has_no_token_box(monkeypatch):
    demo = export_page(monkeypatch, SPACE)
    assert any(isinstance(b, gr.LoginButton) for b in demo.blocks.values())
    assert demo.expects_oauth
    routes = {getattr(route, "path", "") for route in demo.app.routes}
    assert {"/login/huggingface", "/login/callback", "/logout"} <= routes
    assert token_box(demo).visible is False


def test_run_locally_the_page_keeps_the_token_box_and_needs_no_oauth(monkeypatch):
    demo = export_page(monkeypatch, None)
    assert not any(isinstance(b, gr.LoginButton) for b in demo.blocks.values())
    assert not demo.expects_oauth  # so no OAuth packages are needed to launch it
    assert token_box(demo).visible is True


@pytest.fixture()
def with_bundle(bundle_path):
    bundle = bundle_info(bundle_path)
    model = GPT(ModelConfig.from_dict(bundle.model_config))
    tok = train_tokenizer("char", "abc")
    return Session(trained=TrainedModel(model, tok, model.config, TrainConfig(),
                                        bundle_path=str(bundle_path)))


def test_the_signed_in_visitors_token_is_the_one_pushed_with(monkeypatch, with_bundle):
    demo = export_page(monkeypatch, SPACE)
    pushed = []
    monkeypatch.setattr(export_tab, "push_to_hub", lambda path, repo, token, **kw: (
        pushed.append((repo, token)) or f"https://huggingface.co/{repo}"))
    push = next(f.fn for f in demo.fns.values() if f.name == "push")
    # what Gradio does with a signed-in visitor's event: its own injection of gr.OAuthToken
    from gradio.helpers import special_args

    signed_in = gr.OAuthToken(token="hf_oauth_visitor", scope="openid profile write-repos",
                              expires_at=2**40)
    inputs, *_ = special_args(push, [with_bundle, "bob/bard", "", False], token=signed_in)
    assert push(*inputs) == "Uploaded to https://huggingface.co/bob/bard."
    assert pushed == [("bob/bard", "hf_oauth_visitor")]


def test_on_a_space_a_push_before_signing_in_says_to_sign_in(monkeypatch, with_bundle):
    on_a_space(monkeypatch, SPACE)
    monkeypatch.setattr(export_tab, "push_to_hub", lambda *a, **k: pytest.fail("pushed"))
    with pytest.raises(gr.Error) as refused:
        export_tab.push(with_bundle, "bob/bard", "hf_typed_into_the_box", False, None)
    assert "Sign in with Hugging Face first" in refused.value.message


# --- share links --------------------------------------------------------------------------------

def test_on_a_space_share_links_point_at_the_space_page(monkeypatch):
    on_a_space(monkeypatch, SPACE)
    inner = gr.Request(headers={"referer": "https://alice-playground.hf.space/?__theme=dark"})
    link = export_tab.make_link(inner, "Tiny Shakespeare", "char", 512, *page_settings(n_layer=3))
    assert link.startswith("https://huggingface.co/spaces/alice/playground?v=1&")
    assert decode_settings(link).settings["n_layer"] == 3


def test_the_space_page_comes_from_space_id_only_when_it_is_a_repository_name():
    page = space_page(Hosting.from_env({"SPACE_ID": SPACE}))
    assert page == "https://huggingface.co/spaces/alice/playground"
    for bad in ("", "alice", "alice/../x", "a/b/c", "alice/play ground"):
        assert space_page(Hosting.from_env({"SPACE_ID": bad})) is None


def test_locally_share_links_keep_the_pages_own_address(monkeypatch):
    on_a_space(monkeypatch, None)
    request = gr.Request(headers={"referer": "http://127.0.0.1:7860/"})
    assert export_tab.make_link(request, "Tiny Shakespeare", "char", 512,
                                *page_settings()).startswith("http://127.0.0.1:7860/?v=1&")


def test_readme_documents_the_zerogpu_and_sign_in_steps():
    text = Path(REPO / "README.md").read_text(encoding="utf-8")
    hosting = text.split("## Hosting on a Hugging Face Space", 1)[1].split("\n## ", 1)[0]
    for needed in ("torch==2.11.0", "spaces", "3.10", "gr.LoginButton", "gr.OAuthToken",
                   "hf download", "huggingface.co/spaces/<SPACE_ID>"):
        assert needed in hosting, needed
