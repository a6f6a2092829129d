# EoMT's optimization (schedule_eomt_39k.py says where each value comes from) over COCO panoptic's
# 12 epochs of 16 images (tue-mps/eomt configs/dinov2/coco/panoptic/eomt_large_640.yaml:
# max_epochs 12): 88,692 iterations, warm-up to 1500, then poly 0.9 to 0. Upstream's first
# annealing step 14,782 = 12 x B / 6 gives B = 7,391 batches of 4 per GPU and epoch (4 GPUs:
# floor(P / 4) = 7,391 for P = 29,564-29,567 images per GPU, P = ceil(N / 4) for N in
# 118,253-118,268 of COCO's 118,287 training images after check_empty_targets; N itself: not
# found). The instance set is smaller: schedule_eomt_88k.py.
_base_ = ['./schedule_eomt_39k.py']
batches_per_epoch = 7391
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
default_hooks = dict(
    checkpoint=dict(interval=batches_per_epoch),
    visualization=dict(_delete_=True, type='StoredOrderDetVisualizationHook'),
)
