# EoMT-L, Cityscapes semantic 1024 x 1024: the EoMT model zoo's 84.2 mIoU (tue-mps/eomt
# model_zoo/dinov2.md; ledger row eomt-cityscapes-semantic-vitl16 in reproductions.yaml). The
# recipe fragment holds the whole protocol; this leaf adds no technique (swap the technique file
# to train another: docs/mask_classification.md).
_base_ = [
    '../_base_/recipes/eomt_vit-l16-dinov2-reg4_4xb4-20k_cityscapes-1024x1024.py',
    '../_base_/models/techniques/plain.py',
]
model = dict(backbone=_base_.technique)
