# DINOv3's linear segmentation schedule (facebookresearch/dinov3
# dinov3/eval/segmentation/configs/config-ade20k-linear-training.yaml, run by
# dinov3/eval/segmentation/train.py with schedulers.py WarmupOneCycleLR): AdamW lr 1e-3, betas
# (0.9, 0.999), weight decay 1e-3 on every trainable parameter (one parameter group, so
# no_decay_regex matches nothing), gradient_clip 'inf' (no clipping), fp32 (model_dtype FLOAT32),
# 40k iterations, validation every 5000 (eval_interval) keeping the best mIoU, which train.py
# reports. WarmupOneCycleLR(warmup_iters 1500, warmup_ratio 1e-6, final_div_factor inf, 'cos'):
#   t < 1500:   1e-3 * (1e-6 + (1 - 1e-6) * t / 1500) * (1 - t / 40000)
#   t >= 1500:  1e-3 * (1 + cos(pi * (t + 1) / 40000)) / 2
# mmengine has no such scheduler. LinearLR x CosineAnnealingLR, both from step 0, give the cosine
# after the warm-up and, during it, the warm-up times the cosine instead of (1 - t / 40000): an lr
# up to 3.6% higher in the last warm-up steps (tests/configs/test_dinov3_configs.py bounds it).
# The frozen backbone is left out of the optimizer by LayerDecayOptimWrapperConstructor.
max_iters = 40000
warmup_iters = 1500
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, betas=(0.9, 0.999), weight_decay=1e-3),
    clip_grad=None,
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(decay_rate=1.0, no_decay_regex=r'^$'),
)
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 1500
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='CosineAnnealingLR',
        eta_min=0.0,
        T_max=max_iters,
        by_epoch=False,
        begin=0,
        end=max_iters,
    ),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=5000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(
        type='CheckpointHook',
        by_epoch=False,
        interval=5000,
        max_keep_ckpts=1,
        save_best='mIoU',
        rule='greater',
    ),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
