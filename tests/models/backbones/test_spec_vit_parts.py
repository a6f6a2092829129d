"""SpecViT builds each block from its parts: the blocks equal ones built from explicit parts,
and the backbone's init is each module's own (the rule SpecViT once applied by parameter
name, reproduced here)."""

import inspect
from functools import partial

import pytest
import torch
from mmengine.model.weight_init import trunc_normal_
from torch import nn

from vitspec.layers import Attention, Block, LayerNorm, LayerScale, Mlp, NoLayerScale, TokenLayout
from vitspec.layers.specialized import (
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
)
from vitspec.layers.swiglu import SwiGLU, swiglu_hidden
from vitspec.layers.talking_heads import TalkingHeadAttention
from vitspec.models import SpecViT

TOY = dict(img_size=32, patch_size=8, embed_dims=64, num_layers=3, num_heads=4)
LORA = partial(SpecializedLinear, lora_rank=4)
CASES = {
    'plain': (
        dict(),
        0,
        lambda: Block(64, partial(Attention, num_heads=4), partial(Mlp, hidden=256)),
    ),
    'layer_scale': (
        dict(layer_scale_init=0.1),
        2,
        lambda: Block(
            64,
            partial(Attention, num_heads=4),
            partial(Mlp, hidden=256),
            ls_layer=partial(LayerScale, init_value=0.1),
        ),
    ),
    'specialized': (
        dict(layer_scale_init=0.1, num_register_tokens=2, specialize=dict(registers='cls')),
        0,
        lambda: Block(
            64,
            partial(Attention, num_heads=4, qkv_layer=SpecializedLinear),
            partial(Mlp, hidden=256),
            norm_layer=SpecializedLayerNorm,
            ls_layer=partial(SpecializedLayerScale, init_value=0.1),
        ),
    ),
    'norms_only': (
        dict(layer_scale_init=0.1, specialize=dict(layer_scale=False)),
        1,
        lambda: Block(
            64,
            partial(Attention, num_heads=4),
            partial(Mlp, hidden=256),
            norm_layer=SpecializedLayerNorm,
            ls_layer=partial(LayerScale, init_value=0.1),
        ),
    ),
    'lora_swiglu_window': (
        dict(
            layer_scale_init=0.1,
            specialize=dict(lora_rank=4),
            ffn_type='swiglu',
            window_size=2,
            global_attn_indexes=(1,),
            rel_pos_bias='decomposed',
        ),
        0,
        lambda: Block(
            64,
            partial(
                Attention,
                num_heads=4,
                qkv_layer=LORA,
                window_size=2,
                rel_pos_bias='decomposed',
                rel_pos_size=(2, 2),
            ),
            partial(SwiGLU, hidden=swiglu_hidden(256)),
            norm_layer=SpecializedLayerNorm,
            ls_layer=partial(SpecializedLayerScale, init_value=0.1),
        ),
    ),
    'talking_heads_layerwise': (
        dict(talking_heads=True, layerwise_scaling=dict(head_dim=16)),
        0,
        lambda: Block(
            64, partial(TalkingHeadAttention, num_heads=2, head_dim=16), partial(Mlp, hidden=64)
        ),
    ),
}


def randomize(module):
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(std=0.1)
    return module


@pytest.mark.parametrize('name', CASES)
def test_block_from_explicit_parts_equals_the_one_spec_vit_builds(name):
    kw, index, explicit = CASES[name]
    torch.manual_seed(0)
    model = randomize(SpecViT(**TOY, **kw)).eval()
    built = model.blocks[index]
    ours = explicit().eval()
    ours.load_state_dict(built.state_dict())  # strict: the same parameter names and shapes
    assert [(n, type(m)) for n, m in ours.named_modules()] == [
        (n, type(m)) for n, m in built.named_modules()
    ]
    layout = TokenLayout(model.num_cls, (4, 4))
    x = torch.randn(2, model.num_prefix_tokens + 16, 64)
    with torch.no_grad():
        assert torch.equal(ours(x, layout), built(x, layout))


def test_block_accepts_built_modules():
    torch.manual_seed(0)
    attn, mlp = Attention(32, 2), Mlp(32, 64)
    block = Block(32, attn, mlp)
    assert block.attn is attn and block.mlp is mlp
    assert isinstance(block.norm1, LayerNorm) and isinstance(block.ls1, NoLayerScale)
    assert block.norm1 is not block.norm2


def test_attention_and_mlp_read_the_layout_in_the_same_place():
    for part in (Attention, TalkingHeadAttention, Mlp, SwiGLU, Block):
        params = list(inspect.signature(part.forward).parameters)
        assert params[1:] == ['x', 'layout'], part  # LayerScale is the block's, as in timm


def test_what_block_parts_cannot_build_is_refused_by_the_options():
    with pytest.raises(ValueError, match="ffn_type='geglu': must be 'mlp' or 'swiglu'"):
        SpecViT(**TOY, ffn_type='geglu')
    with pytest.raises(ValueError, match='needs a backbone with LayerScale'):
        SpecViT(**TOY, specialize=dict(layer_scale=True))


def init_by_parameter_name(model):
    """The init SpecViT.init_weights applied by matching parameter names."""
    trunc_normal_(model.pos_embed, std=0.02)
    for token in (model.cls_token, model.reg_token):
        if token is not None:
            nn.init.normal_(token, std=1e-6)
    for m in model.modules():
        if isinstance(m, (nn.Linear, SpecializedLinear)):
            for name, p in m.named_parameters(recurse=False):
                if name in ('weight', 'cls_weight', 'cls_lora_a'):
                    trunc_normal_(p, std=0.02)
                elif name in ('bias', 'cls_bias', 'cls_lora_b'):
                    nn.init.zeros_(p)


@pytest.mark.parametrize(
    'kw',
    [
        dict(layer_scale_init=0.1, num_register_tokens=2, specialize=dict(qkv_blocks='all')),
        dict(layer_scale_init=0.1, specialize=dict(lora_rank=4), ffn_type='swiglu'),
        dict(
            layer_scale_init=0.1, pos_embed_cls=False, num_class_attn_layers=2, talking_heads=True
        ),
        dict(
            with_cls_token=False,
            pos_embed_cls=False,
            window_size=2,
            rel_pos_bias='decomposed',
            qkv_bias=False,
        ),
    ],
    ids=['specialized', 'lora_swiglu', 'cait', 'vitdet'],
)
def test_init_weights_equals_the_name_matching_init(kw):
    models = []
    for init in (init_by_parameter_name, SpecViT.init_weights):
        torch.manual_seed(0)
        model = SpecViT(**TOY, **kw)
        torch.manual_seed(1)
        init(model)
        models.append(model.state_dict())
    old, new = models
    assert old.keys() == new.keys()
    for key in old:
        assert torch.equal(old[key], new[key]), key
