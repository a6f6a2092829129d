# DINOv3 linear probe, ViT-S/16, ADE20K: DINOv3 (arXiv 2508.10104), the ADE20k column of
# facebookresearch/dinov3 MODEL_CARD.md's results table (dense tasks "using linear layers").
# Protocol: dinov3/eval/segmentation/configs/config-ade20k-linear-training.yaml of that repository
# (see the _base_ fragments for each value): frozen backbone, the last block's patch tokens
# (backbone_out_layers LAST) after the backbone's final norm (use_backbone_norm; its
# get_intermediate_layers norm=True), LinearHead: Dropout2d 0.1 (config.py's default), SyncBN,
# 1x1 conv. mmseg's head applies the dropout after the BN, DINOv3's before it (see the ledger).
_base_ = [
    '../_base_/models/backbones/vit-s16_dinov3.py',
    '../_base_/models/linear_bnhead.py',
    '../_base_/datasets/ade20k_dinov3_512x512.py',
    '../_base_/schedules/schedule_dinov3_linear_40k.py',
    '../_base_/runtime_probe.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims], num_classes=_base_.num_classes, dropout_ratio=0.1),
    test_cfg=_base_.inference_cfg,
)
