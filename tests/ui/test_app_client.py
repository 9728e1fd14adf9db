"""The app launched in this process and driven through its API with ``gradio_client``."""

import json
import threading
from contextlib import contextmanager

import pytest
from gradio_client import Client, handle_file

from checks import page_settings


@contextmanager
def client_for(url):
    client = Client(url, verbose=False, analytics_enabled=False)
    try:
        yield client
    finally:
        client.close()


def run_flow(url, text, prompt):
    """Corpus -> tokenizer -> training -> generation -> attention, in one client session."""
    with client_for(url) as client:
        summary, preview = client.predict("Paste text", None, text, api_name="/use_corpus")
        assert f"{len(text):,} characters" in summary
        summary, _, _ = client.predict("char", 512, api_name="/train_tokenizer")
        assert f"{len(set(text))} tokens in the vocabulary" in summary
        updates = list(client.submit(False, *page_settings(), api_name="/train_model"))
        plot, status, samples, download, coach = updates[-1]
        assert "Finished all 6 steps" in status
        steps = json.loads(plot["plot"])["data"][0]["x"]
        assert steps == [1, 2, 3, 4, 5, 6]
        text_out, chart = list(client.submit(prompt, 12, 0.8, 0, 1.0, 1, api_name="/generate"))[-1]
        assert text_out.startswith(prompt) and len(text_out) == len(prompt) + 12
        out = client.predict("", 0, 0, api_name="/show_attention")
        shown, heatmap = out[0], out[3]
        assert shown == text_out[:64]
        assert json.loads(heatmap["plot"])["data"][0]["type"] == "heatmap"
        return text


def test_full_flow_through_the_api(app_url, tiny_text, tmp_path):
    run_flow(app_url, tiny_text, "First")


def test_two_clients_keep_separate_state(app_url, tiny_text):
    """Two sessions at once, each with its own text: each model writes only its own letters."""
    texts = {"latin": "abcdefgh ijklmnop\n" * 300, "digits": "0123 4567 89\n" * 400}
    results, errors = {}, []

    def one(name):
        try:
            with client_for(app_url) as client:
                client.predict("Paste text", None, texts[name], api_name="/use_corpus")
                client.predict("char", 512, api_name="/train_tokenizer")
                list(client.submit(False, *page_settings(), api_name="/train_model"))
                prompt = texts[name][:4]
                results[name] = list(client.submit(prompt, 30, 1.0, 0, 1.0, 5,
                                                   api_name="/generate"))[-1][0]
        except Exception as error:  # surfaced in the main thread below
            errors.append(error)

    threads = [threading.Thread(target=one, args=(name,)) for name in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert set(results["latin"]) <= set(texts["latin"])
    assert set(results["digits"]) <= set(texts["digits"])


def test_errors_reach_the_client_as_messages(app_url, tmp_path):
    from gradio_client.exceptions import AppError

    with client_for(app_url) as client:
        # a new session generates with the ready-made model; exporting asks for one's own
        text, _ = client.predict("hi", 5, 1.0, 0, 1.0, 0, api_name="/generate")
        assert text.startswith("hi") and len(text) == 7
        with pytest.raises(AppError, match="ready-made one that comes with the playground"):
            client.predict(api_name="/export_script")
        bad = tmp_path / "bad.txt"
        bad.write_bytes(b"\xff\xfe\x00h\x00i")
        with pytest.raises(AppError, match="UTF-16"):
            client.predict("Upload files", [handle_file(str(bad))], "", api_name="/use_corpus")


def test_the_api_takes_settings_by_name(app_url, tiny_text):
    """/train_model and /share_link name every setting as the configs do; those left out are
    the page's default preset's."""
    from playground.config import DEFAULT_PRESET, PRESETS
    from playground.export.links import SAMPLING_KEYS
    from playground.ui import train_tab

    with client_for(app_url) as client:
        api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
        names = {endpoint: [p["parameter_name"] for p in api[endpoint]["parameters"]]
                 for endpoint in ("/train_model", "/share_link", "/train_one_change")}
        assert names["/train_model"] == ["continue_training", *train_tab.SETTINGS]
        assert names["/train_one_change"] == names["/train_model"]
        assert names["/share_link"] == ["source", "kind", "vocab_size", *train_tab.SETTINGS,
                                        *SAMPLING_KEYS]
        defaults = {p["parameter_name"]: p["parameter_default"]
                    for p in api["/train_model"]["parameters"]}
        assert defaults["max_steps"] == PRESETS[DEFAULT_PRESET].train.max_steps

        client.predict("Paste text", None, tiny_text, api_name="/use_corpus")
        plot, status, *_ = client.predict(n_layer=1, n_embd=16, n_head=2, block_size=16,
                                          max_steps=3, eval_interval=3, eval_iters=1,
                                          api_name="/train_model")
        assert "Finished all 3 steps" in status
        assert json.loads(plot["plot"])["data"][0]["x"] == [1, 2, 3]
        link = client.predict(n_layer=3, max_steps=500, top_k=7, api_name="/share_link")
        assert "n_layer=3" in link and "max_steps=500" in link and "top_k=7" in link
