"""The DINOv2 ViT-Adapter + Mask2Former leaves against DINOv2's segmentation_m2f code and the
ViT-Adapter recipe they copy: the position table resampled by size (bicubic, align_corners
False) at any input shape, a place for the recipe's COCO-Stuff starting checkpoint."""

import pytest
import torch
import torch.nn.functional as F
from mmengine.config import Config
from mmseg.registry import MODELS

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from vitspec.ledger.rows import load_ledger, row_fields

LEAVES = [
    f'configs/ade20k/mask2former_vit-{s}14-dinov2_vit-adapter_16xb1-80k_ade20k-896x896.py'
    for s in 'sblg'
]


@pytest.mark.parametrize('leaf', LEAVES)
def test_position_table_is_resampled_by_size_as_dinov2s_adapter_at_a_non_square_input(leaf):
    vit_cfg = Config.fromfile(ROOT / leaf).model.backbone.vit
    small = dict(embed_dims=32, num_heads=2, num_layers=1, out_indices=(0,), frozen_stages=-1)
    vit = MODELS.build(dict(vit_cfg, init_cfg=None, **small)).eval()
    side = vit_cfg.img_size // vit_cfg.patch_size  # 37: DINOv2's 518 / 14
    with torch.no_grad():
        vit.pos_embed.normal_()
        vit.patch_embed.proj.weight.zero_()
        vit.patch_embed.proj.bias.zero_()
        h, w = 16, 32  # a 224 x 448 input
        tokens, _ = vit._embed(torch.zeros(1, 3, h * 14, w * 14))
    grid = vit.pos_embed[:, 1:].reshape(1, side, side, -1).permute(0, 3, 1, 2)
    # dinov2/eval/segmentation_m2f/models/backbones/vit_adapter.py ViTAdapter._get_pos_embed
    theirs = F.interpolate(grid, size=(h, w), mode='bicubic', align_corners=False)
    theirs = theirs.flatten(2).transpose(1, 2)
    patches = tokens[:, -h * w :]
    assert torch.allclose(patches, theirs, atol=1e-5), (patches - theirs).abs().max()
    assert torch.equal(tokens[:, :1], vit.cls_token + vit.pos_embed[:, :1])


def test_vitg_leaf_has_a_place_for_the_recipes_cocostuff_checkpoint():
    """ViT-Adapter's 896 80k recipe starts from a Mask2Former trained on COCO-Stuff 164k
    (its load_from; README: strategy 2); none is released for DINOv2 ViT-g."""
    cfg = Config.fromfile(ROOT / LEAVES[-1])
    assert 'cocostuff_checkpoint' in cfg and cfg.load_from == cfg.cocostuff_checkpoint is None
    text = (ROOT / LEAVES[-1]).read_text()
    assert 'load_from = cocostuff_checkpoint' in text and 'COCO-Stuff' in text


def test_dinov2_m2f_row_reads_final_norm_injector_and_position_rule_in_dinov2s_code():
    ledger = load_ledger()
    row = next(r for r in ledger['rows'] if r['id'] == 'dinov2-ade20k-m2f-vitg14')
    fields = row_fields(ledger, row)
    for name in ('with_injector', 'vit.final_norm', 'vit.pos_embed_interp'):
        assert fields[f'model.backbone.{name}']['source'] == 'dinov2-m2f-code', name
    assert fields['model.backbone.vit.final_norm']['value'] is False
    assert 'segmentation_m2f' in ledger['sources']['dinov2-m2f-code']
    assert 'COCO-Stuff' in row['note']


def test_dinov2_giant_is_written_as_the_paper_writes_it():
    rows = [r for r in load_ledger()['rows'] if '2304.07193' in r['paper']]
    assert not [r['id'] for r in rows if 'ViT-G/14' in r['row']]
