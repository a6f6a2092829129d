# EoMT-L on COCO instances, 640 x 640 (tue-mps/eomt configs/dinov2/coco/instance/eomt_large_640.yaml
# with the defaults of the classes it names; model zoo: 45.2 mask AP by pycocotools): the panoptic
# recipe's network, optimization and annealing steps (eomt_vit-l16-dinov2-reg4_4xb4-89k_coco-
# panoptic-640x640.py) on the 80 thing classes without stuff, instances only (the top 100 of
# queries x classes, upstream's eval_top_k_instances), 12 epochs of the instance training set
# (87,948 iterations: schedule_eomt_88k.py derives them), validated every 2 epochs
# (check_val_every_n_epoch 2).
_base_ = [
    '../models/backbones/vit-l16_dinov2-reg4.py',
    '../models/eomt_panoptic.py',
    '../datasets/coco_instance_eomt_640x640.py',
    '../schedules/schedule_eomt_88k.py',
    '../runtime_det.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, img_size=_base_.image_size),
    num_stuff_classes=0,
    test_cfg=dict(panoptic_on=False),
)
# upstream's instance configs copy the panoptic steps (7,391 panoptic batches per epoch)
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
train_cfg = dict(val_interval=2 * _base_.batches_per_epoch)
