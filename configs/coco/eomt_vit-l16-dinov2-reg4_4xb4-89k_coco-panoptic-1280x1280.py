# EoMT-L, COCO panoptic 1280 x 1280: the EoMT model zoo's 58.3 PQ (tue-mps/eomt
# model_zoo/dinov2.md; ledger row eomt-coco-panoptic-vitl16-1280 in reproductions.yaml). The
# recipe fragment holds the protocol; this leaf adds no technique (swap the technique file to
# train another: docs/mask_classification.md).
_base_ = [
    '../_base_/recipes/eomt_vit-l16-dinov2-reg4_4xb4-89k_coco-panoptic-640x640.py',
    '../_base_/models/techniques/plain.py',
]
image_size = (1280, 1280)  # tue-mps/eomt configs/dinov2/coco/panoptic/eomt_large_1280.yaml
model = dict(backbone=dict(_base_.technique, img_size=image_size))
pad = dict(_base_.pad, size=image_size)
train_pipeline = [
    *_base_.train_pipeline[:4],
    dict(_base_.train_pipeline[4], scale=image_size),
    dict(_base_.train_pipeline[5], crop_size=image_size),
    pad,
    _base_.train_pipeline[7],
]
test_pipeline = [
    *_base_.test_pipeline[:2],
    dict(_base_.test_pipeline[2], scale=image_size),
    pad,
    *_base_.test_pipeline[4:],
]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
