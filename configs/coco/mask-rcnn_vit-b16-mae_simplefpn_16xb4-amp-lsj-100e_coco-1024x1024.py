# ViTDet Mask R-CNN, ViT-B/16 from MAE ImageNet-1k weights, COCO, 100 epochs: facebookresearch/
# detectron2 projects/ViTDet/configs/COCO/mask_rcnn_vitdet_b_100ep.py (README: box AP
# 51.6, mask AP 45.9). Field by field in configs/coco/reproductions.yaml; the differences are in
# configs/coco/README.md. Weights:
#   python tools/convert_checkpoint.py mae_pretrain_vit_base.pth \
#       pretrain/vit-b16_mae.pth --format mae
_base_ = [
    '../_base_/models/backbones/vit-b16_mae.py',
    '../_base_/recipes/mask-rcnn_vitdet_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py',
]
model = dict(
    backbone=dict(
        _base_.backbone,
        **_base_.vitdet_backbone,
        drop_path_rate=0.1,
        global_attn_indexes=(2, 5, 8, 11),
        out_indices=(11,),
    ),
    neck=dict(in_channels=_base_.backbone['embed_dims']),
)
optim_wrapper = dict(paramwise_cfg=dict(decay_rate=0.7))  # get_vit_lr_decay_rate
