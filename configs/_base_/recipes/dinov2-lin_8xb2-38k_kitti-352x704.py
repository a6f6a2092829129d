# DINOv2's frozen linear depth probes (lin. 1 / lin. 4) on KITTI (Eigen split), arXiv 2304.07193
# Table 11: the protocol of DINOv2's hosted dinov2_vit*14_kitti_linear{,4}_config.py (see the _base_
# files for
# where each value was read). Leaves set the backbone, its taps (out_indices, read with the CLS
# token), frozen_stages, no final norm, and the head's in_channels and num_inputs.
_base_ = [
    '../models/depth_linear.py',
    '../datasets/kitti_depth.py',
    '../runtime_probe.py',
    '../schedules/schedule_depth_38k.py',
]
model = dict(
    backbone=dict(output_cls_token=True),
    decode_head=dict(**_base_.depth_range),
    test_cfg=_base_.depth_test_cfg,
)
