# DINOv3 linear probe, ViT-S+/16, ADE20K: DINOv3 (arXiv 2508.10104), the ADE20k column of
# facebookresearch/dinov3 MODEL_CARD.md's results table (dense tasks "using linear layers").
# Protocol: the recipe fragment (config-ade20k-linear-training.yaml); the taps as there: the
# last block's patch tokens after the backbone's final norm, frozen backbone.
_base_ = [
    '../_base_/models/backbones/vit-s16plus_dinov3.py',
    '../_base_/recipes/dinov3-linear_8xb2-40k_ade20k-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims]),
)
