# DINOv2 linear probe ("lin."), ViT-B/14, Pascal VOC 2012: arXiv 2304.07193 Table 10.
# Protocol and sources: the recipe fragment; the taps of the hosted linear config: the last
# block's patch tokens after the final norm, frozen backbone.
_base_ = [
    '../_base_/models/backbones/vit-b14_dinov2.py',
    '../_base_/recipes/dinov2-linear_8xb2-40k_voc12aug-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims]),
)
