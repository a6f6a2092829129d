# DINOv2 linear-probe schedule: AdamW lr 1e-3, wd 1e-4, 1500-iteration linear warmup, poly decay,
# 40k iterations (UNVERIFIED: DINOv2 hosts its configs off-repo; this follows a port of them).
# The frozen backbone is left out of the optimizer by LayerDecayOptimWrapperConstructor.
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, betas=(0.9, 0.999), weight_decay=1e-4),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(decay_rate=1.0))
max_iters = 40000
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=1500),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=1500, end=max_iters),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=4000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=4000, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='SegVisualizationHook'))
