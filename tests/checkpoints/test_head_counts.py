"""The head count of a converted checkpoint: read off the weights, given, or from the table of
published widths; never embed_dims / 64 (ViT-H/14 has 16 heads of 80)."""

import subprocess
import sys

import pytest
import timm
import torch

from tests.utils import ROOT
from vitspec.checkpoints.architecture import infer_backbone_cfg
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.checkpoints.head_counts import (
    FAMILY_HEADS,
    FORMAT_FAMILIES,
    heads_for_families,
    heads_from_table,
)
from vitspec.checkpoints.layouts.backbone_formats import FORMATS
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.errors import CheckpointError
from vitspec.models import SpecViT


@pytest.fixture(scope='module')
def vit_huge():
    """timm's ViT-H/14 at its real width (1280, 16 heads), two blocks, a 56x56 input."""
    torch.manual_seed(0)
    ref = timm.create_model(
        'vit_huge_patch14_224', pretrained=False, num_classes=0, depth=2, img_size=56
    ).eval()
    with torch.no_grad():
        for p in ref.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    return ref


def specvit(sd, cfg):
    model = SpecViT(**cfg, out_indices=(0, 1)).eval()
    load_state_dict_strict(model, sd)
    return model


def max_feature_error(ref, model):
    x = torch.randn(1, 3, 56, 56, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[0, 1], norm=True, intermediates_only=True)
        got = model(x)
    return max((g - e).abs().max().item() for e, g in zip(expected, got))


@pytest.mark.parametrize('fmt', ['timm', 'mae', 'deit3'])
def test_vit_huge_converts_with_16_heads_and_timms_features(vit_huge, fmt):
    sd, cfg = convert_checkpoint(vit_huge.state_dict(), fmt)
    assert (cfg['embed_dims'], cfg['num_heads'], cfg['num_layers']) == (1280, 16, 2)
    assert max_feature_error(vit_huge, specvit(sd, cfg)) <= 1e-4


def test_the_width_over_64_rule_would_give_other_features(vit_huge):
    """What the table prevents: 1280 / 64 = 20 heads loads without a key error, but computes
    something else."""
    sd, cfg = convert_checkpoint(vit_huge.state_dict(), 'timm', num_heads=20)
    assert cfg['num_heads'] == 20
    assert max_feature_error(vit_huge, specvit(sd, cfg)) > 1e-2


def toy_vit(width, heads, **kwargs):
    return timm.create_model(
        'vit_base_patch16_224',
        pretrained=False,
        num_classes=0,
        depth=1,
        img_size=32,
        embed_dim=width,
        num_heads=heads,
        **kwargs,
    )


def test_width_without_a_published_model_is_refused():
    sd = toy_vit(320, 5).state_dict()
    with pytest.raises(CheckpointError, match=r'embed_dims 320 is not the width .*--num-heads'):
        convert_checkpoint(sd, 'timm')
    assert convert_checkpoint(sd, 'timm', num_heads=5)[1]['num_heads'] == 5


def test_given_num_heads_wins_over_the_table_and_must_divide_the_width():
    sd = toy_vit(384, 6).state_dict()
    assert infer_backbone_cfg(sd, 'timm')['num_heads'] == 6
    assert infer_backbone_cfg(sd, 'timm', num_heads=12)['num_heads'] == 12
    with pytest.raises(CheckpointError, match='embed_dims 384 does not split into 7 heads'):
        infer_backbone_cfg(sd, 'timm', num_heads=7)


def test_talking_heads_are_read_off_and_contradicting_them_is_refused():
    sd = timm.create_model('cait_xxs24_224', pretrained=False, depth=1, num_classes=0).state_dict()
    sd, _ = convert_checkpoint(sd, 'cait')
    assert infer_backbone_cfg(sd, 'cait')['num_heads'] == 4  # 192 / 64 would say 3
    assert infer_backbone_cfg(sd, 'cait', num_heads=4)['num_heads'] == 4
    with pytest.raises(CheckpointError, match=r'num_heads=3 .*proj_l\) have 4 heads'):
        infer_backbone_cfg(sd, 'cait', num_heads=3)


def test_a_width_two_families_disagree_on_is_refused():
    """ViT-H and DINOv3's ViT-H+ are both 1280 wide: 16 heads against 20."""
    assert heads_for_families(1280, ('vit',)) == 16
    assert heads_for_families(1280, ('dinov3',)) == 20
    with pytest.raises(CheckpointError, match=r'16 in vit, 20 in dinov3.*--num-heads'):
        heads_for_families(1280, ('vit', 'dinov3'))


def test_every_format_has_a_table_and_none_is_ambiguous():
    assert set(FORMAT_FAMILIES) == set(FORMATS)
    for fmt, families in FORMAT_FAMILIES.items():
        for width in {w for family in families for w in FAMILY_HEADS[family]}:
            heads_from_table(width, fmt)


@pytest.mark.parametrize(
    'family, name',
    [
        ('vit', 'vit_tiny_patch16_224'),
        ('vit', 'vit_small_patch16_224'),
        ('vit', 'vit_base_patch16_224'),
        ('vit', 'vit_large_patch16_224'),
        ('vit', 'vit_huge_patch14_224'),
        ('vit', 'deit3_huge_patch14_224'),
        ('vit', 'vit_giant_patch14_224'),
        ('vit', 'vit_giant_patch14_dinov2'),
        ('vit', 'vit_gigantic_patch14_224'),
        ('cait', 'cait_xxs24_224'),
        ('cait', 'cait_xs24_384'),
        ('cait', 'cait_s24_224'),
        ('cait', 'cait_m36_384'),
        ('dinov3', 'vit_small_patch16_dinov3'),
        ('dinov3', 'vit_small_plus_patch16_dinov3'),
        ('dinov3', 'vit_base_patch16_dinov3'),
        ('dinov3', 'vit_large_patch16_dinov3'),
        ('dinov3', 'vit_huge_plus_patch16_dinov3'),
        ('dinov3', 'vit_7b_patch16_dinov3'),
    ],
)
def test_table_matches_timms_model_definitions(family, name):
    with torch.device('meta'):
        model = timm.create_model(name, pretrained=False, depth=1)
    assert FAMILY_HEADS[family][model.embed_dim] == model.blocks[0].attn.num_heads


@pytest.mark.slow
def test_command_line_asks_for_num_heads(tmp_path):
    src = tmp_path / 'odd.pth'
    torch.save(toy_vit(320, 5).state_dict(), src)
    dst = tmp_path / 'dst.pth'
    tool = str(ROOT / 'tools' / 'convert_checkpoint.py')
    proc = subprocess.run(
        [sys.executable, tool, str(src), str(dst), '--format', 'mae'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1 and not dst.exists()
    assert 'embed_dims 320 is not the width of any published mae-format ViT' in proc.stderr
    assert '--num-heads' in proc.stderr
    proc = subprocess.run(
        [sys.executable, tool, str(src), str(dst), '--format', 'mae', '--num-heads', '5'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "'num_heads': 5" in proc.stdout
