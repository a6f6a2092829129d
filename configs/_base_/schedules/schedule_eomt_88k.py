# EoMT's COCO instance schedule: schedule_eomt_89k.py's optimization over 12 epochs of upstream's
# instance training set, which is smaller than the panoptic one. Upstream's instance configs
# (tue-mps/eomt configs/dinov2/coco/instance/eomt_large_{640,1280}.yaml: max_epochs 12) copy the
# panoptic annealing steps (14,782-73,910, from the panoptic set's 7,391 batches per epoch), but
# the poly runs over trainer.estimated_stepping_batches of the instance data (training/
# lightning_module.py configure_optimizers, total_steps). datasets/coco_instance.py reads
# annotations/instances_train2017.json, and datasets/dataset.py keeps only the images that have
# at least one annotation (crowd ones count), so N is COCO's 118,287 train2017 images less those
# without any: about 117,266 (the count other loaders report; the annotation file is not read
# here: the exact N is not found). At 4 GPUs x 4 with Lightning's DistributedSampler:
# ceil(N / 4) = 29,317 images per GPU, floor(29,317 / 4) = 7,329 batches per epoch (any N in
# 117,261-117,276 gives 7,329), 12 epochs = 87,948 iterations; validation every 2 epochs
# (check_val_every_n_epoch 2, the recipe's val_interval) = 14,658.
_base_ = ['./schedule_eomt_89k.py']
batches_per_epoch = 7329
max_iters = 12 * batches_per_epoch
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=_base_.warmup_iters + 1),
    dict(
        type='PolyLR',
        power=_base_.poly_power,
        eta_min=0.0,
        by_epoch=False,
        begin=_base_.warmup_iters,
        end=max_iters,
    ),
]
train_cfg = dict(max_iters=max_iters, val_interval=batches_per_epoch)
default_hooks = dict(checkpoint=dict(interval=batches_per_epoch))
