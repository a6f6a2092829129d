# DINOv3's linear probe of ADE20K for a patch-14 backbone, as DINOv3 (arXiv 2508.10104) Table 3
# evaluates DINOv2 ViT-g/14: dinov3-linear_8xb2-40k_ade20k-512x512.py (head, taps, optimizer and
# schedule of config-ade20k-linear-training.yaml) at the 1024-token resolution of patch 14,
# 448x448 (its caption; ade20k_dinov3_448x448.py).
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/ade20k_dinov3_448x448.py',
    '../schedules/schedule_dinov3_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes, dropout_ratio=0.1),
    test_cfg=_base_.inference_cfg,
)
