"""DINOv3's released Mask2Former segmentor, converted: synthetic weights in its key layout give,
through mmseg's Mask2FormerHead built from our DINOv3 head fragment (at toy sizes), the class
and mask predictions of a reference written from DINOv3's head code (dinov3_m2f_reference.py)."""

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import init_default_scope
from mmseg.structures import SegDataSample

from tests.checkpoints import dinov3_m2f_reference as ref
from tests.checkpoints.m2f_reference import synthetic
from tests.checkpoints.m2f_toy import (
    DEC,
    DIMS,
    HEADS,
    adapter_maps,
    build_toy_head,
    released_head,
)
from tests.utils import ROOT
from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.layouts.dinov3_m2f import (
    from_dinov3_adapter,
    from_dinov3_m2f_head,
    split_segmentor,
    with_own_vit,
)
from vitspec.errors import CheckpointError
from vitspec.models.vit_adapter import ViTAdapter

FRAGMENT = ROOT / 'configs' / '_base_' / 'models' / 'mask2former_dinov3.py'


def released_segmentor(seed=0):
    return released_head(ref, seed=seed)


def converted_head(released):
    head_sd, adapter, others = split_segmentor(released)
    assert adapter == {} and others == []
    head = build_toy_head(FRAGMENT)
    load_state_dict_strict(head, from_dinov3_m2f_head(head_sd), source='released')
    return head.eval()


def test_the_fragment_has_dinov3s_numbers():
    head = Config.fromfile(str(FRAGMENT)).model.decode_head
    assert (head.feat_channels, head.out_channels, head.num_queries) == (2048, 2048, 100)
    assert head.pixel_decoder.encoder.num_layers == 6 and head.transformer_decoder.num_layers == 9
    layer = head.transformer_decoder.layer_cfg
    assert layer.cross_attn_cfg.num_heads == 16 and layer.ffn_cfg.feedforward_channels == 4096
    assert head.pixel_decoder.encoder.layer_cfg.self_attn_cfg.num_heads == 16
    assert head.positional_encoding.num_feats == 1024 and not head.enforce_decoder_input_project


def test_class_and_mask_predictions_equal_the_reference(size=(64, 96)):
    """Every layer's class logits and masks (the queries alone, then each of the DEC layers)."""
    released = released_segmentor()
    head = converted_head(released)
    maps = adapter_maps(size=size)
    samples = [SegDataSample(metainfo=dict(img_shape=size, pad_shape=size)) for _ in maps[0]]
    with torch.no_grad():
        cls_ours, masks_ours = head(maps, samples)
        cls_ref, masks_ref = ref.m2f_head(released, maps, HEADS)
    assert len(cls_ours) == len(cls_ref) == DEC + 1
    for ours, theirs in zip(cls_ours, cls_ref):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)
    for ours, theirs in zip(masks_ours, masks_ref):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)


def test_semantic_maps_equal_dinov3s_inference():
    """mmseg's predict: softmax over the classes without no-object, times the mask sigmoids, as
    dinov3/eval/segmentation/inference.py combines pred_logits and pred_masks."""
    released = released_segmentor(seed=3)
    head = converted_head(released)
    maps = adapter_maps(batch=1)
    meta = dict(img_shape=(64, 96), pad_shape=(64, 96))
    with torch.no_grad():
        ours = head.predict(maps, [meta], dict(mode='whole'))
        cls_ref, masks_ref = ref.m2f_head(released, maps, HEADS)
    masks = torch.nn.functional.interpolate(
        masks_ref[-1], size=(64, 96), mode='bilinear', align_corners=False
    )
    expected = torch.einsum('bqc,bqhw->bchw', cls_ref[-1].softmax(-1)[..., :-1], masks.sigmoid())
    torch.testing.assert_close(ours, expected, rtol=1e-4, atol=1e-5)


def test_a_wrong_weight_changes_the_prediction():
    """The comparison can fail: one decoder layer's norm swapped for another's."""
    released = released_segmentor()
    p = ref.HEAD + 'predictor.transformer_ffn_layers.'
    released[p + '1.norm.weight'], released[p + '2.norm.weight'] = (
        released[p + '2.norm.weight'],
        released[p + '1.norm.weight'],
    )
    head = converted_head(released)
    maps = adapter_maps()
    samples = [SegDataSample(metainfo=dict(img_shape=(64, 96))) for _ in maps[0]]
    with torch.no_grad():
        ours = head(maps, samples)[0][-1]
    cls_ref = ref.m2f_head(released_segmentor(), maps, HEADS)[0][-1]
    assert not torch.allclose(ours, cls_ref, atol=1e-3)


def test_an_unknown_key_is_named():
    released = released_segmentor()
    released[ref.HEAD + 'predictor.extra_norm.weight'] = torch.ones(DIMS)
    head_sd, _, _ = split_segmentor(released)
    with pytest.raises(CheckpointError, match=r'predictor\.extra_norm\.weight'):
        from_dinov3_m2f_head(head_sd)


def test_a_missing_key_is_named():
    released = released_segmentor()
    del released[ref.HEAD + 'predictor.mask_embed.layers.1.weight']
    with pytest.raises(CheckpointError, match=r'mask_embed\.2\.weight'):
        converted_head(released)


