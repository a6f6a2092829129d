"""Every detection config builds its model, optimizer and pipelines; the COCO configs are ViTDet's
(field by field against the published files in configs/coco/reproductions.yaml; here: what the built
model and optimizer do with them)."""

import re

import pytest
import torch
from mmdet.registry import MODELS
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from tests.shrink_config import cpu_optim_wrapper
from tests.utils import ROOT

# the Mask R-CNN configs (the DETR-family ones: tests/configs/test_plain_detr_configs.py)
COCO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/coco').glob('mask-rcnn_*.py'))
DEMO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/demo').glob('mask-rcnn_*.py'))
VITDET = {  # size: (global blocks, drop path, layer decay)
    'b16': ((2, 5, 8, 11), 0.1, 0.7),
    'l16': ((5, 11, 17, 23), 0.4, 0.8),
}


def build_model(cfg):
    with DefaultScope.overwrite_default_scope('mmdet'), torch.device('meta'):
        return MODELS.build(cfg.model)


def build_optimizer(model, cfg):
    cpu_optim_wrapper(cfg)  # AMP needs a GPU; the constructor is the same
    with DefaultScope.overwrite_default_scope('mmdet'):
        return build_optim_wrapper(model, cfg.optim_wrapper).optimizer


def coco(size):
    return next(p for p in COCO if f'vit-{size}-mae' in p.name)  # ViTDet's own recipe


@pytest.mark.parametrize('path', COCO + DEMO, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    size = cfg.image_size
    with torch.no_grad():
        feats = model.extract_feat(torch.empty(1, 3, *size, device='meta'))
    assert [f.shape[-2:] for f in feats] == [
        (-(-size[0] // s), -(-size[1] // s)) for s in (4, 8, 16, 32, 64)
    ]
    assert all(f.shape[1] == cfg.model.neck.out_channels for f in feats)
    build_optimizer(model, cfg)
    with DefaultScope.overwrite_default_scope('mmdet'):
        Compose(cfg.train_pipeline)
        Compose(cfg.test_pipeline)
    assert cfg.default_scope == 'mmdet' and cfg.find_unused_parameters
    assert cfg.val_evaluator.type == 'DatasetCocoMetric' and 'ann_file' not in cfg.val_evaluator
    assert cfg.val_evaluator.metric == ['bbox', 'segm']


@pytest.mark.parametrize('size', sorted(VITDET))
def test_coco_backbone_is_vitdets(size):
    cfg = Config.fromfile(ROOT / coco(size))
    global_blocks, drop_path, _ = VITDET[size]
    backbone = build_model(cfg).backbone
    depth = backbone.num_layers
    assert backbone.cls_token is None and backbone.num_prefix_tokens == 0
    assert backbone.pos_embed.shape[1] == 14 * 14 and backbone.pos_embed_interp == 'vitdet'
    head_dim = backbone.embed_dims // cfg.model.backbone.num_heads
    for i, blk in enumerate(backbone.blocks):
        grid = 64 if i in global_blocks else 14  # 1024 / 16, or the window
        assert blk.attn.window_size == (0 if i in global_blocks else 14)
        assert blk.attn.window_padding == 'zeros'
        assert blk.attn.rel_pos_h.shape == blk.attn.rel_pos_w.shape == (2 * grid - 1, head_dim)
    assert backbone.blocks[-1].drop_path1.drop_prob == pytest.approx(drop_path)
    assert backbone.out_indices == [depth - 1] and not backbone.final_norm
    gpus, batch = map(int, coco(size).name.split('_')[-2].split('-')[0].split('xb'))
    assert gpus * batch == cfg.auto_scale_lr.base_batch_size == 64
    assert cfg.train_dataloader.batch_size == batch


@pytest.mark.parametrize('size', sorted(VITDET))
def test_layer_decay_and_weight_decay_as_vitdet(size):
    """detectron2's get_vit_lr_decay_rate and get_default_optimizer_params(weight_decay_norm=0,
    overrides pos_embed): no decay exactly for the backbone's nn.LayerNorms and pos_embed."""
    cfg = Config.fromfile(ROOT / coco(size))
    model = build_model(cfg)
    groups = build_optimizer(model, cfg).param_groups
    lr = {n: g['lr'] for g in groups for n in g['param_names']}
    wd = {n: g['weight_decay'] for g in groups for n in g['param_names']}
    depth, decay = cfg.model.backbone.num_layers, VITDET[size][2]
    assert lr['backbone.blocks.0.attn.qkv.weight'] == pytest.approx(1e-4 * decay**depth)
    assert lr['backbone.blocks.0.attn.rel_pos_h'] == pytest.approx(1e-4 * decay**depth)
    assert lr['backbone.patch_embed.proj.weight'] == pytest.approx(1e-4 * decay ** (depth + 1))
    assert (
        lr['neck.fpn_convs.0.conv.weight']
        == lr['roi_head.mask_head.conv_logits.weight']
        == pytest.approx(1e-4)
    )
    layer_norms = {
        f'backbone.{n}'
        for n, m in model.backbone.named_modules()
        if isinstance(m, torch.nn.LayerNorm)
        for n in (f'{n}.weight', f'{n}.bias')
    }
    no_decay = {n for n, w in wd.items() if w == 0}
    assert no_decay == (layer_norms | {'backbone.pos_embed'}) & set(wd)
    for name in (
        'backbone.blocks.0.attn.qkv.bias',
        'backbone.blocks.3.attn.rel_pos_w',
        'neck.lateral_convs.0.ln.weight',
        'roi_head.bbox_head.shared_fcs.0.bias',
    ):
        assert wd[name] == 0.1, name
    assert not any(re.match(r'backbone\.norm\.', n) for n in wd)  # no final norm: frozen


def test_coco_configs_pad_every_image_to_one_grid():
    for path in COCO:
        cfg = Config.fromfile(ROOT / path)
        assert cfg.model.data_preprocessor.pad_size_divisor == 1024 == cfg.image_size[0]
        assert not any('Pad' in t.type for t in cfg.train_pipeline + cfg.test_pipeline)
        assert [t.type for t in cfg.train_pipeline[:2]] == ['LoadImageFromFile', 'CheckSampleFiles']
        assert cfg.train_dataloader.dataset.type == 'CheckedCocoDataset'
