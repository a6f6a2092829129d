# DINOv3 linear probe, Pascal VOC 2012: DINOv3 (arXiv 2508.10104) Table 3. DINOv3 publishes no
# VOC config (dinov3/eval/segmentation/configs holds ADE20K only): the head, taps, optimizer and
# schedule are those of its config-ade20k-linear-training.yaml (see the ADE20K recipe fragment),
# the data are mmseg's voc12aug with DINOv3's transforms.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/voc12aug_dinov3_512x512.py',
    '../schedules/schedule_dinov3_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes, dropout_ratio=0.1),
    test_cfg=_base_.inference_cfg,
)