def test_the_segmentor_split_sets_the_frozen_vit_aside():
    released = {
        ref.HEAD + 'predictor.class_embed.bias': torch.zeros(3),
        'segmentation_model.0.level_embed': torch.zeros(3, 4),
        'segmentation_model.0.backbone.cls_token': torch.zeros(1),
    }
    head, adapter, others = split_segmentor(released)
    assert list(head) == ['predictor.class_embed.bias'] and list(adapter) == ['level_embed']
    assert others == ['segmentation_model.0.backbone.cls_token']
    with pytest.raises(CheckpointError, match='not a DINOv3 segmentor'):
        split_segmentor({'decode_head.conv_seg.weight': torch.zeros(1)})


# --- the adapter and the whole segmentor -------------------------------------------------------

VIT_DIMS, INPLANES, DEFORM_HEADS = 32, 8, 2
TOY_VIT = dict(
    type='SpecViT', img_size=64, patch_size=16, embed_dims=VIT_DIMS, num_layers=4, num_heads=2,
    num_register_tokens=4, with_pos_embed=False, pos_embed_cls=False,
    rope=dict(base=100.0, normalize_coords='separate'), layer_scale_init=1e-5, final_norm=True,
)  # fmt: skip
# DINOv3_Adapter's arguments as build_segmentation_decoder leaves them (toy widths and heads)
TOY_ADAPTER = dict(
    vit=TOY_VIT, interaction_indexes=[0, 1, 2, 3], with_injector=False,
    conv_inplane=INPLANES, deform_num_heads=DEFORM_HEADS, n_points=4, deform_ratio=0.5,
    cffn_ratio=0.25, use_extra_extractor=True, add_vit_feature=True, norm_cfg=dict(type='BN'),
)  # fmt: skip


def released_whole(seed=0):
    adapter = ref.adapter_layout(VIT_DIMS, INPLANES, DEFORM_HEADS, interactions=4)
    return {
        **synthetic(adapter, ref.ADAPTER, seed=seed),
        **released_head(ref, seed=seed + 1, in_dims=VIT_DIMS),
    }


def converted_whole(released):
    init_default_scope('mmseg')
    head_sd, adapter_sd, others = split_segmentor(released)
    assert others == []
    backbone = ViTAdapter(**TOY_ADAPTER)
    with torch.no_grad():
        for p in backbone.vit.parameters():
            p.normal_(std=0.2)  # a ViT away from its init, as a checkpoint would load
    merged = with_own_vit(backbone.state_dict(), from_dinov3_adapter(adapter_sd))
    load_state_dict_strict(backbone, merged, source='released')
    head = build_toy_head(FRAGMENT, in_dims=VIT_DIMS)
    load_state_dict_strict(head, from_dinov3_m2f_head(head_sd), source='released')
    return backbone.eval(), head.eval()


def reference_whole(released, backbone, image):
    """DINOv3's adapter and head on the normed patch maps of the same ViT at its 4 taps."""
    backbone.vit.out_indices = [0, 1, 2, 3]
    vit_maps = backbone.vit(image)
    maps = ref.dinov3_adapter(released, image, vit_maps, DEFORM_HEADS)
    return maps, ref.m2f_head(released, maps, HEADS)


def test_the_adapter_maps_and_predictions_equal_the_reference(size=(96, 64)):
    released = released_whole()
    backbone, head = converted_whole(released)
    image = torch.randn(2, 3, *size, generator=torch.Generator().manual_seed(5))
    samples = [SegDataSample(metainfo=dict(img_shape=size)) for _ in image]
    with torch.no_grad():
        maps = backbone(image)
        cls_ours, masks_ours = head(list(maps), samples)
        maps_ref, (cls_ref, masks_ref) = reference_whole(released, backbone, image)
    for ours, theirs in zip(maps, maps_ref, strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(cls_ours[-1], cls_ref[-1], rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(masks_ours[-1], masks_ref[-1], rtol=1e-4, atol=1e-4)


def test_a_wrong_adapter_weight_changes_the_maps():
    released = released_whole()
    p = ref.ADAPTER + 'interactions.3.extra_extractors.'
    released[p + '0.ffn.fc2.weight'], released[p + '1.ffn.fc2.weight'] = (
        released[p + '1.ffn.fc2.weight'],
        released[p + '0.ffn.fc2.weight'],
    )
    backbone, _ = converted_whole(released)
    image = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        ours = backbone(image)
        theirs, _ = reference_whole(released_whole(), backbone, image)
    assert not torch.allclose(ours[2], theirs[2], atol=1e-3)


def test_an_adapter_with_injectors_is_refused():
    """DINOv3's checkpoint has no injector weights: a ViTAdapter with them does not load."""
    released = released_whole()
    _, adapter_sd, _ = split_segmentor(released)
    backbone = ViTAdapter(**{**TOY_ADAPTER, 'with_injector': True})
    merged = with_own_vit(backbone.state_dict(), from_dinov3_adapter(adapter_sd))
    with pytest.raises(CheckpointError, match=r'interactions\.0\.injector\.'):
        load_state_dict_strict(backbone, merged, source='released')


def test_an_unknown_adapter_key_is_named():
    with pytest.raises(CheckpointError, match=r'interactions\.0\.injector\.gamma'):
        from_dinov3_adapter({'level_embed': torch.zeros(3, 4), 'interactions.0.injector.gamma': 0})
