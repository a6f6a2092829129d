"""The DINOv3 depth reproduction mode: LinearProbeHook(train_mode_iters=N) leaves the frozen
backbone in train mode for the first N iterations (facebookresearch/dinov3
dinov3/eval/depth/train.py: depther.train() before training, eval from the first validation on),
so RoPE's rescale_coords draws a new coordinate scale at every forward until then."""

from types import SimpleNamespace

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.engine.hooks.linear_probe import LinearProbeHook
from vitspec.models import SpecViT

NYU = ROOT / 'configs' / 'nyu'
QUIRK = sorted(NYU.glob('*-dinov3_bnhead_train-mode-quirk_*.py'))


def toy_model():
    backbone = SpecViT(
        img_size=32,
        patch_size=8,
        embed_dims=32,
        num_layers=2,
        num_heads=2,
        out_indices=(1,),
        with_pos_embed=False,
        pos_embed_cls=False,
        rope=dict(base=100.0, normalize_coords='separate', rescale_coords=2.0),
        frozen_stages=2,
    )
    model = torch.nn.Module()
    model.backbone = backbone
    return model


def features(model, hook, it):
    hook.before_train_iter(SimpleNamespace(model=model, iter=it), batch_idx=it)
    with torch.no_grad():
        return model.backbone(torch.ones(1, 3, 32, 32))[-1]


def test_train_mode_rescales_rope_until_the_given_iteration_then_eval():
    torch.manual_seed(0)
    model = toy_model()
    model.train()
    model.backbone.eval()
    with torch.no_grad():
        reference = model.backbone(torch.ones(1, 3, 32, 32))[-1]
    hook = LinearProbeHook(train_mode_iters=1600)
    early = [features(model, hook, it) for it in (0, 1599)]
    assert model.backbone.rope.training
    assert not torch.allclose(early[0], early[1])  # a new random coordinate scale each time
    assert not any(torch.allclose(f, reference) for f in early)
    late = [features(model, hook, it) for it in (1600, 1601)]
    assert not any(m.training for m in model.backbone.modules())
    assert all(torch.equal(f, reference) for f in late)
    assert not any(p.requires_grad for p in model.backbone.parameters())


def test_default_hook_keeps_the_backbone_in_eval_mode():
    torch.manual_seed(0)
    model = toy_model()
    model.train()
    assert model.backbone.rope.training  # SpecViT.train leaves its RoPE module in train mode
    features(model, LinearProbeHook(), 0)
    assert not any(m.training for m in model.backbone.modules())


@pytest.mark.parametrize('path', QUIRK, ids=lambda p: p.name)
def test_quirk_config_differs_only_in_rope_rescale_and_train_mode_iters(path):
    quirk = Config.fromfile(path)
    base = Config.fromfile(NYU / path.name.replace('_train-mode-quirk', ''))
    assert quirk.model.backbone.rope.pop('rescale_coords') == 2.0
    probe = [h for h in quirk.custom_hooks if h['type'] == 'LinearProbeHook']
    assert len(probe) == 1 and probe[0].pop('train_mode_iters') == base.train_cfg.val_interval
    assert base.train_cfg.val_interval == 1600
    assert quirk.to_dict() == base.to_dict()


def test_every_dinov3_nyu_config_has_its_quirk_twin():
    bases = sorted(NYU.glob('linear_vit-*-dinov3_bnhead_8xb2-38k_nyu-416x544.py'))
    assert [p.name.replace('_train-mode-quirk', '') for p in QUIRK] == [p.name for p in bases]
