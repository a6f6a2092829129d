# DINOv3 linear depth probe, KITTI (Eigen split): DINOv3 (arXiv 2508.10104) Table 3. DINOv3
# publishes no KITTI config: head, optimizer and schedule are those of its NYU config
# (dinov3/eval/depth/configs/config-nyu.yaml, see dinov3-linear_8xb2-38k_nyu-416x544.py), the
# data DINOv2's KITTI protocol (kitti_depth.py: KB crop, 352x704 crops, Garg crop, 80 m). Its
# appendix D.2 says only: a linear layer on the patch outputs after the layer norm, a trained BN,
# AdamW with lr in [1e-4, 3e-4, 1e-3] and weight decay in [1e-4, 1e-3] swept.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/depth_linear_dinov3.py',
    '../datasets/kitti_depth.py',
    '../runtime_probe.py',
    '../schedules/schedule_dinov3_depth_38k.py',
]
model = dict(
    decode_head=dict(num_inputs=1, **_base_.depth_range),
    test_cfg=_base_.depth_test_cfg,
)
