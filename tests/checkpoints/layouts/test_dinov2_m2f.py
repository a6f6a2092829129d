"""DINOv2's released ADE20K segmentor (ViT-g/14 + ViT-Adapter + Mask2Former) and ViT-Adapter's own
checkpoints, converted: synthetic weights in their key layout (dinov2_m2f_reference.py, read from
DINOv2's segmentation_m2f code) give, through mmseg's Mask2FormerHead built from our ADE20K
Mask2Former fragment (at toy sizes), the class and mask predictions of the reference after every
decoder layer; the backbone's tensors land in our ViTAdapter, its ViT under ``vit.``."""

import pytest
import torch

from tests.checkpoints import dinov2_m2f_reference as ref
from tests.checkpoints.m2f_reference import synthetic
from tests.checkpoints.m2f_toy import DEC, HEADS, adapter_maps, build_toy_head, released_head
from tests.utils import ROOT
from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.layouts.dinov2_m2f import from_dinov2_adapter
from vitspec.checkpoints.layouts.head_formats import (
    adapter_tensors,
    convert_adapter_state_dict,
    convert_head_state_dict,
)
from vitspec.errors import CheckpointError
from vitspec.models.vit_adapter import ViTAdapter

FRAGMENT = ROOT / 'configs' / '_base_' / 'models' / 'mask2former_head_ade20k.py'


def released(seed=0):
    return released_head(ref, seed=seed)


def converted_head(sd):
    head_sd, others = convert_head_state_dict(sd, 'dinov2', 'Mask2FormerHead')
    head = build_toy_head(FRAGMENT)
    load_state_dict_strict(head, head_sd, source='released')
    return head.eval(), others


def test_class_and_mask_predictions_equal_the_reference():
    """Every layer's class logits and masks (the queries alone, then each decoder layer)."""
    sd = released()
    head, others = converted_head(sd)
    feats = adapter_maps()
    with torch.no_grad():
        logits, masks = head(feats, [dict(img_shape=(64, 96))] * 2)
        want_logits, want_masks = ref.m2f_head(sd, feats, HEADS)
    assert others == []
    assert len(logits) == len(want_logits) == DEC + 1
    for i, (ours, theirs) in enumerate(zip(logits, want_logits)):
        torch.testing.assert_close(ours, theirs, atol=2e-5, rtol=1e-4, msg=f'logits {i}')
    for i, (ours, theirs) in enumerate(zip(masks, want_masks)):
        torch.testing.assert_close(ours, theirs, atol=2e-5, rtol=1e-4, msg=f'masks {i}')


def test_a_swapped_attention_changes_the_prediction():
    """attentions.0 is the cross-attention (operation order cross_attn first): loading it as
    the self-attention would pass a strict load and predict something else."""
    sd = released()
    swapped = {}
    for key, value in sd.items():
        key = key.replace('.attentions.0.attn.', '.TMP.').replace(
            '.attentions.1.attn.', '.attentions.0.attn.'
        )
        swapped[key.replace('.TMP.', '.attentions.1.attn.')] = value
    head, _ = converted_head(swapped)
    feats = adapter_maps()
    with torch.no_grad():
        logits, _ = head(feats, [dict(img_shape=(64, 96))] * 2)
        want, _ = ref.m2f_head(sd, feats, HEADS)
    assert not torch.allclose(logits[-1], want[-1], atol=1e-3)


def test_an_unknown_head_key_is_named():
    sd = released()
    sd['decode_head.pixel_decoder.encoder.layers.0.attentions.1.value_proj.weight'] = torch.ones(1)
    with pytest.raises(
        CheckpointError, match=r'keys of no known part: .*attentions\.1\.value_proj'
    ):
        converted_head(sd)


VIT = dict(
    type='SpecViT', img_size=32, patch_size=8, embed_dims=32, num_layers=4, num_heads=2,
    layer_scale_init=1e-5, final_norm=False,
)  # fmt: skip
ADAPTER = dict(
    interaction_indexes=[0, 1, 2, 3], deform_num_heads=2, conv_inplane=8, deform_ratio=0.5,
    norm_cfg=dict(type='BN'),
)  # fmt: skip


def released_backbone(swiglu=False, vit=VIT, seed=2):
    layout = ref.vit_layout(32, 4, 128, 8, 4, swiglu=swiglu) | ref.adapter_layout(32, 8, 2, 4)
    return synthetic(layout, ref.BACKBONE, seed=seed)


