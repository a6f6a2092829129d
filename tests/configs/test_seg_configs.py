"""Every ADE20K / Cityscapes config builds its model (on the meta device), its optimizer and its
data pipelines; linear probes are frozen /14 DINOv2 probes with the published taps; the "+ms"
pipelines scale images as DINOv2's mmseg 0.x configs did; technique comparisons differ in their
technique line only and ship no technique that needs a checkpoint nobody released."""

import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope
from mmseg.registry import MODELS, TRANSFORMS

import vitspec  # noqa: F401  (registers)
from tests.shrink_config import cpu_optim_wrapper
from tests.utils import ROOT

CONFIGS = sorted(
    p.relative_to(ROOT)
    for d in ('ade20k', 'cityscapes')
    for p in (ROOT / 'configs' / d).glob('*.py')
)
DEMO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/demo').glob('fcn_specvit-tiny-p8-*.py'))
LINEAR = [p for p in CONFIGS if p.name.startswith(('linear_', 'linear4-ms_'))]
MS = [p for p in CONFIGS if p.name.startswith('linear4-ms_')]
COMPARISON = re.compile(r'upernet_vit-b14-dinov2-(?P<tech>[a-z-]+)_(?P<rest>.+)')


def load(path) -> Config:
    cfg = Config.fromfile(ROOT / path)
    if not torch.cuda.is_available():
        cpu_optim_wrapper(cfg)  # mmengine's AMP wrapper refuses a CPU-only host
    return cfg


def build_model(cfg):
    with DefaultScope.overwrite_default_scope('mmseg'), torch.device('meta'):
        return MODELS.build(cfg.model)


def check_forward(model, cfg, h, w):
    """The model's forward on a meta image of the crop size gives the config's classes."""
    if model.backbone.token_graying is not None:  # its fp32 autocast guard has no meta kernel;
        model.backbone.token_graying = torch.nn.Identity()  # it keeps the image shape
    with torch.no_grad():
        logits = model.eval()(torch.empty(1, 3, h, w, device='meta'), mode='tensor')
    if cfg.model.type == 'EoMT':  # per-layer mask and class logits; classes + no-object
        assert logits[1][-1].shape[-1] == cfg.model.num_classes + 1
    else:
        assert logits.shape[1] == cfg.model.decode_head.num_classes


