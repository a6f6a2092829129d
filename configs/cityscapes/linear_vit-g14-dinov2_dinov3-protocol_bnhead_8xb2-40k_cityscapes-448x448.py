# DINOv2 ViT-g/14 in DINOv3's linear probe, Cityscapes: DINOv3 (arXiv 2508.10104) Table 3, the
# DINOv2 g/14 row ("Citysc." column). Protocol: the recipe fragment (no published Cityscapes
# config; 448x448 crops and windows, the 1024-token resolution of patch 14); the taps as DINOv3's
# ADE20K config: the last block's patch tokens after the backbone's final norm, frozen backbone.
_base_ = [
    '../_base_/models/backbones/vit-g14_dinov2.py',
    '../_base_/recipes/dinov3-linear_8xb2-40k_cityscapes-448x448.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims]),
)