def test_the_backbone_lands_in_our_adapter_its_vit_under_vit():
    sd = released_backbone()
    ours = ViTAdapter(vit=VIT, **ADAPTER)
    state = convert_adapter_state_dict(sd, 'dinov2', 'ViTAdapter', ours.state_dict())
    load_state_dict_strict(ours, state, source='released')
    got = ours.state_dict()
    src = {k[len(ref.BACKBONE) :]: v for k, v in sd.items()}
    assert torch.equal(got['vit.blocks.2.ls1.gamma'], src['blocks.2.gamma1'])
    assert torch.equal(got['vit.blocks.3.ls2.gamma'], src['blocks.3.gamma2'])
    assert torch.equal(got['vit.pos_embed'], src['pos_embed'])
    assert torch.equal(got['vit.blocks.0.attn.qkv.weight'], src['blocks.0.attn.qkv.weight'])
    assert torch.equal(got['interactions.1.injector.gamma'], src['interactions.1.injector.gamma'])
    assert torch.equal(got['spm.stem.4.running_var'], src['spm.stem.4.running_var'])
    # the ViT comes from the file; only its final norm (none in DINOv2's, unused with
    # final_norm=False) from the config's backbone
    own = from_dinov2_adapter(adapter_tensors(sd, 'dinov2'))
    assert sorted(state.keys() - own.keys()) == ['vit.norm.bias', 'vit.norm.weight']


def test_vit_g_swiglu_is_packed_gate_first():
    sd = {k[len(ref.BACKBONE) :]: v for k, v in released_backbone(swiglu=True).items()}
    state = from_dinov2_adapter(sd)
    fc1 = state['vit.blocks.1.mlp.fc1.weight']
    assert torch.equal(fc1, torch.cat([sd['blocks.1.mlp.w1.weight'], sd['blocks.1.mlp.w2.weight']]))
    assert torch.equal(state['vit.blocks.1.mlp.fc2.bias'], sd['blocks.1.mlp.w3.bias'])


def test_a_plain_vit_backbone_is_no_adapter():
    """A DINOv2 probe's file may hold its plain ViT under backbone.: no adapter to convert."""
    vit = synthetic(ref.vit_layout(32, 2, 64, 8, 4), ref.BACKBONE)
    assert adapter_tensors(vit, 'dinov2') == {}


def test_a_beit_adapter_is_refused_naming_its_keys():
    """ViT-Adapter's BEiT checkpoints hold relative position tables SpecViT has no place for."""
    sd = {k[len(ref.BACKBONE) :]: v for k, v in released_backbone().items()}
    sd['blocks.0.attn.relative_position_bias_table'] = torch.zeros(3, 2)
    with pytest.raises(CheckpointError, match='relative_position_bias_table'):
        from_dinov2_adapter(sd)


PATCH14 = dict(VIT, img_size=224, patch_size=14)  # tokens 16 x 16, adapter maps at H / 16
GROUPS = [[0, 0], [1, 1], [2, 2], [3, 3]]


def test_the_adapter_maps_equal_the_reference():
    """The converted ViT-Adapter (injectors, its ViT's blocks with the CLS token between them,
    extractors, extra extractors) gives DINOv2's four maps, at a patch size of 14 (the ViT's
    16 x 16 tokens beside maps at strides of 16): the converted ViT-g's layout, at toy width.
    At its pretraining grid, the position table is used as it is in both."""
    layout = ref.vit_layout(32, 4, 128, 14, 16) | ref.adapter_layout(32, 8, 2, len(GROUPS))
    sd = synthetic(layout, ref.BACKBONE, seed=3)
    ours = ViTAdapter(vit=PATCH14, **dict(ADAPTER, interaction_indexes=GROUPS))
    state = convert_adapter_state_dict(sd, 'dinov2', 'ViTAdapter', ours.state_dict())
    load_state_dict_strict(ours, state, source='released')
    image = torch.randn(2, 3, 224, 224, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        got = ours.eval()(image)
        want = ref.vit_adapter(sd, image, GROUPS, 14, heads=2, vit_heads=2)
    assert [tuple(m.shape) for m in got] == [tuple(m.shape) for m in want]
    for i, (a, b) in enumerate(zip(got, want)):
        torch.testing.assert_close(a, b, atol=2e-5, rtol=1e-4, msg=f'map {i}')
    # the comparison sees the ViT inside: its LayerScale of one block, doubled, moves the maps
    sd['backbone.blocks.2.gamma1'] = sd['backbone.blocks.2.gamma1'] * 2
    with torch.no_grad():
        moved = ref.vit_adapter(sd, image, GROUPS, 14, heads=2, vit_heads=2)
    assert not torch.allclose(moved[0], want[0], atol=1e-3)
