# DINOv3's ADE20K stage of its Mask2Former training (arXiv 2508.10104 appendix D.10): AdamW, lr
# 3e-5, a 1.5k linear warm-up and a cosine schedule, 20k iterations, batch 16 (8 GPUs x 2 here). Not
# in the paper, ours: the warm-up's start factor (1e-6, as DINOv3's WarmupOneCycleLR), the cosine
# from the end of the warm-up to 0, weight decay 0.05, betas (0.9, 0.999), no gradient clipping
# (mmseg's Mask2Former schedule clips at 0.01: not DINOv3's, not published), decay 0 for the
# queries, level embeddings and norms (mmseg's Mask2Former); validation and checkpoint every 2000.
# The frozen ViT has no gradient and takes no AdamW state.
max_iters = 20000
warmup_iters = 1500
embed_multi = dict(lr_mult=1.0, decay_mult=0.0)
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=3e-5, betas=(0.9, 0.999), weight_decay=0.05),
    clip_grad=None,
    paramwise_cfg=dict(
        custom_keys=dict(query_embed=embed_multi, query_feat=embed_multi, level_embed=embed_multi),
        norm_decay_mult=0.0,
    ),
)
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 1500
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='CosineAnnealingLR',
        eta_min=0.0,
        T_max=max_iters - warmup_iters,
        by_epoch=False,
        begin=warmup_iters,
        end=max_iters,
    ),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=2000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(
        type='CheckpointHook',
        by_epoch=False,
        interval=2000,
        max_keep_ckpts=1,
        save_best='mIoU',
        rule='greater',
    ),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
