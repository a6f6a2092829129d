"""Every depth config builds its model (meta device), optimizer and pipelines; the DINOv2
reproduction configs hold the published protocol (hosted configs and the Toolbox's transforms);
the schedule is mmcv's cosine-with-linear-warm-up and OneCycle momentum, step for step."""

import math

import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope
from mmseg.registry import MODELS

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT, schedule_trace

ALL = sorted(
    p.relative_to(ROOT) for d in ('nyu', 'kitti') for p in (ROOT / 'configs' / d).glob('*.py')
)
GRIDS = [p for p in ALL if '-grid_' in p.name]  # probe grids: tests/config/test_probe_grid.py
REPRO = [p for p in ALL if '-dinov2_8xb2' in p.name and p not in GRIDS]
FIXED = [p for p in ALL if '_gradloss-fixed_' in p.name]
DINOV3 = [p for p in ALL if '-dinov3_' in p.name]  # tests/configs/test_dinov3_configs.py
QUIRK = [p for p in ALL if '_train-mode-quirk_' in p.name]  # test_linear_probe_train_mode.py
DEMO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/demo').glob('*demo-nyu*.py'))
TAPS = {12: (2, 5, 8, 11), 24: (4, 11, 17, 23), 40: (9, 19, 29, 39)}
WIDTH = {'s': 384, 'b': 768, 'l': 1024, 'g': 1536}
SCHEDULE = ROOT / 'configs/_base_/schedules/schedule_depth_38k.py'


def build_model(cfg):
    with DefaultScope.overwrite_default_scope('mmseg'), torch.device('meta'):
        return MODELS.build(cfg.model)


def test_the_grid_is_complete():
    names = {p.name for p in ALL}
    for ds, crop in (('nyu', '416x544'), ('kitti', '352x704')):
        for size in 'sbgl':
            for head in ('lin1', 'lin4', 'dpt'):
                for tag in ('', '_gradloss-fixed'):
                    assert f'{head}_vit-{size}14-dinov2{tag}_8xb2-38k_{ds}-{crop}.py' in names
    spec = {'lin4_vit-s14-dinov2-spec_8xb2-38k_nyu-416x544.py'} | {  # arXiv 2602.08626's ViT-L
        f'lin4_vit-l14-dinov2-{kind}_8xb2-38k_{ds}-{crop}.py'
        for kind in ('plain', 'spec')
        for ds, crop in (('nyu', '416x544'), ('kitti', '352x704'))
    }
    dinov3 = {
        f'linear_vit-{size}-dinov3_bnhead_8xb2-38k_nyu-416x544.py'
        for size in ('s16', 's16plus', 'b16', 'l16', 'h16plus', '7b16')
    } | {'linear_vit-7b16-dinov3_bnhead_8xb2-38k_kitti-352x704.py'}  # DINOv3 Table 3
    dinov3 |= {n.replace('_bnhead_', '_bnhead_train-mode-quirk_') for n in dinov3 if 'nyu' in n}
    assert {p.name for p in DINOV3} == dinov3
    dinov2_in_dinov3 = {  # DINOv3 Table 3, the DINOv2 ViT-g/14 row
        f'linear_vit-g14-dinov2_dinov3-protocol_bnhead_8xb2-38k_{ds}.py'
        for ds in ('nyu-416x544', 'kitti-352x704')
    }
    grids = {'lin-grid_vit-s14-dinov2_8xb2-38k_nyu-416x544.py'}
    assert names == {p.name for p in REPRO + FIXED} | spec | dinov3 | dinov2_in_dinov3 | grids
    assert len(REPRO) == len(FIXED) == 24


