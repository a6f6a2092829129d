"""Backbones the tests build at a published size, as SpecViT's arguments, in one place.

VIT_S14: DINOv2's ViT-S/14 (facebookresearch/dinov2 hubconf's vit_small, patch 14, 518 px, the
LayerScale at 1e-5), the size arguments of configs/_base_/models/backbones/vit-s14_dinov2.py
(tests/models/backbones/test_spec_vit_techniques.py checks that they agree).
"""

VIT_S14 = dict(
    img_size=518,
    patch_size=14,
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    layer_scale_init=1e-5,
)
