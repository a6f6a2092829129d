# EoMT-L on ADE20K semantic, 512 x 512 (tue-mps/eomt configs/dinov2/ade20k/semantic/
# eomt_large_512.yaml with the defaults of the classes it names; model zoo model_zoo/dinov2.md:
# 58.4 mIoU): DINOv2 ViT-L/14-reg4 at patch 16, 100 queries in the last 4 blocks, 31 epochs of
# 16 images (4 GPUs x 4, upstream's README command) = 39,122 iterations (1,262 batches per epoch,
# derived in schedule_eomt_39k.py); warm-up then poly 0.9 to 0; the masks of the 4 query blocks
# annealed one after another (mask_annealing_starts / _ends, upstream's steps). The ledger row
# (configs/ade20k/reproductions.yaml) lists every value with its source; leaves add a technique.
_base_ = [
    '../models/backbones/vit-l16_dinov2-reg4.py',
    '../models/eomt.py',
    '../datasets/ade20k_eomt_512x512.py',
    '../schedules/schedule_eomt_39k.py',
    '../runtime_seg.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, img_size=_base_.crop_size),
    num_classes=_base_.num_classes,
    num_queries=100,
    test_cfg=_base_.inference_cfg,
)
mask_annealing_starts = [6520, 13040, 19560, 26080]
mask_annealing_ends = [13040, 19560, 26080, 32600]
custom_hooks = [
    *_base_.custom_hooks,
    dict(
        type='MaskAnnealingHook',
        start_iters=mask_annealing_starts,
        end_iters=mask_annealing_ends,
        power=_base_.poly_power,
    ),
]