# The gradloss-fixed leaves equal their reproduction config but for the loss (tested below), the
# train-mode-quirk ones but for the RoPE rescale and the hook's train_mode_iters.
@pytest.mark.parametrize('path', [p for p in ALL if p not in FIXED + QUIRK] + DEMO, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    if path.parent.name in ('nyu', 'kitti'):  # frozen probes: only the head trains
        model.train()
        assert not any(p.requires_grad for p in model.backbone.parameters())
        assert all(p.requires_grad for p in model.decode_head.parameters())
    h, w = cfg.crop_size  # not a multiple of 14: the backbone centre-pads
    with torch.no_grad():
        depth = model.eval()(torch.empty(2, 3, h, w, device='meta'), mode='tensor')
    assert depth.shape[:2] == (2, 1)
    with DefaultScope.overwrite_default_scope('mmseg'):
        build_optim_wrapper(model, cfg.optim_wrapper)
        Compose(cfg.train_pipeline)
        Compose(cfg.test_pipeline)
    assert cfg.model.data_preprocessor.seg_pad_val == 0


def transforms(pipeline):
    return [t['type'] for t in pipeline]


@pytest.mark.parametrize('path', REPRO, ids=str)
def test_reproduction_protocol(path):
    cfg = Config.fromfile(ROOT / path)
    backbone, head = cfg.model.backbone, cfg.model.decode_head
    kitti = path.parent.name == 'kitti'
    size = path.name.split('_vit-')[1][0]
    assert backbone.embed_dims == WIDTH[size]
    assert backbone.init_cfg.checkpoint == f'pretrain/vit-{size}14_dinov2.pth'
    assert cfg.depth_range == dict(min_depth=1e-3, max_depth=80.0 if kitti else 10.0)
    assert head.max_depth == cfg.test_evaluator.max_depth == cfg.depth_range['max_depth']
    assert cfg.test_evaluator.crop == ('garg' if kitti else 'nyu_eigen')
    assert backbone.output_cls_token and not backbone.final_norm
    assert backbone.frozen_stages == backbone.num_layers
    taps = TAPS[backbone.num_layers]
    if path.name.startswith('lin1'):
        assert backbone.out_indices == taps[-1:] and head.num_inputs == 1
    else:
        assert backbone.out_indices == taps
    if path.name.startswith('lin'):
        assert head.classify and head.n_bins == 256 and head.upsample == 4 and head.use_cls_token
        assert head.with_bn is False and head.init_cfg is None
    else:
        assert head.type == 'DPTDepthHead' and head.readout_type == 'project'
        assert not head.classify and head.channels == 256
        d = WIDTH[size]
        assert head.post_process_channels == [d // 8, d // 4, d // 2, d]
    sig, grad = head.loss_decode
    assert sig == dict(type='SigLoss', warm_up_iters=100)
    assert grad == dict(type='GradientLoss', loss_weight=0.5, dinov2_slicing=True)
    assert cfg.model.data_preprocessor.size_divisor == 1  # the backbone centre-pads
    assert cfg.model.test_cfg.mode == 'slide_flip'  # one window over the whole image + flip
    assert tuple(cfg.model.test_cfg.crop_size) == ((352, 1216) if kitti else (480, 640))
    first = 'KBCrop' if kitti else 'RegionCrop'
    assert transforms(cfg.train_pipeline)[:3] == [
        'LoadImageFromFile',
        'CheckSampleFiles',
        'LoadDepthPNG',
    ]
    assert transforms(cfg.train_pipeline)[3:] == [
        first,
        'RandomRotate',
        'RandomFlip',
        'RandomCrop',
        'ColorAug',
        'PackSegInputs',
    ]
    rotate, color = cfg.train_pipeline[4], cfg.train_pipeline[7]
    assert rotate.degree == 2.5 and rotate.prob == 0.5 and rotate.seg_pad_val == 0
    assert tuple(color.brightness_range) == ((0.9, 1.1) if kitti else (0.75, 1.25))
    assert cfg.train_dataloader.batch_size == 2


@pytest.mark.parametrize('path', FIXED, ids=str)
def test_gradloss_fixed_differs_only_in_the_gradient_loss(path):
    fixed = Config.fromfile(ROOT / path)
    repro = Config.fromfile(ROOT / path.parent / path.name.replace('_gradloss-fixed', ''))
    assert fixed.model.decode_head.loss_decode[1] == dict(type='GradientLoss', loss_weight=0.5)
    fixed.model.decode_head.loss_decode = repro.model.decode_head.loss_decode
    assert fixed.to_dict() == repro.to_dict()


def mmcv_lr(t, base=1e-4, total=38400, warmup=12800, ratio=1e-3, min_ratio=1e-8):
    """mmcv 1.x CosineAnnealingLrUpdaterHook with warmup='linear' (lr_updater.py)."""
    target = base * min_ratio
    regular = target + 0.5 * (base - target) * (1 + math.cos(math.pi * t / total))
    if t >= warmup:
        return regular
    return regular * (1 - (1 - t / warmup) * (1 - ratio))


def mmcv_beta1(t, total=38400, pct=0.3, low=0.85, high=0.95):
    """mmcv 1.x OneCycleMomentumUpdaterHook (momentum_updater.py), two phases, cos."""

    def cos(start, end, f):
        return end + 0.5 * (start - end) * (1 + math.cos(math.pi * f))

    turn = float(pct * total) - 1
    if t <= turn:
        return cos(high, low, t / turn)
    return cos(low, high, (t - turn) / (total - 1 - turn))


def test_schedule_is_mmcv_cosine_with_linear_warmup_and_one_cycle_momentum():
    lrs, betas = schedule_trace(SCHEDULE)
    checked = 0
    for t, (lr, beta1) in enumerate(zip(lrs, betas)):
        if t % 97 == 0 or t in (0, 1, 11518, 11519, 11520, 12799, 12800, 38399):
            assert lr == pytest.approx(mmcv_lr(t), rel=1e-6), t
            assert beta1 == pytest.approx(mmcv_beta1(t), abs=1e-9), t
            checked += 1
    assert checked > 390
    assert mmcv_lr(12800) == pytest.approx(0.75e-4)  # the peak lr of the published schedule


TWINS = [p for p in ALL if '-dinov2-spec_' in p.name or '-dinov2-plain_' in p.name]


@pytest.mark.parametrize('path', REPRO + FIXED + TWINS, ids=str)
def test_total_batch_is_eight_gpus_of_two_images(path):
    """BinsFormer's 8 x 2 (the hosted configs' gpu_ids = range(0, 1) counts no GPUs: the Toolbox's
    tools/train.py writes range(1) without --gpus, its 8-GPU BinsFormer log ends the same way;
    DINOv3's depth config says bs 2, n_gpus 8): the name and auto_scale_lr say 8 x 2."""
    cfg = Config.fromfile(ROOT / path)
    gpus, batch = (int(n) for n in path.name.split('_')[-2].split('-')[0].split('xb'))
    assert (gpus, batch) == (8, cfg.train_dataloader.batch_size) == (8, 2)
    assert cfg.auto_scale_lr == dict(enable=False, base_batch_size=gpus * batch)
