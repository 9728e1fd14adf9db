"""Publishing a bundle: the model card, the upload plan and the Hub push (a fake Hub, never the
network), and their errors in both languages."""

from types import SimpleNamespace

import pytest

from playground.checkpoint import save_bundle
from playground.config import ModelConfig, TrainConfig
from playground.export.publish import (
    BUNDLE_NAME, CARD_NAME, SCRIPT_NAME, ExportError, bundle_info, check_repo_id, hub_upload_plan,
    model_card, push_to_hub, standalone_script,
)
from playground.model import GPT
from playground.tokenizer import train_tokenizer
from playground.train import EndRecord, EvalRecord, StepRecord

from checks import TINY_MODEL, assert_translated

# --- the model card and the Hub -----------------------------------------------------------

HISTORY = [
    EvalRecord(step=0, tokens=0, train_loss=4.2, val_loss=4.2, train_bpc=6.06, val_bpc=6.06, elapsed=0.5),
    StepRecord(step=10, tokens=1280, loss=3.1, lr=1e-3, tokens_per_s=900.0, elapsed=2.0),
    EvalRecord(step=10, tokens=1280, train_loss=3.0, val_loss=3.25, train_bpc=4.33, val_bpc=4.69,
               elapsed=2.5, sample="To be"),
    EndRecord(step=10, reason="done", message="Finished all 10 steps."),
]


@pytest.fixture()
def bundle_path(tiny_text, tmp_path):
    tok = train_tokenizer("char", tiny_text)
    model = GPT(ModelConfig(**dict(TINY_MODEL, n_layer=2, pos="rope"), vocab_size=tok.vocab_size))
    return save_bundle(tmp_path / "run.zip", model, tok, TrainConfig(max_steps=10, lr=3e-3, min_lr=3e-4),
                       history=HISTORY)


def test_model_card_has_front_matter_figures_settings_and_usage(bundle_path):
    info = bundle_info(bundle_path, corpus_name="Tiny Shakespeare")
    card = model_card(info, "alice/tiny-bard")
    front, _, body = card.partition("\n---\n")
    # the metadata as the Hub reads it: huggingface_hub's own parser
    from huggingface_hub import ModelCard

    assert ModelCard(card).data.to_dict() == {
        "library_name": "pytorch", "license": "mit", "pipeline_tag": "text-generation",
        "tags": ["transformer-playground", "text-generation", "gpt", "from-scratch", "char-level"],
        "datasets": ["karpathy/tiny_shakespeare"]}
    assert "# tiny-bard" in body
    assert f"| Parameters | {info.num_params:,} |" in body
    assert "| Training steps | 10 (1,280 tokens seen) |" in body
    assert "| Validation loss | 3.250 nats per token (4.690 bits per character) |" in body
    assert "| Corpus | Tiny Shakespeare |" in body
    assert "| Tokenizer | characters, " in body
    for key, value in info.model_config.items():
        assert f"| `{key}` | `{value}` |" in body
    assert "| `lr` | `0.003` |" in body
    assert "hf download alice/tiny-bard model.zip generate_standalone.py --local-dir ." in body
    assert "huggingface-cli" not in card  # huggingface_hub 1.0 removed it
    assert "python generate_standalone.py model.zip" in body


def test_upload_plan_lists_the_bundle_card_and_script(bundle_path):
    plan = dict(hub_upload_plan(bundle_path, "alice/tiny-bard", "hf_abc"))
    assert list(plan) == [BUNDLE_NAME, CARD_NAME, SCRIPT_NAME]
    assert plan[BUNDLE_NAME] == bundle_path
    assert plan[CARD_NAME].decode() == model_card(bundle_info(bundle_path), "alice/tiny-bard")
    assert plan[SCRIPT_NAME].decode() == standalone_script()


class FakeApi:
    """Records what push_to_hub asks of huggingface_hub.HfApi."""

    def __init__(self, fail_with: Exception | None = None):
        self.calls = []
        self.fail_with = fail_with

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))
        if self.fail_with:
            raise self.fail_with

    def create_commit(self, repo_id, operations, **kwargs):
        self.calls.append(("create_commit", repo_id, list(operations), kwargs))


