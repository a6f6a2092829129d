# DINOv2 linear probe ("lin."), Cityscapes: arXiv 2304.07193 Table 10. DINOv2
# published no Cityscapes config: the head, taps, optimizer and schedule are those of its
# ADE20K linear config (franchesoni/cheapseg configs/dinov2/
# original_dinov2_vitb14_ade20k_linear_config.py, a verbatim dump), the data pipeline is
# mmseg's Cityscapes one; every Cityscapes-specific value is "not found" in the ledger.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels;
# the linear4-ms leaves take the last 4 taps and always test multi-scale (test_with_tta).
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/cityscapes_512x1024.py',
    '../schedules/schedule_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
