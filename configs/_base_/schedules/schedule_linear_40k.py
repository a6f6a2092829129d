# DINOv2's linear-probe schedule (hosted dinov2_vit*14_ade20k_linear_config.py, read in the dump
# franchesoni/cheapseg configs/dinov2/original_dinov2_vitb14_ade20k_linear_config.py; mmcv 0.x):
# AdamW lr 1e-3, betas (0.9, 0.999), weight decay 1e-4, no gradient clipping, no fp16;
# lr_config policy='poly' power 1.0 min_lr 0 over all 40k iterations, multiplied during the first
# 1500 by a linear warmup from 1e-6 (mmcv's warmup='linear', warmup_ratio=1e-6). mmengine
# composes the two schedulers when they run at the same time, which is mmcv's formula exactly:
# lr(t) = 1e-3 * (1 - t / 40000) * (1e-6 + (1 - 1e-6) * min(t, 1500) / 1500).
# Checkpoint and evaluation every 10k iterations. The frozen backbone is left out of the
# optimizer by LayerDecayOptimWrapperConstructor (decay_rate 1.0: no layer-wise decay).
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, betas=(0.9, 0.999), weight_decay=1e-4),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(decay_rate=1.0),
)
max_iters = 40000
warmup_iters = 1500
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 1500, as mmcv's
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=0, end=max_iters),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=10000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=10000, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
