"""EoMT's layer-wise lr decay is upstream's (tue-mps/eomt training/lightning_module.py
configure_optimizers): block i of L at lr x llrd^(L - 1 - i), the patch embedding, position
table, CLS and register tokens as block 0, the backbone's final norm and everything outside the
backbone (queries, heads) at lr. The constructor's own depth rule is one step lower (block i at
llrd^(L - i), the embeddings at llrd^(L + 1)); the EoMT schedule's lr_mults lift it."""

import re

import pytest
import torch
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
from mmengine.registry import MODELS, DefaultScope

import vitspec  # noqa: F401  (registers)
from tests.shrink_config import cpu_optim_wrapper
from tests.utils import ROOT

LEAVES = sorted(
    p.relative_to(ROOT)
    for folder in ('ade20k', 'cityscapes', 'coco')
    for p in (ROOT / 'configs' / folder).glob('eomt_*.py')
)
SCOPE = {'ade20k': 'mmseg', 'cityscapes': 'mmseg', 'coco': 'mmdet'}
PREFIX = 'network.backbone.'


def upstream_scale(name: str, num_layers: int, llrd: float) -> float:
    if not name.startswith(PREFIX):
        return 1.0
    block = re.match(r'blocks\.(\d+)\.', name[len(PREFIX) :])
    if block:
        return llrd ** (num_layers - 1 - int(block[1]))
    if name[len(PREFIX) :].startswith('norm.'):
        return 1.0
    return llrd ** (num_layers - 1)  # the embeddings, as block 0


def test_the_leaves_are_found():
    assert len(LEAVES) == 8


@pytest.mark.parametrize('leaf', LEAVES, ids=str)
def test_every_parameter_gets_upstreams_layer_decayed_lr(leaf):
    cfg = Config.fromfile(ROOT / leaf)
    cpu_optim_wrapper(cfg)
    llrd = cfg.optim_wrapper.paramwise_cfg.decay_rate
    assert llrd == 0.8  # upstream's llrd default
    num_layers = cfg.model.backbone.num_layers
    with DefaultScope.overwrite_default_scope(SCOPE[leaf.parts[1]]):
        with torch.device('meta'):
            model = MODELS.build(cfg.model)
        optimizer = build_optim_wrapper(model, cfg.optim_wrapper).optimizer
    base_lr = cfg.optim_wrapper.optimizer.lr
    seen = 0
    for group in optimizer.param_groups:
        for name in group['param_names']:
            want = base_lr * upstream_scale(name, num_layers, llrd)
            assert group['lr'] == pytest.approx(want, rel=1e-12), name
            seen += 1
    assert seen == sum(1 for p in model.parameters() if p.requires_grad)
