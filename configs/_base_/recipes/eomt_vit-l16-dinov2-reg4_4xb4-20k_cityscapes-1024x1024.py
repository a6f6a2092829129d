# EoMT-L on Cityscapes semantic, 1024 x 1024 (tue-mps/eomt configs/dinov2/cityscapes/semantic/
# eomt_large_1024.yaml with the defaults of the classes it names; model zoo model_zoo/dinov2.md:
# 84.2 mIoU): the ADE20K recipe's model and optimization (eomt_vit-l16-dinov2-reg4_4xb4-39k_
# ade20k-512x512.py) at 1024 crops, 19 classes, 107 epochs of 16 images (4 GPUs x 4) = 19,902
# iterations (Lightning's sampler pads the 2,975 training images to 4 x 744; schedule_eomt_20k.py),
# upstream's mask-annealing steps. The ledger row
# (configs/cityscapes/reproductions.yaml) lists every value with its source.
_base_ = [
    '../models/backbones/vit-l16_dinov2-reg4.py',
    '../models/eomt.py',
    '../datasets/cityscapes_eomt_1024x1024.py',
    '../schedules/schedule_eomt_20k.py',
    '../runtime_seg.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, img_size=_base_.crop_size),
    num_classes=_base_.num_classes,
    num_queries=100,
    test_cfg=_base_.inference_cfg,
)
mask_annealing_starts = [3317, 6634, 9951, 13268]
mask_annealing_ends = [6634, 9951, 13268, 16585]
custom_hooks = [
    *_base_.custom_hooks,
    dict(
        type='MaskAnnealingHook',
        start_iters=mask_annealing_starts,
        end_iters=mask_annealing_ends,
        power=_base_.poly_power,
    ),
]
