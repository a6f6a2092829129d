# DINOv2 ViT-g/14 in DINOv3's linear depth probe, KITTI: DINOv3 (arXiv 2508.10104) Table 3, the
# DINOv2 g/14 row (KITTI RMSE). Protocol: the recipe fragment (no published KITTI config); the
# taps as DINOv3's NYU config: the last block's patch tokens after the final norm, frozen
# backbone. The paper adapts the resolution to the patch size for segmentation only: the 352x704
# crops stay, centre-padded to a multiple of 14 by the backbone (as DINOv2's CenterPadding).
_base_ = [
    '../_base_/models/backbones/vit-g14_dinov2.py',
    '../_base_/recipes/dinov3-linear_8xb2-38k_kitti-352x704.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=(depth - 1,), final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=dims),
)
