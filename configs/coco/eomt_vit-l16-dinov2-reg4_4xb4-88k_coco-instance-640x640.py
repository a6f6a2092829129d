# EoMT-L, COCO instance 640 x 640: the EoMT model zoo's 45.2 mask AP (pycocotools) (tue-mps/eomt
# model_zoo/dinov2.md; ledger row eomt-coco-instance-vitl16-640 in reproductions.yaml). The
# recipe fragment holds the protocol; this leaf adds no technique (swap the technique file to
# train another: docs/mask_classification.md).
_base_ = [
    '../_base_/recipes/eomt_vit-l16-dinov2-reg4_4xb4-88k_coco-instance-640x640.py',
    '../_base_/models/techniques/plain.py',
]
model = dict(backbone=_base_.technique)
