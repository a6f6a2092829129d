# lin.4 on NYU of a frozen ViT-S/14 pretrained WITH CLS/patch layer specialization (2602.08626):
# compare with lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py, same protocol. It needs a checkpoint
# pretrained with the technique (none is published): converted plain DINOv2 weights would give
# exactly the plain probe, and loading them into this frozen backbone is refused.
_base_ = [
    '../_base_/models/backbones/vit-s14_dinov2.py',
    '../_base_/models/techniques/specialized.py',
    '../_base_/models/depth_linear.py',
    '../_base_/datasets/nyu_depth.py',
    '../_base_/runtime_probe.py',
    '../_base_/schedules/schedule_depth_38k.py',
]
model = dict(
    backbone=dict(
        _base_.backbone,
        **_base_.technique,
        out_indices=(2, 5, 8, 11),
        output_cls_token=True,
        final_norm=False,
        frozen_stages=12,
        init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-s14_dinov2-spec.pth'),
    ),
    decode_head=dict(in_channels=384, num_inputs=4, **_base_.depth_range),
    test_cfg=_base_.depth_test_cfg,
)
