# Technique comparison (a comparison recipe, not a published result): UPerNet fine-tuning on
# ADE20K from the released DINOv2 ViT-B/14 weights, one recipe for every technique (the recipe
# fragment says where it comes from); the four configs differ only in the technique line.
# Compare two runs with tools/compare_runs.py.
_base_ = [
    '../_base_/recipes/upernet_vit-b14-dinov2_f2p_8xb2-amp-160k_ade20k-512x512.py',
    '../_base_/models/techniques/specialized.py',
]
model = dict(backbone=_base_.technique)
