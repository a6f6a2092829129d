# EoMT-L on COCO panoptic, 640 x 640 (tue-mps/eomt configs/dinov2/coco/panoptic/eomt_large_640.yaml
# with the defaults of the classes it names; model zoo model_zoo/dinov2.md: 56.0 PQ): DINOv2
# ViT-L/14-reg4 at patch 16, 200 queries in the last 4 blocks, 80 thing and 53 stuff classes,
# 12 epochs of 16 images = 88,692 iterations (schedule_eomt_89k.py), the masks of the 4 query
# blocks annealed one after another (upstream's steps). EoMT's post-processing thresholds are
# EoMTPanoptic's defaults. The ledger row (configs/coco/reproductions.yaml) lists every value
# with its source; leaves add a technique.
_base_ = [
    '../models/backbones/vit-l16_dinov2-reg4.py',
    '../models/eomt_panoptic.py',
    '../datasets/coco_panoptic_eomt_640x640.py',
    '../schedules/schedule_eomt_89k.py',
    '../runtime_det.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, img_size=_base_.image_size),
    test_cfg=dict(instance_on=False),
)
mask_annealing_starts = [14782, 29564, 44346, 59128]
mask_annealing_ends = [29564, 44346, 59128, 73910]
custom_hooks = [
    *_base_.custom_hooks,
    dict(
        type='MaskAnnealingHook',
        start_iters=mask_annealing_starts,
        end_iters=mask_annealing_ends,
        power=_base_.poly_power,
    ),
]
# every parameter gets a gradient (the queries and head read the final norm)
find_unused_parameters = False