def test_push_to_hub_creates_the_repo_and_uploads_three_files_in_one_commit(bundle_path):
    api = FakeApi()
    url = push_to_hub(bundle_path, "alice/tiny-bard", "hf_abc", private=True, api=api,
                      corpus_name="Tiny Shakespeare")
    assert url == "https://huggingface.co/alice/tiny-bard"
    (create, repo, create_kwargs), (commit, repo2, operations, commit_kwargs) = api.calls
    assert (create, repo, repo2, commit) == ("create_repo", "alice/tiny-bard", "alice/tiny-bard", "create_commit")
    assert create_kwargs["exist_ok"] is True and create_kwargs["private"] is True
    assert create_kwargs["token"] == commit_kwargs["token"] == "hf_abc"
    uploaded = {op.path_in_repo: op.path_or_fileobj for op in operations}
    assert list(uploaded) == [BUNDLE_NAME, CARD_NAME, SCRIPT_NAME]
    assert uploaded[BUNDLE_NAME] == str(bundle_path)
    card = uploaded[CARD_NAME].decode()
    assert card == model_card(bundle_info(bundle_path, "Tiny Shakespeare"), "alice/tiny-bard")
    assert uploaded[SCRIPT_NAME].decode() == standalone_script()


def test_push_to_hub_turns_a_refused_token_into_a_clear_error(bundle_path):
    refused = RuntimeError("401 Client Error")
    refused.response = SimpleNamespace(status_code=401)
    with pytest.raises(ExportError, match="did not accept the token"):
        push_to_hub(bundle_path, "alice/tiny-bard", "hf_bad", api=FakeApi(fail_with=refused))


@pytest.mark.parametrize("repo_id", ["", "alice", "alice/", "/model", "a/b/c", "alice/my model",
                                     "alice/-model", "alice/model.", "alice/a..b", "alice/a--b",
                                     "alice/" + "m" * 97, "alice/model.git", None, 42])
def test_bad_repo_ids_are_refused_with_the_rule(repo_id):
    with pytest.raises(ExportError, match="must look like user/name"):
        check_repo_id(repo_id)


def test_good_repo_ids_pass():
    for repo_id in ["alice/tiny", "Org-1/model_v2.1", "a/b", " bob/gpt "]:
        assert check_repo_id(repo_id) == repo_id.strip()


@pytest.mark.parametrize("token", ["", "   ", None, "hf abc"])
def test_a_missing_or_broken_token_is_refused_before_any_network(bundle_path, token):
    api = FakeApi()
    with pytest.raises(ExportError, match="token"):
        push_to_hub(bundle_path, "alice/tiny-bard", token, api=api)
    assert api.calls == []


# --- the page's language ------------------------------------------------------------------

def _hub_error(status=None, name="RuntimeError", text="500 Server Error: boom"):
    error = type(name, (Exception,), {})(text)
    if status is not None:
        error.response = SimpleNamespace(status_code=status)
    return error


@pytest.mark.parametrize("error, english, names", [
    (_hub_error(401), "The Hub did not accept the token: check that it is valid and has write access.", ()),
    (_hub_error(403), "The token may not write to alice/tiny-bard: use a token with write access, and a "
                      "user or organisation name it belongs to.", ("alice/tiny-bard",)),
    (_hub_error(name="ConnectionError"), "The Hugging Face Hub cannot be reached from here.", ("Hugging Face Hub",)),
    (_hub_error(), "Pushing to the Hub failed: 500 Server Error: boom", ("500 Server Error: boom",)),
], ids=["401", "403", "offline", "other"])
def test_hub_failures_read_the_same_in_english_and_translate(bundle_path, error, english, names):
    with pytest.raises(ExportError) as caught:
        push_to_hub(bundle_path, "alice/tiny-bard", "hf_abc", api=FakeApi(fail_with=error))
    assert_translated(caught.value, english, names)


@pytest.mark.parametrize("repo_id, token, english, names", [
    ("alice/my model", "hf_abc", "The repository must look like user/name: letters, digits, '-', '_' and "
     "'.', each part starting and ending with a letter or digit, at most 96 characters; got 'alice/my model'.",
     ("'alice/my model'",)),
    ("alice/tiny", " ", "Pushing to the Hub needs a Hugging Face token with write access "
     "(huggingface.co/settings/tokens).", ("huggingface.co/settings/tokens",)),
    ("alice/tiny", "hf abc", "The token has spaces in it; copy it again from huggingface.co/settings/tokens.",
     ("huggingface.co/settings/tokens",)),
])
def test_bad_repo_ids_and_tokens_read_the_same_in_english_and_translate(repo_id, token, english, names):
    with pytest.raises(ExportError) as caught:
        hub_upload_plan("unused.zip", repo_id, token)
    assert_translated(caught.value, english, names)
