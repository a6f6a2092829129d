# DINOv3 linear depth probe, ViT-L/16, NYU-Depth v2: DINOv3 (arXiv 2508.10104), the NYU column
# (RMSE) of facebookresearch/dinov3 MODEL_CARD.md's results table (dense tasks "using linear
# layers"). Protocol: the recipe fragment (config-nyu.yaml); the taps as there: the last
# block's patch tokens after the final norm (use_backbone_norm), frozen backbone.
_base_ = [
    '../_base_/models/backbones/vit-l16_dinov3.py',
    '../_base_/recipes/dinov3-linear_8xb2-38k_nyu-416x544.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=(depth - 1,), final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=dims),
)
