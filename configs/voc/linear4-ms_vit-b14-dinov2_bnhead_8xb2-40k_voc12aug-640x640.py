# DINOv2 linear probe "+ms", ViT-B/14, Pascal VOC 2012: arXiv 2304.07193 Table 10.
# Protocol and sources: the recipe fragment; the taps: the last 4 blocks' patch tokens after the
# final norm, frozen backbone; always tested multi-scale (test_with_tta).
_base_ = [
    '../_base_/models/backbones/vit-b14_dinov2.py',
    '../_base_/recipes/dinov2-linear4-ms_8xb2-40k_voc12aug-640x640.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        _base_.backbone,
        out_indices=list(range(depth - 4, depth)),
        final_norm=True,
        frozen_stages=depth,
    ),
    decode_head=dict(in_channels=[dims] * 4),
)
