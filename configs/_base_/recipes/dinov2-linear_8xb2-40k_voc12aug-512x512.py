# DINOv2 linear probe ("lin."), Pascal VOC 2012: arXiv 2304.07193 Table 10.
# Protocol: the hosted dinov2_vit*14_voc2012_linear_config.py (its URL pattern: facebookresearch/
# dinov2 notebooks/semantic_segmentation.ipynb), read in a copy (Jiawei-Yang/Denoising-ViT
# evaluation/configs/vitb_voc2012_linear_config.py): the ADE20K linear config's head, taps,
# optimizer and 40k schedule with 21 classes, 512 crops, slide 512 / stride 341. Training set: the
# SBD augmented set as mmseg's voc12aug; the copy trains on train.txt only, but it also rewrote
# its ADE20K sibling's pipelines, so that split is "not found" (configs/voc/reproductions.yaml).
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/voc12aug_512x512.py',
    '../schedules/schedule_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