@pytest.mark.parametrize('path', CONFIGS + DEMO, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = load(path)
    model = build_model(cfg)
    h, w = cfg.get('crop_size', (128, 128))
    # mmcv's deformable attention reads its level sizes as numbers, which meta tensors have not:
    # the ViT-Adapter configs run forward shrunk on real tensors (tests/e2e/test_ledger_configs)
    if cfg.model.backbone.type != 'ViTAdapter':
        check_forward(model, cfg, h, w)
    with DefaultScope.overwrite_default_scope('mmseg'):
        build_optim_wrapper(model, cfg.optim_wrapper)
        for name in ('train_pipeline', 'test_pipeline', 'tta_pipeline'):
            if name in cfg:
                Compose(cfg[name])
    folder = Path(path).parent.name
    if folder in ('ade20k', 'cityscapes'):
        data_root = {'ade20k': 'data/ade/ADEChallengeData2016', 'cityscapes': 'data/cityscapes'}
        assert cfg.train_dataloader.dataset.data_root == data_root[folder]
        assert cfg.model.test_cfg.mode == 'slide'
        assert (ROOT / path).read_text().startswith('# '), 'the header names the source'


def test_no_technique_that_needs_an_unreleased_pretraining_is_fine_tuned_or_probed_plain():
    """ls / lws need checkpoints pretrained with them (none released): no leaf ships them; and
    every probe is of a model with published probe numbers: DINOv2's /14 or DINOv3's /16 models."""
    for path in CONFIGS:
        text = (ROOT / path).read_text()
        assert not re.search(r'techniques/(layer_scale|layerwise_scaling)\.py', text), path
        assert not re.search(r'-(ls|lws)_', path.name), path
    for path in LINEAR:
        assert re.search(r'_vit-\w+14-dinov2|_vit-\w+16(plus)?-dinov3', path.name), path


@pytest.mark.parametrize('path', LINEAR, ids=str)
def test_linear_probe_is_frozen_with_the_published_taps(path):
    cfg = load(path)
    model = build_model(cfg)
    assert not any(p.requires_grad for p in model.backbone.parameters())
    assert {'type': 'LinearProbeHook'} in cfg.custom_hooks
    depth, dims = cfg.model.backbone.num_layers, cfg.model.backbone.embed_dims
    taps = 4 if path in MS else 1
    assert list(cfg.model.backbone.out_indices) == list(range(depth - taps, depth))
    assert cfg.model.backbone.final_norm is True  # get_intermediate_layers(norm=True)
    assert cfg.model.decode_head.in_channels == [dims] * taps
    assert model.decode_head.conv_seg.in_channels == dims * taps
    assert cfg.get('test_with_tta', False) is (path in MS)


def short_side_after(transform_cfg, h, w, seed=0):
    np.random.seed(seed)
    with DefaultScope.overwrite_default_scope('mmseg'):
        out = TRANSFORMS.build(transform_cfg)(
            dict(img=np.zeros((h, w, 3), np.uint8), img_shape=(h, w), ori_shape=(h, w))
        )
    return min(out['img'].shape[:2]), max(out['img'].shape[:2])


@pytest.mark.parametrize('path', [p for p in MS if 'ade20k' in p.name], ids=str)
def test_ms_tta_scales_the_short_side_to_640_times_each_ratio(path):
    """mmseg 0.x's MultiScaleFlipAug(img_scale=(99999999, 640), img_ratios=r) resized every image
    to a short side of int(640 * r), whatever its size; 1.x's Resize(scale_factor=r) would scale
    the original image instead (a 480x640 image would be tested at 480 * r)."""
    cfg = load(path)
    tta = next(t for t in cfg.tta_pipeline if t['type'] == 'TestTimeAug')['transforms']
    resizes, flips = tta[0], tta[1]
    for image in ((480, 640), (1200, 700)):
        got = [short_side_after(t, *image)[0] for t in resizes]
        assert got == [int(640 * r) for r in (1.0, 1.32, 1.73, 2.28, 3.0)], (image, got)
    assert [f['prob'] for f in flips] == [0.0, 1.0]


@pytest.mark.parametrize('path', [p for p in LINEAR if 'ade20k' in p.name], ids=str)
def test_dinov2_train_resize_sets_the_short_side_whatever_the_aspect(path):
    """img_scale=(99999999, s): the short side is s x ratio even for a panorama, where mmseg's
    usual (2048, 512) would cap the long side instead."""
    cfg = load(path)
    resize = next(t for t in cfg.train_pipeline if t['type'] == 'RandomResize')
    crop = cfg.crop_size[0]
    lo, hi = resize['ratio_range']
    for seed in range(5):
        short, long = short_side_after(resize, 100, 1000, seed)
        assert crop * lo - 1 <= short <= crop * hi + 1 and abs(long - 10 * short) <= 10


def test_technique_comparisons_differ_only_in_the_technique_line():
    groups = defaultdict(dict)
    for path in CONFIGS:
        match = COMPARISON.fullmatch(path.stem)
        if match:
            groups[match['rest']][match['tech']] = path
    assert groups and all(
        sorted(g) == ['plain', 'spec', 'spec-lora', 'tg-dct'] for g in groups.values()
    )
    for by_tech in groups.values():
        plain = (ROOT / by_tech['plain']).read_text().splitlines()
        for tech, path in by_tech.items():
            lines = (ROOT / path).read_text().splitlines()
            diff = [b for a, b in zip(plain, lines) if a != b]
            assert len(lines) == len(plain) and len(diff) == (tech != 'plain'), path
            assert all('_base_/models/techniques/' in line for line in diff), diff
            model = build_model(load(path))  # the technique is really on, and trains
            active = {
                'plain': lambda b: True,
                'spec': lambda b: any('cls_' in n for n, _ in b.named_parameters()),
                'spec-lora': lambda b: any('lora' in n for n, _ in b.named_parameters()),
                'tg-dct': lambda b: b.token_graying is not None,
            }[tech]
            assert active(model.backbone), path
            assert all(
                p.requires_grad
                for n, p in model.backbone.named_parameters()
                if n != 'norm.weight' and n != 'norm.bias'
            ), path


def test_the_specialization_probe_names_a_checkpoint_pretrained_with_it():
    spec = load('configs/ade20k/linear_vit-b14-dinov2-spec_bnhead_8xb2-40k_ade20k-512x512.py')
    plain = load('configs/ade20k/linear_vit-b14-dinov2-plain_bnhead_8xb2-40k_ade20k-512x512.py')
    assert spec.model.backbone.specialize and not plain.model.backbone.get('specialize')
    assert spec.model.backbone.init_cfg.checkpoint == 'pretrain/vit-b14_dinov2-spec.pth'
    assert plain.model.backbone.init_cfg.checkpoint != 'pretrain/vit-b14_dinov2.pth'


def test_mae_layer_decay_follows_mmseg_num_layers_plus_2():
    """mmseg's LayerDecayOptimizerConstructor: lr * 0.65 ** (num_layers + 1 - layer_id), layer_id
    0 for the embeddings, i + 1 for block i, num_layers + 1 for the rest (scale 1)."""
    cfg = load('configs/ade20k/upernet_vit-b16-mae_f2p_8xb2-amp-160k_ade20k-512x512.py')
    model = build_model(cfg)
    with DefaultScope.overwrite_default_scope('mmseg'):
        optimizer = build_optim_wrapper(model, cfg.optim_wrapper).optimizer
    lr = {name: g['lr'] for g in optimizer.param_groups for name in g['param_names']}
    assert lr['backbone.patch_embed.proj.weight'] == pytest.approx(1e-4 * 0.65**13)
    assert lr['backbone.blocks.0.attn.qkv.weight'] == pytest.approx(1e-4 * 0.65**12)
    assert lr['backbone.blocks.11.mlp.fc2.weight'] == pytest.approx(1e-4 * 0.65)
    assert lr['decode_head.conv_seg.weight'] == pytest.approx(1e-4)
