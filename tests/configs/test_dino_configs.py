"""The COCO DINO configs build detrex's DINO-ViTDet (field by field against the published files in
configs/coco/reproductions.yaml; here: what the built model and optimizer do with them)."""

import pytest
import torch
from mmdet.registry import MODELS
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope
from timm.layers import LayerNorm2d

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT

DINO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/coco').glob('dino-*.py'))


def build(cfg):
    with DefaultScope.overwrite_default_scope('mmdet'), torch.device('meta'):
        return MODELS.build(cfg.model)


def test_the_published_runs_have_configs():
    names = {p.name.split('_')[1] + '-' + p.name.split('_')[3].split('-')[1] for p in DINO}
    assert names == {f'vit-{s}16-mae-{e}' for s in 'bl' for e in ('12e', '50e')}


@pytest.mark.parametrize('path', DINO, ids=str)
def test_four_levels_at_strides_8_to_64_and_256_channels(path):
    cfg = Config.fromfile(ROOT / path)
    model = build(cfg)
    size = (800, 1216)  # not a square: ViTDet's square padding is not applied here
    with torch.no_grad():
        feats = model.extract_feat(torch.empty(1, 3, *size, device='meta'))
    assert [tuple(f.shape[1:]) for f in feats] == [
        (256, -(-size[0] // s), -(-size[1] // s)) for s in (8, 16, 32, 64)
    ]
    assert model.encoder.layers[0].self_attn.num_levels == 4 == cfg.model.num_feature_levels


def test_backbone_and_pyramid_at_a_tenth_of_the_lr_and_no_decay_exactly_for_torch_norms():
    """detrex's lr_factor_func (0.1 for model.backbone, which holds its pyramid) and
    get_default_optimizer_params(weight_decay_norm=0): every parameter of an nn.LayerNorm or
    nn.GroupNorm undecayed, detectron2's own LayerNorm (the pyramid's, LN2d here) decayed."""
    cfg = Config.fromfile(ROOT / DINO[0])
    cfg.model.backbone.num_layers = 3  # the rule is per module kind; three blocks show it
    cfg.model.backbone.global_attn_indexes = (2,)
    cfg.model.backbone.out_indices = (2,)
    model = build(cfg)
    with DefaultScope.overwrite_default_scope('mmdet'):
        groups = build_optim_wrapper(model, cfg.optim_wrapper).optimizer.param_groups
    lr = {n: g['lr'] for g in groups for n in g['param_names']}
    wd = {n: g['weight_decay'] for g in groups for n in g['param_names']}
    assert set(lr) == {n for n, p in model.named_parameters() if p.requires_grad}
    for name, value in lr.items():
        slow = name.startswith(('backbone.', 'neck.necks.0.'))
        assert value == pytest.approx(1e-5 if slow else 1e-4), name
    torch_norms = {
        f'{module_name}.{n}'
        for module_name, m in model.named_modules()
        if isinstance(m, (torch.nn.LayerNorm, torch.nn.GroupNorm))
        and not isinstance(m, LayerNorm2d)  # LN2d: detectron2's LayerNorm, decayed
        for n, _ in m.named_parameters(recurse=False)
    }
    assert {n for n, w in wd.items() if w == 0} == torch_norms & set(wd)  # final norm: frozen
    assert wd['neck.necks.0.lateral_convs.0.ln.weight'] == 1e-4
    assert (
        wd['backbone.pos_embed']
        == wd['level_embed']
        == wd['encoder.layers.0.ffn.layers.1.bias']
        == 1e-4
    )
