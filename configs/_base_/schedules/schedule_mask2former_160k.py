# mmsegmentation's Mask2Former ADE20K schedule (open-mmlab/mmsegmentation v1.2.2
# configs/mask2former/mask2former_r50_8xb2-160k_ade20k-512x512.py): AdamW lr 1e-4, betas
# (0.9, 0.999), eps 1e-8, weight decay 0.05 (0 for the queries, level embeddings and norms),
# gradient norm clipped at 0.01, PolyLR power 0.9 to 0 over 160k iterations, validation and
# checkpoint every 5000 keeping the best mIoU. Its backbone lr_mult 0.1 is left out: the
# trainable part of an adapter backbone is the adapter, which ViT-Adapter trains at the base lr
# (its layer decay leaves the adapter's modules at depth 0); a frozen ViT is not trained at all.
embed_multi = dict(lr_mult=1.0, decay_mult=0.0)
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.05),
    clip_grad=dict(max_norm=0.01, norm_type=2),
    paramwise_cfg=dict(
        custom_keys=dict(query_embed=embed_multi, query_feat=embed_multi, level_embed=embed_multi),
        norm_decay_mult=0.0,
    ),
)
max_iters = 160000
param_scheduler = [
    dict(type='PolyLR', eta_min=0, power=0.9, begin=0, end=max_iters, by_epoch=False),
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
