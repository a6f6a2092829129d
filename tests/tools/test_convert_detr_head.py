"""tools/convert_checkpoint.py --format dinov3-detr: a released DINOv3 detector head (synthetic,
in its key layout, toy sizes) and the config's backbone checkpoint become one checkpoint of the
config's PlainDETR that loads strictly and detects as the reference does."""

import pytest
import torch
from mmdet.registry import MODELS
from mmengine.registry import init_default_scope

from tests.checkpoints import dinov3_detr_reference as ref
from tests.checkpoints.layouts.test_dinov3_detr import batch
from tests.tools.test_convert_head import load_tool
from tests.utils import ROOT
from vitspec.config.load import load_config
from vitspec.fileio import safe_torch_load
from vitspec.models import SpecViT

LEAF = ROOT / 'configs/coco/plain-detr_vit-7b16-dinov3_dinov3-detr_16xb1-12e_coco-2048x2048.py'
VIT = dict(embed_dims=32, num_layers=4, num_heads=2, ffn_type='mlp', mlp_ratio=2.0, qkv_bias=True)
HEAD = dict(num_classes=91, dims=64, ffn_dims=48, num_encoder_layers=1, num_decoder_layers=2,
            num_queries=6, num_queries_one2many=5, rpb_hidden=16, encoder_ffn_dims=40)  # fmt: skip


def toy_config(tmp_path):
    """The released 7B config with a toy ViT (its converted checkpoint written) and head."""
    arch = {**load_config(str(LEAF)).model.backbone, **VIT}
    arch.pop('type'), arch.pop('init_cfg')
    arch.update(frozen_stages=4, out_indices=(0, 1, 2, 3))
    torch.save(dict(state_dict=SpecViT(**arch).state_dict()), tmp_path / 'vit.pth')
    model = dict(
        backbone=dict(**VIT, frozen_stages=4, out_indices=(0, 1, 2, 3),
                      init_cfg=dict(type='Pretrained', checkpoint=str(tmp_path / 'vit.pth'))),
        head=HEAD, num_windows=2, test_cfg=dict(topk=20),
    )  # fmt: skip
    config = tmp_path / 'toy.py'
    config.write_text(f'_base_ = [{str(LEAF)!r}]\nmodel = {model!r}\n')
    return config


def test_released_head_converts_into_the_config_and_detects_as_the_reference(tmp_path):
    config = toy_config(tmp_path)
    shapes = ref.layout(32 * 4 * 2, 64, 8, 48, 40, 91, 11, 1, 2, 16)
    released = ref.synthetic(shapes, seed=3)
    torch.save(dict(model=released), tmp_path / 'head.pth')
    dst = tmp_path / 'converted.pth'
    tool = load_tool()
    argv = [str(tmp_path / 'head.pth'), str(dst), '--format', 'dinov3-detr', '--head-config']
    assert tool.main([*argv, str(config)]) == 0

    init_default_scope('mmdet')
    cfg = load_config(str(config))
    cfg.model.backbone.init_cfg = None
    model = MODELS.build(cfg.model)
    model.load_state_dict(safe_torch_load(str(dst))['state_dict'], strict=True)
    images, samples = batch()
    cfg_ref = dict(windows=2, patch=16, enc=1, dec=2, heads=8, strides=(8, 16, 32, 64),
                   min_size=50, queries=6, topk=20)  # fmt: skip
    with torch.no_grad():
        _, post = ref.detect(
            released, model.eval().backbone, images, [(96, 128), (64, 96)], cfg_ref
        )
        results = model.predict(images, samples)
    for sample, want in zip(results, post):  # the 80 COCO ids of the 91 columns, as labels
        keep = torch.isin(want['labels'], torch.tensor(cfg.model.class_columns))
        got = sample.pred_instances
        columns = torch.tensor(cfg.model.class_columns)[got.labels]
        n = min(int(keep.sum()), len(got.scores))
        torch.testing.assert_close(got.scores[:n], want['scores'][keep][:n], atol=1e-5, rtol=1e-4)
        assert torch.equal(columns[:n], want['labels'][keep][:n])


def test_the_format_needs_a_head_config(tmp_path, capsys):
    with pytest.raises(SystemExit):
        load_tool().main(['a.pth', 'b.pth', '--format', 'dinov3-detr'])
    assert '--head-config' in capsys.readouterr().err
