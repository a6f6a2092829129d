# DINOv3 linear probe, ADE20K: DINOv3 (arXiv 2508.10104), the ADE20k column of
# facebookresearch/dinov3 MODEL_CARD.md's results table (dense tasks "using linear layers").
# Protocol: dinov3/eval/segmentation/configs/config-ade20k-linear-training.yaml of that repository
# (see the _base_ fragments for each value): frozen backbone, the last block's patch tokens
# (backbone_out_layers LAST) after the backbone's final norm (use_backbone_norm; its
# get_intermediate_layers norm=True), LinearHead: Dropout2d 0.1 (config.py's default), SyncBN,
# 1x1 conv. mmseg's head applies the dropout after the BN, DINOv3's before it (see the ledger).
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/ade20k_dinov3_512x512.py',
    '../schedules/schedule_dinov3_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes, dropout_ratio=0.1),
    test_cfg=_base_.inference_cfg,
)
