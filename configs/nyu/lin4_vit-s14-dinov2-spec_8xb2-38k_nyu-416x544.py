# lin.4 on NYU of a frozen ViT-S/14 pretrained WITH CLS/patch layer specialization (2602.08626):
# compare with lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py, same protocol. It needs a checkpoint
# pretrained with the technique (none is published): converted plain DINOv2 weights would give
# exactly the plain probe, and loading them into this frozen backbone is refused.
_base_ = [
    './lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
    '../_base_/models/techniques/specialized.py',
]
model = dict(
    backbone=dict(
        _base_.technique,
        init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-s14_dinov2-spec.pth'),
    )
)
