# DINOv2 ViT-B/14, frozen, + ViT-Adapter + Mask2Former, ADE20K: the recipe of the ViT-g/14
# row (mask2former_vit-g14-dinov2_vit-adapter_16xb1-80k_ade20k-896x896.py) at this size; no
# published result (DINOv2 reports the ViT-g/14 one only). Interaction groups of 3 blocks,
# deformable heads of width 64 as there.
_base_ = [
    '../_base_/models/backbones/vit-b14_dinov2.py',
    '../_base_/recipes/vit-adapter-m2f_16xb1-80k_ade20k-896x896.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        # the position table resampled by size, as DINOv2's segmentation_m2f ViTAdapter does
        vit=dict(_base_.backbone, final_norm=False, frozen_stages=depth, pos_embed_interp='vitdet'),
        interaction_indexes=[2, 5, 8, 11],
        deform_num_heads=12,
    ),
    decode_head=dict(in_channels=[dims] * 4),
)
