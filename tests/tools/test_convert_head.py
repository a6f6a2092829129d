"""tools/convert_checkpoint.py --head-config: a released head and the config's backbone checkpoint
become one checkpoint of the config's model, which loads strictly (as tools/test.py loads it)
and whose head gives the reference's outputs on the backbone's own features."""

import importlib.util

import pytest
import torch
from mmengine.registry import MODELS, init_default_scope

from tests.checkpoints import dinov2_head_reference as ref
from tests.utils import ROOT
from vitspec.config.load import load_config
from vitspec.fileio import safe_torch_load
from vitspec.models import SpecViT

DIMS, LAYERS = 32, 4
TOY_BACKBONE = dict(img_size=56, embed_dims=DIMS, num_layers=LAYERS, num_heads=2)


def load_tool():
    spec = importlib.util.spec_from_file_location(
        'convert_checkpoint', ROOT / 'tools/convert_checkpoint.py'
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def toy_config(tmp_path, leaf: str, backbone: dict, head: dict):
    """``leaf`` (a shipped config) with a toy backbone whose converted checkpoint is written."""
    arch = {**load_config(str(ROOT / leaf)).model.backbone, **TOY_BACKBONE, **backbone}
    arch.pop('type'), arch.pop('init_cfg')
    toy = SpecViT(**arch)
    torch.save(dict(meta=dict(backbone_cfg=TOY_BACKBONE), state_dict=toy.state_dict()),
               tmp_path / 'backbone.pth')  # fmt: skip
    config = tmp_path / 'toy.py'
    model = dict(
        backbone=dict(
            **TOY_BACKBONE,
            **backbone,
            init_cfg=dict(type='Pretrained', checkpoint=str(tmp_path / 'backbone.pth')),
        ),
        decode_head=head,
    )
    config.write_text(f'_base_ = [{str(ROOT / leaf)!r}]\nmodel = {model!r}\n')
    return config, toy.state_dict()


def converted_model(config, dst):
    """The config's model with the converted file loaded strictly, in eval mode."""
    init_default_scope('mmseg')
    cfg = load_config(str(config))
    cfg.model.backbone.init_cfg = None
    model = MODELS.build(cfg.model)
    model.load_state_dict(safe_torch_load(str(dst))['state_dict'], strict=True)
    return model.eval()


CASES = {
    'ade20k linear': (
        'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py',
        dict(out_indices=[LAYERS - 1], frozen_stages=LAYERS),
        dict(in_channels=[DIMS]),
        ref.seg_bnhead_layout(DIMS, 150),
        lambda sd, feats: ref.seg_bnhead(sd, feats, [0]),
    ),
    'ade20k ms': (
        'configs/ade20k/linear4-ms_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-640x640.py',
        dict(out_indices=list(range(LAYERS)), frozen_stages=LAYERS),
        dict(in_channels=[DIMS] * 4),
        ref.seg_bnhead_layout(DIMS * 4, 150),
        lambda sd, feats: ref.seg_bnhead(sd, feats, [0, 1, 2, 3]),
    ),
    'kitti lin4': (
        'configs/kitti/lin4_vit-s14-dinov2_8xb2-38k_kitti-352x704.py',
        dict(out_indices=list(range(LAYERS)), frozen_stages=LAYERS),
        dict(in_channels=DIMS),
        ref.linear_depth_layout(DIMS * 4 * 2),
        lambda sd, feats: ref.linear_depth(sd, feats, [0, 1, 2, 3], 4, 1e-3, 80.0),
    ),
    'nyu dpt': (
        'configs/nyu/dpt_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
        dict(out_indices=list(range(LAYERS)), frozen_stages=LAYERS),
        dict(embed_dims=DIMS, post_process_channels=[4, 8, 16, 32], channels=16),
        ref.dpt_layout(DIMS, [4, 8, 16, 32], 16),
        lambda sd, feats: ref.dpt(sd, feats, 1e-3),
    ),
}


@pytest.mark.parametrize('case', CASES)
def test_released_head_and_backbone_make_one_checkpoint(tmp_path, case):
    leaf, backbone, head, layout, reference = CASES[case]
    config, backbone_sd = toy_config(tmp_path, leaf, backbone, head)
    released = ref.synthetic(layout)
    torch.save(dict(meta=dict(CLASSES=('wall',)), state_dict=released), tmp_path / 'head.pth')
    dst = tmp_path / 'converted.pth'
    status = load_tool().main(
        [str(tmp_path / 'head.pth'), str(dst), '--format', 'dinov2', '--head-config', str(config)]
    )
    assert status == 0
    model = converted_model(config, dst)
    for key, value in backbone_sd.items():
        torch.testing.assert_close(model.backbone.state_dict()[key], value)
    with torch.no_grad():
        feats = model.extract_feat(torch.randn(2, 3, 56, 70))
        torch.testing.assert_close(model.decode_head(feats), reference(released, feats))


def test_missing_backbone_checkpoint_names_the_conversion(tmp_path, capsys):
    config, _ = toy_config(tmp_path, *CASES['ade20k linear'][:3])  # its backbone file, then removed
    (tmp_path / 'backbone.pth').unlink()
    torch.save(ref.synthetic(CASES['ade20k linear'][3]), tmp_path / 'head.pth')
    args = [tmp_path / 'head.pth', tmp_path / 'out.pth', '--format', 'dinov2']
    assert load_tool().main([*map(str, args), '--head-config', str(config)]) == 1
    assert 'convert the released backbone first' in capsys.readouterr().err
    assert not (tmp_path / 'out.pth').exists()


def test_dinov3_segmentor_fills_the_adapter_and_the_head(tmp_path):
    """DINOv3's released ViT-7B + M2F file (head and trained adapter, no ViT) with the config's
    backbone checkpoint: the converted model gives the reference's maps and predictions."""
    from mmseg.structures import SegDataSample

    from tests.checkpoints.layouts import test_dinov3_m2f as m2f
    from tests.checkpoints.m2f_toy import toy_head_cfg

    leaf = 'configs/ade20k/mask2former_vit-7b16-dinov3_dinov3-adapter_8xb2-20k_ade20k-896x896.py'
    vit = {k: v for k, v in m2f.TOY_VIT.items() if k != 'type'}
    vit.update(frozen_stages=4, out_indices=[3])
    arch = {**load_config(str(ROOT / leaf)).model.backbone.vit, **vit}  # the 7B's MLP, qkv bias
    arch.pop('type'), arch.pop('init_cfg')
    toy = SpecViT(**arch)
    torch.save(dict(state_dict=toy.state_dict()), tmp_path / 'vit.pth')
    backbone = dict(
        {k: v for k, v in m2f.TOY_ADAPTER.items() if k != 'vit'},
        vit=dict(vit, init_cfg=dict(type='Pretrained', checkpoint=str(tmp_path / 'vit.pth'))),
        vit_autocast=None,  # the leaf's bf16 ViT: the weights are compared in fp32 here
    )
    toy_head = toy_head_cfg(m2f.FRAGMENT, in_dims=m2f.VIT_DIMS)
    head = dict(toy_head.to_dict(), _delete_=True)
    config = tmp_path / 'toy.py'
    config.write_text(
        f'_base_ = [{str(ROOT / leaf)!r}]\nmodel = {dict(backbone=backbone, decode_head=head)!r}\n'
    )
    released = m2f.released_whole(seed=2)
    torch.save(released, tmp_path / 'dinov3_vit7b16_ade20k_m2f_head.pth')
    dst = tmp_path / 'converted.pth'
    args = [tmp_path / 'dinov3_vit7b16_ade20k_m2f_head.pth', dst, '--format', 'dinov3']
    assert load_tool().main([*map(str, args), '--head-config', str(config)]) == 0
    model = converted_model(config, dst)
    for key, value in toy.state_dict().items():
        torch.testing.assert_close(model.backbone.vit.state_dict()[key], value)
    image = torch.randn(1, 3, 64, 96)
    with torch.no_grad():
        maps = model.backbone(image)
        cls, _ = model.decode_head(list(maps), [SegDataSample(metainfo=dict(img_shape=(64, 96)))])
        maps_ref, (cls_ref, _) = m2f.reference_whole(released, model.backbone, image)
    for ours, theirs in zip(maps, maps_ref, strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(cls[-1], cls_ref[-1], rtol=1e-4, atol=1e-4)
