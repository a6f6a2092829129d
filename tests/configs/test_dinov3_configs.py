"""DINOv3's dense-evaluation configs: the learning-rate and momentum schedules against
facebookresearch/dinov3's WarmupOneCycleLR (dinov3/eval/{segmentation,depth}/schedulers.py, as
configured by config-ade20k-linear-training.yaml and config-nyu.yaml), the linear depth head as
dinov3/eval/depth/models/linear_head.py builds it, and the ViTDet-style COCO backbone."""

import math
import re

import pytest
import torch
from mmdet.registry import MODELS as DET_MODELS
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.registry import MODELS as SEG_MODELS

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT, schedule_trace
from vitspec.ledger.rows import load_ledger

SCHEDULES = ROOT / 'configs' / '_base_' / 'schedules'
COCO = ROOT / 'configs/coco/mask-rcnn_vit-b16-dinov3_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py'
NYU = ROOT / 'configs/nyu/linear_vit-s16-dinov3_bnhead_8xb2-38k_nyu-416x544.py'


def cosine(t, total):
    return (1 + math.cos(math.pi * t / total)) / 2


def ade20k_lr(t):
    """lr of DINOv3's segmentation iteration t: WarmupOneCycleLR(1e-3, 40000, warmup_iters
    1500, warmup_ratio 1e-6, final_div_factor inf, 'cos'), stepped from the second iteration."""
    s = max(t - 1, 0)
    if s < 1500:
        return 1e-3 * (1e-6 + (1 - 1e-6) * s / 1500) * (1 - s / 40000)
    return 1e-3 * cosine(s + 1, 40000)


def nyu_lr_beta1(t):
    """lr and beta1 of DINOv3's depth iteration t: WarmupOneCycleLR(3e-4, 38400, warmup_iters
    12800, final_div_factor 1000, momenta 0.85 / 0.95; div_factor 25, use_beta1)."""
    top, low = 3e-4, 3e-4 / 25 / 1000
    if t < 12800:
        return top / 1000 + top * cosine(t, 38400) * t / 12800, 0.0
    beta1 = 0.95 + (0.85 - 0.95) * cosine(t - 12800, 38400 - 12800)
    return low + (top - low) * cosine(t + 1, 38400), beta1


def test_segmentation_schedule_follows_dinov3_after_warmup_and_bounds_the_warmup():
    lrs, _ = schedule_trace(SCHEDULES / 'schedule_dinov3_linear_40k.py')
    assert len(lrs) == 40000
    for t, lr in enumerate(lrs):
        if t > 1501:  # the same cosine, one iteration apart
            assert lr == pytest.approx(ade20k_lr(t), rel=1e-3, abs=1e-9), t
        assert abs(lr - ade20k_lr(t)) <= 0.036 * 1e-3, t  # the warm-up deviation in the ledger


def test_depth_schedule_follows_dinov3_lr_and_beta1():
    lrs, betas = schedule_trace(SCHEDULES / 'schedule_dinov3_depth_38k.py')
    assert len(lrs) == 38400
    for t, (lr, beta1) in enumerate(zip(lrs, betas)):
        want_lr, want_beta1 = nyu_lr_beta1(t)
        assert abs(lr - want_lr) <= 1e-3 * 3e-4, t
        assert beta1 == pytest.approx(want_beta1, abs=1e-6), t


def test_linear_depth_head_is_dinov3s():
    cfg = Config.fromfile(NYU)
    cfg.model.backbone.init_cfg = None  # random weights: no converted checkpoint here
    with DefaultScope.overwrite_default_scope('mmseg'):
        model = SEG_MODELS.build(cfg.model)
    model.init_weights()
    head = model.decode_head
    assert isinstance(head.bn, torch.nn.SyncBatchNorm) and head.upsample == 1
    assert head.conv_depth.in_channels == 384  # patch tokens only, no CLS
    assert head.conv_depth.weight.std().item() == pytest.approx(0.01, rel=0.05)
    assert not head.conv_depth.bias.any()
    assert [type(loss).__name__ for loss in head.losses] == ['SigLoss']
    assert model.backbone.out_indices == [11] and model.backbone.final_norm


def test_coco_backbone_has_rope_windows_and_dinov3_tokens():
    cfg = Config.fromfile(COCO)
    assert cfg.model.backbone.img_size == 1024
    # DINOv3 publishes no COCO result in this recipe: no ledger row claims one
    assert str(COCO.relative_to(ROOT)) not in {r['config'] for r in load_ledger()['rows']}
    with DefaultScope.overwrite_default_scope('mmdet'), torch.device('meta'):
        model = DET_MODELS.build(cfg.model)
    backbone = model.backbone
    assert backbone.pos_embed is None and backbone.num_prefix_tokens == 5  # CLS + 4 storage
    for i, block in enumerate(backbone.blocks):
        assert block.attn.window_size == (0 if i in (2, 5, 8, 11) else 14)
        assert not any('rel_pos' in n for n, _ in block.named_parameters())
    names = [f'backbone.{n}' for n, _ in backbone.named_parameters()]
    exempt = {n for n in names if re.search(cfg.optim_wrapper.paramwise_cfg.no_decay_regex, n)}
    assert {'backbone.cls_token', 'backbone.reg_token', 'backbone.blocks.3.ls2.gamma'} <= exempt
    assert 'backbone.blocks.3.attn.qkv.weight' not in exempt


def test_table_3_segmentation_probes_see_1024_patch_tokens_whatever_the_patch():
    """DINOv3 (arXiv 2508.10104) Table 3: segmentation 'with input resolution adapted to 1024 patch
    tokens (i.e. 448 x 448 for patch size 14, 512 x 512 for patch size 16)': crops and windows."""
    rows = [r for r in load_ledger()['rows'] if r['table'] == 'Table 3' and r['metric'] == 'mIoU']
    assert {r['row'].split(',')[0] for r in rows} == {'DINOv3 ViT-7B/16', 'DINOv2 ViT-g/14'}
    for row in rows:
        cfg = Config.fromfile(ROOT / row['config'])
        p = cfg.model.backbone.patch_size
        for h, w in (cfg.model.test_cfg.crop_size, cfg.model.data_preprocessor.size):
            assert (h % p, w % p, h // p * (w // p)) == (0, 0, 1024), row['id']
