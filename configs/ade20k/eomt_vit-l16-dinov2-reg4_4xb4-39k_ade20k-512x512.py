# EoMT-L, ADE20K semantic 512 x 512: the EoMT model zoo's 58.4 mIoU (tue-mps/eomt
# model_zoo/dinov2.md; ledger row eomt-ade20k-semantic-vitl16 in reproductions.yaml). The recipe
# fragment holds the whole protocol; this leaf adds no technique (swap the technique file to
# train another: docs/mask_classification.md).
_base_ = [
    '../_base_/recipes/eomt_vit-l16-dinov2-reg4_4xb4-39k_ade20k-512x512.py',
    '../_base_/models/techniques/plain.py',
]
model = dict(backbone=_base_.technique)
