# DINOv3's linear depth schedule (facebookresearch/dinov3 dinov3/eval/depth/configs/config-nyu.yaml,
# run by dinov3/eval/depth/train.py with schedulers.py WarmupOneCycleLR): AdamW lr 3e-4, beta2
# 0.99, weight decay 1e-4 on every trainable parameter (one parameter group, so no_decay_regex
# matches nothing), gradient clipping 35, fp32, 38,400 iterations, validation every 1600
# (config.py's eval_interval default), the last model tested. WarmupOneCycleLR(warmup_iters
# 12800, final_div_factor 1000, momenta 0.85 / 0.95; its defaults div_factor 25, 'cos',
# use_beta1) with c(t) = (1 + cos(pi * t / 38400)) / 2:
#   lr, t < 12800:   3e-4 * (1e-3 + c(t) * t / 12800)
#   lr, t >= 12800:  1.2e-8 + (3e-4 - 1.2e-8) * c(t + 1)     (min = 3e-4 / 25 / 1000)
#   beta1:           0 during the warm-up (its momentum is only set after it), then from 0.85
#                    up to 0.95 along a cosine over the remaining 25,600 iterations
# mmengine has no such scheduler. LinearLR x CosineAnnealingLR from step 0 give the lr within
# 1e-3 of the peak; ConstantMomentum scales beta1 by 1e-6 during the warm-up (0 would make
# mmengine divide by 0 when it ends), then CosineAnnealingMomentum runs 0.85 -> 0.95
# (tests/configs/test_dinov3_configs.py compares both with the formulas above).
# The published beta1 0.9 is overridden by the scheduler at once; betas holds the 0.85 that
# the momentum schedulers start from.
max_iters = 38400
warmup_iters = 12800
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=3e-4, betas=(0.85, 0.99), weight_decay=1e-4),
    clip_grad=dict(max_norm=35, norm_type=2),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(decay_rate=1.0, no_decay_regex=r'^$'),
)
param_scheduler = [
    # mmengine's LinearLR / ConstantMomentum reach their end at step end - 1
    dict(type='LinearLR', start_factor=1e-3, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='CosineAnnealingLR',
        eta_min_ratio=4e-5,
        T_max=max_iters,
        by_epoch=False,
        begin=0,
        end=max_iters,
    ),
    dict(type='ConstantMomentum', factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='CosineAnnealingMomentum',
        eta_min=0.95,
        T_max=max_iters - warmup_iters,
        by_epoch=False,
        begin=warmup_iters,
        end=max_iters,
    ),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=1600)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=1600, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
