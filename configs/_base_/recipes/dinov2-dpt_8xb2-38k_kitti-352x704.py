# DINOv2's frozen depth probe DPT (DPT on 4 layers) on KITTI (Eigen split), arXiv 2304.07193 Table
# 11: the protocol of DINOv2's hosted dinov2_vit*14_kitti_dpt_config.py (see the _base_ files for
# where each value was read). Leaves set the backbone, its taps (out_indices, read with the CLS
# token), frozen_stages, no final norm, and the head's embed_dims and post_process_channels.
_base_ = [
    '../models/depth_dpt.py',
    '../datasets/kitti_depth.py',
    '../runtime_probe.py',
    '../schedules/schedule_depth_38k.py',
]
model = dict(
    backbone=dict(output_cls_token=True),
    decode_head=dict(**_base_.depth_range),
    test_cfg=_base_.depth_test_cfg,
)
# Validation every 800 and checkpoints every 1600 iterations: the hosted KITTI DPT config was not
# found; these are the NYU DPT config's evaluation and checkpoint_config intervals.
train_cfg = dict(val_interval=800)
default_hooks = dict(checkpoint=dict(interval=1600))
