# DINOv2 linear probe ("lin."), ViT-L/14, ADE20K: arXiv 2304.07193 Table 10 (the
# mIoU could not be read in the paper: see configs/ade20k/reproductions.yaml).
# Protocol: the recipe fragment (DINOv2's hosted linear config); the taps as there: the last
# block's patch tokens after the final norm, frozen backbone.
_base_ = [
    '../_base_/models/backbones/vit-l14_dinov2.py',
    '../_base_/recipes/dinov2-linear_8xb2-40k_ade20k-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims]),
)
