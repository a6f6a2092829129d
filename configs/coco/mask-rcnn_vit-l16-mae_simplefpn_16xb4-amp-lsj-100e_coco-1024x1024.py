# ViTDet Mask R-CNN, ViT-L/16 from MAE ImageNet-1k weights, COCO, 100 epochs: facebookresearch/
# detectron2 projects/ViTDet/configs/COCO/mask_rcnn_vitdet_l_100ep.py (README: box AP
# 55.5, mask AP 49.2). Field by field in configs/coco/reproductions.yaml; the differences are in
# configs/coco/README.md. Weights:
#   python tools/convert_checkpoint.py mae_pretrain_vit_large.pth \
#       pretrain/vit-l16_mae.pth --format mae
_base_ = [
    '../_base_/models/backbones/vit-l16_mae.py',
    '../_base_/recipes/mask-rcnn_vitdet_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py',
]
model = dict(
    backbone=dict(
        _base_.backbone,
        **_base_.vitdet_backbone,
        drop_path_rate=0.4,
        global_attn_indexes=(5, 11, 17, 23),
        out_indices=(23,),
    ),
    neck=dict(in_channels=_base_.backbone['embed_dims']),
)
optim_wrapper = dict(paramwise_cfg=dict(decay_rate=0.8))  # get_vit_lr_decay_rate
