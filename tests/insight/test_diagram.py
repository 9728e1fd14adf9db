"""The diagram follows the config: its parts, their order and counts change with n_layer, pos
and norm_placement, each part's count is that of the module it draws, and they add up to
``GPT.num_params``."""

import itertools
import re

import pytest

from playground.config import ModelConfig
from playground.insight.diagram import diagram_html, model_parts, total_params
from playground.model import GPT

from checks import CJK

BASE = dict(vocab_size=65, block_size=32, n_layer=2, n_head=4, n_embd=32)
VARIANTS = [dict(zip(("pos", "norm_placement", "activation", "norm", "bias", "tie_weights"), v))
            for v in itertools.product(("learned", "sinusoidal", "rope", "none"), ("pre", "post"),
                                       ("gelu", "swiglu", "relu2"), ("layernorm", "rmsnorm"),
                                       (False, True), (True, False))]


def count(module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("variant", VARIANTS + [dict(qk_norm=True, pos="rope"),
                                                dict(scale_embedding=True, mlp_ratio=2.5),
                                                dict(token_shift=True, activation="swiglu")],
                         ids=lambda v: "-".join(map(str, v.values())))
def test_each_part_counts_the_parameters_of_its_module_and_all_add_up(variant):
    cfg = ModelConfig(**BASE, **variant)
    model = GPT(cfg)
    assert total_params(cfg) == model.num_params()
    block = model.blocks[0]
    modules = {"tok_emb": model.tok_emb, "pos": model.pos_emb, "ln_1": block.ln_1,
               "attn": block.attn, "ln_2": block.ln_2, "mlp": block.mlp, "ln_f": model.ln_f}
    for part in model_parts(cfg):
        if part.key in modules:
            assert part.params == count(modules[part.key]), part.key
    head = next(p for p in model_parts(cfg) if p.key == "lm_head")
    assert head.params == (0 if cfg.tie_weights else count(model.lm_head))


def keys(**changes):
    return [p.key for p in model_parts(ModelConfig(**{**BASE, **changes}))]


def test_norm_placement_reorders_the_block_and_drops_the_final_norm():
    assert keys(norm_placement="pre") == ["tok_emb", "pos", "ln_1", "attn", "add_1", "ln_2", "mlp",
                                          "add_2", "ln_f", "lm_head", "softmax"]
    assert keys(norm_placement="post") == ["tok_emb", "pos", "attn", "add_1", "ln_1", "mlp",
                                           "add_2", "ln_2", "lm_head", "softmax"]
    pre, post = (diagram_html(ModelConfig(**BASE, norm_placement=p)) for p in ("pre", "post"))
    assert "(pre-norm)" in pre and "(post-norm)" in post
    assert pre.index('data-part="ln_1"') < pre.index('data-part="attn"')
    assert post.index('data-part="attn"') < post.index('data-part="ln_1"')


def test_n_layer_and_pos_change_the_drawing():
    two, six = (diagram_html(ModelConfig(**{**BASE, "n_layer": n})) for n in (2, 6))
    assert "Block × 2" in two and "Block × 6" in six
    assert f"{total_params(ModelConfig(**{**BASE, 'n_layer': 6})):,} parameters in all" in six
    drawings = {pos: diagram_html(ModelConfig(**BASE, pos=pos))
                for pos in ("learned", "sinusoidal", "rope", "none")}
    assert len(set(drawings.values())) == 4
    assert "learned positions" in drawings["learned"] and "RoPE" in drawings["rope"]
    learned = next(p for p in model_parts(ModelConfig(**BASE)) if p.key == "pos")
    assert learned.params == BASE["block_size"] * BASE["n_embd"]


def test_every_part_says_what_it_does_on_hover_and_on_a_tap_in_both_languages():
    cfg = ModelConfig(**BASE, scale_embedding=True, qk_norm=True, pos="rope")
    page = diagram_html(cfg)
    parts = model_parts(cfg)
    assert page.count("<details") == len(parts) and page.count("<summary title=") == len(parts)
    assert "√32 = 5.66" in page and "divided by √8" in page and "causal mask" in page
    chinese = diagram_html(cfg, "zh-CN")
    notes = re.findall(r"<p[^>]*>(.*?)</p>", chinese)
    assert len(notes) == len(parts) + 1 and all(CJK.search(note) for note in notes)
