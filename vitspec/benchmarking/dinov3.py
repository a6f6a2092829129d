"""The DINOv3 ViT-S/16 pair: SpecViT as its backbone fragment configures it (rotary embedding,
4 storage tokens as registers, LayerScale) and timm's port (timm/models/eva.py,
``vit_small_patch16_dinov3``), with the same random weights, checked to give the same features
before either is timed."""

import inspect
from pathlib import Path

import timm
import torch
from mmengine.config import Config

from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.config.location import config_dir
from vitspec.models import SpecViT

FRAGMENT = Path('_base_/models/backbones/vit-s16_dinov3.py')  # below config_dir()
TIMM_NAME = 'vit_small_patch16_dinov3'
PARITY_TOLERANCE = 1e-4


def fragment_backbone(dims, layers, heads, patch):
    """SpecViT kwargs of the DINOv3 ViT-S/16 fragment at the benchmark's size, last block out."""
    cfg = Config.fromfile(str(config_dir() / FRAGMENT)).backbone.to_dict()
    cfg.pop('type')
    cfg.pop('init_cfg', None)
    size = dict(embed_dims=dims, num_layers=layers, num_heads=heads, patch_size=patch)
    return dict(cfg, **size, out_indices=(layers - 1,))


def timm_dinov3(dims, layers, heads, patch):
    """timm's DINOv3 ViT-S/16 at the benchmark's size, with the fragment's qkv bias (the released
    ViT-S/16 has one; timm's ``_qkvb`` twin) and its input size; all tokens out, as 'timm'."""
    cfg = fragment_backbone(dims, layers, heads, patch)
    qkv_bias = cfg.get('qkv_bias', inspect.signature(SpecViT).parameters['qkv_bias'].default)
    return timm.create_model(
        TIMM_NAME,
        pretrained=False,
        num_classes=0,
        global_pool='',
        img_size=cfg['img_size'],
        patch_size=patch,
        embed_dim=dims,
        depth=layers,
        num_heads=heads,
        qkv_bias=qkv_bias,
    )


def specvit_dinov3(dims, layers, heads, patch):
    """SpecViT from the fragment carrying the weights of `timm_dinov3` built from the same random
    state (so those of the 'timm-dinov3' worker); raises unless both give the same features."""
    ref = timm_dinov3(dims, layers, heads, patch).eval()
    cfg = fragment_backbone(dims, layers, heads, patch)
    model = SpecViT(**cfg).eval()
    load_state_dict_strict(model, convert_checkpoint(ref.state_dict(), 'dinov3', heads)[0], 'timm')
    x = torch.randn(1, 3, cfg['img_size'], cfg['img_size'])
    with torch.no_grad():
        [got] = model(x)
        want = ref.forward_features(x)[:, ref.num_prefix_tokens :].transpose(1, 2)
    gap = (got.flatten(2) - want).abs().max().item()
    if gap > PARITY_TOLERANCE:
        raise RuntimeError(
            f'SpecViT from {FRAGMENT.name} differs from timm {TIMM_NAME} by {gap:.2e} '
            f'(more than {PARITY_TOLERANCE}) with the same weights: the pair would not time '
            'the same model'
        )
    return model
