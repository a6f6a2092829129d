"""The M2F head tests' toy sizes, shared by DINOv2's and DINOv3's: our Mask2Former fragment at
those sizes, a source's released head at them, and adapter maps to run both on."""

import copy

import torch
from mmengine.config import Config, ConfigDict
from mmengine.registry import init_default_scope
from mmseg.registry import MODELS

from tests.checkpoints.m2f_reference import head_layout, synthetic

IN_DIMS, DIMS, HEADS, FFN, CLASSES, QUERIES, ENC, DEC = 24, 64, 4, 96, 5, 7, 2, 4


def toy_head_cfg(fragment, in_dims=IN_DIMS):
    """Our Mask2Former fragment's decode head at toy sizes: only widths, depths and counts
    change."""
    head = copy.deepcopy(Config.fromfile(str(fragment)).model.decode_head)
    head.update(in_channels=[in_dims] * 4, feat_channels=DIMS, out_channels=DIMS)
    head.update(num_classes=CLASSES, num_queries=QUERIES)
    head.loss_cls.class_weight = [1.0] * CLASSES + [0.1]
    encoder, decoder = head.pixel_decoder.encoder, head.transformer_decoder
    encoder.num_layers, decoder.num_layers = ENC, DEC
    for attn in (
        encoder.layer_cfg.self_attn_cfg,
        decoder.layer_cfg.self_attn_cfg,
        decoder.layer_cfg.cross_attn_cfg,
    ):
        attn.update(embed_dims=DIMS, num_heads=HEADS)
    for ffn in (encoder.layer_cfg.ffn_cfg, decoder.layer_cfg.ffn_cfg):
        ffn.update(embed_dims=DIMS, feedforward_channels=FFN)
    for pos in (head.positional_encoding, head.pixel_decoder.positional_encoding):
        pos.num_feats = DIMS // 2
    return head


def build_toy_head(fragment, in_dims=IN_DIMS):
    init_default_scope('mmseg')
    return MODELS.build(ConfigDict(toy_head_cfg(fragment, in_dims)))


def released_head(source, seed=0, in_dims=IN_DIMS):
    """Synthetic weights of ``source``'s head (a reference module: its KEYS, under its HEAD)."""
    layout = head_layout(source.KEYS, in_dims, DIMS, FFN, HEADS, CLASSES, QUERIES, ENC, DEC)
    return synthetic(layout, source.HEAD, seed=seed)


def adapter_maps(batch=2, size=(64, 96), seed=1):
    """The adapter's 4 maps at strides 4, 8, 16, 32 of a ``size`` image, finest first."""
    g = torch.Generator().manual_seed(seed)
    h, w = size
    return [torch.randn(batch, IN_DIMS, h // s, w // s, generator=g) for s in (4, 8, 16, 32)]
