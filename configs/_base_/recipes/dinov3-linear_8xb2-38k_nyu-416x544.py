# DINOv3 linear depth probe, NYU-Depth v2: DINOv3 (arXiv 2508.10104), the NYU column
# (RMSE) of facebookresearch/dinov3 MODEL_CARD.md's results table (dense tasks "using linear
# layers"). Protocol: dinov3/eval/depth/configs/config-nyu.yaml of that repository (see the
# _base_ fragments for each value): frozen backbone, the last block's patch tokens
# (backbone_out_layers LAST) after the final norm (use_backbone_norm), no CLS token, BN + 1x1
# conv to 256 bins; NYU crop, rotation, flip, 416x544 crops and ColorAug as DINOv2's protocol;
# test on the whole image and its flip (use_tta), Eigen crop, 1e-3 < depth < 10 m.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/depth_linear_dinov3.py',
    '../datasets/nyu_depth.py',
    '../runtime_probe.py',
    '../schedules/schedule_dinov3_depth_38k.py',
]
model = dict(
    decode_head=dict(num_inputs=1, **_base_.depth_range),
    test_cfg=_base_.depth_test_cfg,
)
