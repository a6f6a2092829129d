"""Every depth config builds its model (meta device), optimizer and pipelines; the DINOv2
protocol configs are frozen probes that differ only in their technique line."""
import math

import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope
from mmseg.registry import MODELS

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT

PROTOCOL = sorted(p.relative_to(ROOT) for d in ('nyu', 'kitti')
                  for p in (ROOT / 'configs' / d).glob('*.py'))
DEMO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/demo').glob('*demo-nyu*.py'))
TAPS = {12: (2, 5, 8, 11), 24: (4, 11, 17, 23)}


def build_model(cfg):
    with DefaultScope.overwrite_default_scope('mmseg'), torch.device('meta'):
        return MODELS.build(cfg.model)


def test_the_grid_is_complete():
    names = {p.name for p in PROTOCOL}
    assert len(names) == 2 * 3 * 2 * 3  # dataset x size x technique x head
    for ds, crop in (('nyu', '416x544'), ('kitti', '352x704')):
        for size in 'sbl':
            for tech in ('plain', 'spec'):
                for head in ('lin1', 'lin4', 'dpt'):
                    assert f'{head}_vit-{size}14-dinov2-{tech}_8xb2-38k_{ds}-{crop}.py' in names


@pytest.mark.parametrize('path', PROTOCOL + DEMO, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    divisor = cfg.model.data_preprocessor.size_divisor
    h, w = (math.ceil(s / divisor) * divisor for s in cfg.crop_size)
    with torch.no_grad():
        depth = model.eval()(torch.empty(2, 3, h, w, device='meta'), mode='tensor')
    assert depth.shape[:2] == (2, 1)
    with DefaultScope.overwrite_default_scope('mmseg'):
        build_optim_wrapper(model, cfg.optim_wrapper)
        Compose(cfg.train_pipeline)
        Compose(cfg.test_pipeline)
    for pipeline in (cfg.train_pipeline, cfg.test_pipeline):
        assert 'crop_offset' in pipeline[-1]['meta_keys']
    assert cfg.model.data_preprocessor.seg_pad_val == 0


@pytest.mark.parametrize('path', PROTOCOL, ids=str)
def test_protocol_settings(path):
    cfg = Config.fromfile(ROOT / path)
    backbone, head = cfg.model.backbone, cfg.model.decode_head
    kitti = path.parent.name == 'kitti'
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
    else:
        assert head.type == 'DPTDepthHead' and head.readout_type == 'project'
        assert not head.classify and head.channels == 256
    model = build_model(cfg).train()
    assert not any(p.requires_grad for p in model.backbone.parameters())
    assert all(p.requires_grad for p in model.decode_head.parameters())


@pytest.mark.parametrize('path', [p for p in PROTOCOL if '-spec_' in p.name], ids=str)
def test_specialized_differs_from_plain_only_in_the_technique(path):
    plain = ROOT / path.parent / path.name.replace('-spec_', '-plain_')
    lines = lambda p: [ln for ln in p.read_text().splitlines() if not ln.startswith('#')]
    diff = [a for a, b in zip(lines(plain), lines(ROOT / path)) if a != b]
    assert any('techniques/' in a for a in diff), diff
    assert all('techniques/' in a or 'checkpoint=' in a for a in diff), diff
    spec = Config.fromfile(ROOT / path).model.backbone.specialize
    assert spec['qkv_blocks'] == 'first_third'
