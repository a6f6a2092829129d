# DINOv3's linear probe of Pascal VOC 2012 for a patch-14 backbone, as DINOv3 (arXiv 2508.10104)
# Table 3 evaluates DINOv2 ViT-g/14: dinov3-linear_8xb2-40k_voc12aug-512x512.py (no published
# VOC config: head, optimizer and schedule of its ADE20K config) at the 1024-token resolution of
# patch 14, 448x448 (voc12aug_dinov3_448x448.py).
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/voc12aug_dinov3_448x448.py',
    '../schedules/schedule_dinov3_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes, dropout_ratio=0.1),
    test_cfg=_base_.inference_cfg,
)
