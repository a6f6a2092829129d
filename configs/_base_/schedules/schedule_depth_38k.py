# DINOv2 depth protocol (its hosted NYU DPT config): AdamW lr 1e-4, weight decay 0.01, linear
# warm-up over 12,800 iterations then cosine to 38,400, gradient clipping 35, backbone lr x0.1
# (moot when it is frozen). Batch 2 per GPU; the GPU count is unverified.
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999), weight_decay=0.01),
    clip_grad=dict(max_norm=35, norm_type=2),
    paramwise_cfg=dict(custom_keys=dict(backbone=dict(lr_mult=0.1))))
max_iters = 38400
warmup_iters = 12800
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=False, begin=0, end=warmup_iters),
    dict(type='CosineAnnealingLR', eta_min=0.0, by_epoch=False, begin=warmup_iters,
         end=max_iters),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=3200)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=3200, max_keep_ckpts=2,
                    save_best='rmse', rule='less'),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='SegVisualizationHook'))
