"""DINOv2's released heads, converted: synthetic weights in each released key layout give, through
our head, what a reference written from DINOv2's head code gives (dinov2_head_reference.py)."""

import pytest
import torch

from tests.checkpoints import dinov2_head_reference as ref
from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.layouts.head_formats import convert_head_state_dict, split_head
from vitspec.errors import CheckpointError
from vitspec.models.heads import DPTDepthHead, LinearBNHead, LinearDepthHead

DIMS, GRID, BATCH = 16, (5, 6), 2


def converted_into(head, released: dict):
    sd, others = convert_head_state_dict(released, 'dinov2', type(head).__name__)
    assert others == []
    load_state_dict_strict(head, sd, source='released')
    return head.eval()


@pytest.mark.parametrize(
    'taps, in_index',
    [(1, [3]), (4, [0, 1, 2, 3])],
    ids=['linear: last of 4 maps', 'ms: 4 maps'],
)
def test_segmentation_bnhead(taps, in_index):
    """lin.: DINOv2 taps 4 blocks and its head picks the last (in_index [3]); our config taps
    only that one. +ms: all 4, concatenated."""
    released = ref.synthetic(ref.seg_bnhead_layout(DIMS * taps, num_classes=7))
    head = LinearBNHead(in_channels=[DIMS] * taps, num_classes=7, norm_cfg=dict(type='BN'))
    head = converted_into(head, released)
    maps = [torch.randn(BATCH, DIMS, *GRID) for _ in range(4)]
    ours = head([maps[i] for i in in_index])
    torch.testing.assert_close(ours, ref.seg_bnhead(released, maps, in_index))


@pytest.mark.parametrize('taps', [1, 4])
def test_linear_depth_head(taps):
    released = ref.synthetic(ref.linear_depth_layout(DIMS * taps * 2))
    head = LinearDepthHead(
        in_channels=DIMS, num_inputs=taps, classify=True, min_depth=1e-3, max_depth=10.0
    )
    head = converted_into(head, released)
    inputs = [(torch.randn(BATCH, DIMS, *GRID), torch.randn(BATCH, DIMS)) for _ in range(taps)]
    expected = ref.linear_depth(released, inputs, list(range(taps)), 4, 1e-3, 10.0)
    torch.testing.assert_close(head(inputs), expected, rtol=1e-4, atol=1e-4)


def test_dpt_depth_head():
    post = [DIMS // 8, DIMS // 4, DIMS // 2, DIMS]
    released = ref.synthetic(ref.dpt_layout(DIMS, post, channels=8))
    head = DPTDepthHead(embed_dims=DIMS, channels=8, min_depth=1e-3, max_depth=80.0)
    head = converted_into(head, released)
    inputs = [(torch.randn(BATCH, DIMS, *GRID), torch.randn(BATCH, DIMS)) for _ in range(4)]
    torch.testing.assert_close(head(inputs), ref.dpt(released, inputs, 1e-3))


def test_a_missing_released_key_is_named():
    released = ref.synthetic(ref.dpt_layout(DIMS, [2, 4, 8, 16], channels=8))
    del released['decode_head.fusion_blocks.2.res_conv_unit1.conv1.conv.weight']
    head = DPTDepthHead(embed_dims=DIMS, channels=8)
    with pytest.raises(CheckpointError, match=r'fusions\.1\.skip_unit\.conv1\.weight'):
        converted_into(head, released)


def test_a_whole_depther_gives_its_head_and_names_the_rest():
    released = {**ref.synthetic(ref.linear_depth_layout(8)), 'backbone.cls_token': torch.zeros(1)}
    head, others = split_head(released)
    assert sorted(head) == ['conv_depth.bias', 'conv_depth.weight'] and others == [
        'backbone.cls_token'
    ]


def test_a_head_without_a_converter_is_refused():
    with pytest.raises(CheckpointError, match='no converter of dinov2 heads into UPerHead'):
        convert_head_state_dict({'x': torch.zeros(1)}, 'dinov2', 'UPerHead')
