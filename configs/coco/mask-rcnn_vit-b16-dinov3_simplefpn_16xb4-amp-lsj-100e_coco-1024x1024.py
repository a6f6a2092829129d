# ViTDet Mask R-CNN with the DINOv3 ViT-B/16 backbone, COCO, 100 epochs: the recipe of
# mask-rcnn_vit-b16-mae_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py (facebookresearch/
# detectron2 projects/ViTDet/configs/COCO/mask_rcnn_vitdet_b_100ep.py: LSJ 1024, SimpleFPN,
# window attention 14 with global blocks 2, 5, 8, 11, drop path 0.1, layer-wise lr decay 0.7).
# No published number: DINOv3 (arXiv 2508.10104) reports COCO detection only with its own
# Plain-DETR detector (facebookresearch/dinov3 dinov3/eval/detection, hub/detectors.py), so this
# config is not a row of configs/coco/reproductions.yaml; it compares backbones in ViTDet's recipe.
# DINOv3 instead of MAE: rotary embeddings (no position table to resample: RoPE is computed for
# the 64x64 grid, and window blocks rotate by the global patch coordinates), CLS and the 4
# storage tokens kept (they attend among themselves in window blocks, with every patch in
# global ones), the final norm kept (DINOv3's dense evaluations read normed features), no
# relative position bias (RoPE already encodes relative positions). No weight decay on norms,
# LayerScale gammas and the CLS / storage tokens, as ViTDet exempts norms and pos_embed.
# Weights:
#   python tools/convert_checkpoint.py dinov3_vitb16_pretrain_lvd1689m-73cec8be.pth \
#       pretrain/vit-b16_dinov3.pth --format dinov3
_base_ = [
    '../_base_/models/backbones/vit-b16_dinov3.py',
    '../_base_/recipes/mask-rcnn_vitdet_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py',
]
model = dict(
    backbone=dict(
        _base_.backbone,
        img_size=1024,
        window_size=_base_.vitdet_backbone['window_size'],
        window_padding=_base_.vitdet_backbone['window_padding'],
        global_attn_indexes=(2, 5, 8, 11),
        drop_path_rate=0.1,
        out_indices=(11,),
    ),
    neck=dict(in_channels=_base_.backbone['embed_dims']),
)
optim_wrapper = dict(
    paramwise_cfg=dict(
        decay_rate=0.7,  # get_vit_lr_decay_rate, as the MAE ViT-B config
        no_decay_regex=r'^backbone\.(cls_token$|reg_token$|blocks\.\d+\.(norm[12]|ls[12])\.|norm\.)',
    )
)
