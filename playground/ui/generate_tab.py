"""Tab 4, Generate: the model writes text after a prompt, streamed token by token.

Also shows the ten most likely next tokens, with their probabilities, at the last step.
"""

from __future__ import annotations

import time

import gradio as gr

from playground.generate import generate
from playground.plots import next_token_figure
from playground.ui.session import Session, ensure, friendly_errors, require_model

PUSHES_PER_S = 10


def _none_if_off(value: float | None, off: float) -> float | None:
    return None if value is None or value == off else value


@friendly_errors
def generate_text(session: Session | None, prompt: str, max_new_tokens: float, temperature: float,
                  top_k: float, top_p: float, seed: float):
    """Stream (session, text, next-token figure) as the model writes.

    ``top_k`` 0 and ``top_p`` 1 switch those filters off; ``seed`` 0 draws a new text each time.
    """
    session = ensure(session)
    require_model(session, "generate with")
    model, tokenizer = session.model, session.model_tokenizer
    max_new_tokens = int(max_new_tokens)
    if not 1 <= max_new_tokens <= 5000:
        raise ValueError("Maximum new tokens must be between 1 and 5,000.")
    steps = generate(model, tokenizer, prompt or "", max_new_tokens=max_new_tokens,
                     temperature=float(temperature), top_k=_none_if_off(int(top_k), 0),
                     top_p=_none_if_off(float(top_p), 1.0), seed=int(seed) or None)
    text, top, last_push = prompt or "", [], 0.0
    for step in steps:
        text += step.text
        top = step.top
        now = time.monotonic()
        if now - last_push >= 1 / PUSHES_PER_S:
            last_push = now
            yield session, text, gr.skip()
    session.last_prompt, session.last_text = prompt or "", text
    yield session, text, next_token_figure(top, title="The 10 likeliest next tokens")


def build(session: gr.State, concurrency_limit: int) -> dict[str, gr.components.Component]:
    gr.Markdown("The trained model continues your prompt, one token at a time. Each token is "
                "drawn at random from the model's prediction; the controls shape that draw.")
    with gr.Row():
        with gr.Column(scale=2):
            prompt = gr.Textbox("ROMEO:", label="Prompt", lines=2,
                                info="The text the model continues (it may be empty).")
            with gr.Row():
                max_new_tokens = gr.Slider(1, 2000, value=300, step=1, label="Maximum new tokens",
                                           info="How many tokens to write.")
                temperature = gr.Slider(0.0, 2.0, value=0.8, step=0.05, label="Temperature",
                                        info="Lower is safer and more repetitive; 0 always takes "
                                             "the likeliest token; higher is wilder.")
            with gr.Row():
                top_k = gr.Slider(0, 200, value=0, step=1, label="Top-k",
                                  info="Draw only among the k likeliest tokens (0: all).")
                top_p = gr.Slider(0.05, 1.0, value=1.0, step=0.05, label="Top-p",
                                  info="Draw only among the likeliest tokens that together "
                                       "reach this probability (1: all).")
                seed = gr.Number(0, label="Seed", precision=0, minimum=0,
                                 info="0 writes a new text each time; another number repeats "
                                      "the same text.")
            button = gr.Button("Generate", variant="primary")
        with gr.Column(scale=1):
            chart = gr.Plot(label="The next token: the model's ten favourites",
                            elem_id="next-token-chart")
    output = gr.Textbox(label="Generated text (your prompt, then the model's words)", lines=14,
                        max_lines=30, interactive=False, autoscroll=True, buttons=["copy"],
                        elem_id="generated-text")
    event = button.click(generate_text, [session, prompt, max_new_tokens, temperature, top_k, top_p, seed],
                 [session, output, chart], concurrency_limit=concurrency_limit,
                 concurrency_id="compute", show_progress_on=[output], api_name="generate")
    return {"event": event, "output": output}
