"""One list of source-only keys (classifier heads, fc_norm, MAE's decoder, mask / distillation
tokens): conversion drops them, loading ignores those the model lacks and says so."""

import pytest
import timm
import torch
from torch import nn

import vitspec.checkpoints.load as load
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.checkpoints.layouts.backbone_formats import SOURCE_ONLY_KEYS, convert_state_dict
from vitspec.errors import CheckpointError
from vitspec.models import SpecViT

SOURCE_ONLY = {
    'head.weight': torch.zeros(10, 192),
    'head_dist.bias': torch.zeros(10),
    'fc_norm.weight': torch.ones(192),
    'dist_token': torch.zeros(1, 1, 192),
    'mask_token': torch.zeros(1, 1, 192),
    'decoder_embed.weight': torch.zeros(128, 192),
    'decoder_blocks.0.attn.qkv.weight': torch.zeros(384, 128),
    'decoder_pred.bias': torch.zeros(3),
    'decoder.norm.weight': torch.ones(128),
}


def tiny_vit():
    return timm.create_model(
        'vit_tiny_patch16_224', pretrained=False, num_classes=0, img_size=32, depth=2
    )


@pytest.mark.parametrize('key', sorted(SOURCE_ONLY))
def test_pattern_covers_every_source_only_key(key):
    assert SOURCE_ONLY_KEYS.match(key)


@pytest.mark.parametrize(
    'key',
    ['norm.weight', 'blocks.0.norm1.weight', 'cls_token', 'blocks.0.mlp.fc1.weight', 'reg_token'],
)
def test_pattern_leaves_backbone_keys(key):
    assert not SOURCE_ONLY_KEYS.match(key)


@pytest.mark.parametrize('fmt', ['timm', 'dinov2', 'deit3', 'cait', 'mae'])
def test_conversion_drops_source_only_keys(fmt):
    sd = dict(tiny_vit().state_dict(), **SOURCE_ONLY)
    out = convert_state_dict(sd, fmt)
    assert not [k for k in out if SOURCE_ONLY_KEYS.match(k)]
    assert 'norm.weight' in out and 'blocks.1.mlp.fc2.weight' in out


def test_mae_global_pool_norm_becomes_the_final_norm():
    """MAE fine-tuned with global pooling has fc_norm and no norm: fc_norm is the final norm."""
    sd = tiny_vit().state_dict()
    sd['fc_norm.weight'], sd['fc_norm.bias'] = sd.pop('norm.weight') + 1, sd.pop('norm.bias')
    sd['decoder_pred.weight'] = torch.zeros(3)
    sd, cfg = convert_checkpoint(dict(model=sd), 'mae')
    assert 'decoder_pred.weight' not in sd
    assert torch.equal(sd['norm.weight'], torch.full((192,), 2.0))
    assert 'fc_norm.weight' not in sd
    load.load_state_dict_strict(SpecViT(**cfg), sd)


def test_loading_ignores_source_only_keys_and_reports_them(monkeypatch):
    logged = []
    monkeypatch.setattr(load, 'print_log', lambda msg, logger=None: logged.append(msg))
    src = tiny_vit()
    model = SpecViT(
        img_size=32, patch_size=16, embed_dims=192, num_layers=2, num_heads=3, pos_embed_cls=True
    )
    load.load_state_dict_strict(model, dict(src.state_dict(), **SOURCE_ONLY), source='mae.pth')
    assert torch.equal(model.blocks[1].mlp.fc2.weight, src.blocks[1].mlp.fc2.weight)
    assert logged == [f'mae.pth: ignored source keys: {", ".join(sorted(SOURCE_ONLY))}']


def test_loading_refuses_other_unexpected_keys():
    model = SpecViT(
        img_size=32, patch_size=16, embed_dims=192, num_layers=2, num_heads=3, pos_embed_cls=True
    )
    sd = dict(tiny_vit().state_dict(), **{'pre_logits.fc.weight': torch.zeros(1)})
    with pytest.raises(CheckpointError, match=r'unexpected keys \(1\): pre_logits\.fc\.weight'):
        load.load_state_dict_strict(model, sd)


def test_a_model_that_has_a_head_loads_it():
    model = nn.ModuleDict(dict(head=nn.Linear(2, 3)))
    sd = {'head.weight': torch.ones(3, 2), 'head.bias': torch.ones(3)}
    load.load_state_dict_strict(model, sd)
    assert torch.equal(model.head.weight, torch.ones(3, 2))
    with pytest.raises(CheckpointError, match=r'shape mismatches \(1\): head\.weight'):
        load.load_state_dict_strict(model, dict(sd, **{'head.weight': torch.ones(4, 2)}))
