# DINOv2 ViT-g/14 in DINOv3's linear probe, ADE20K: DINOv3 (arXiv 2508.10104) Table 3, the DINOv2
# g/14 row. Protocol: the recipe fragment (DINOv3's ADE20K linear config at 448x448, the
# 1024-token resolution of patch 14); the taps as there: the last block's patch tokens after the
# backbone's final norm, frozen backbone. DINOv2's released g/14 weights.
_base_ = [
    '../_base_/models/backbones/vit-g14_dinov2.py',
    '../_base_/recipes/dinov3-linear_8xb2-40k_ade20k-448x448.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims]),
)
