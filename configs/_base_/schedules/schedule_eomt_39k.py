# EoMT's optimization (tue-mps/eomt training/lightning_module.py configure_optimizers,
# training/mask_classification_semantic.py defaults, main.py trainer defaults): AdamW lr 1e-4,
# torch's betas, weight decay 0.05 on every parameter (no_decay_regex matches no name), layer-wise
# lr decay 0.8 as upstream's configure_optimizers: block i of L at lr x 0.8^(L - 1 - i), the
# embeddings (patch embedding, position table, CLS and register tokens) as block 0, the final
# norm, queries and heads at lr. The constructor's depth rule puts block i at 0.8^(L - i) and the
# embeddings at 0.8^(L + 1), so lr_mults lifts the blocks by 1 / 0.8 and the embeddings by
# 1 / 0.8^2. Gradients clipped to norm 0.01, fp16 mixed precision with a dynamic loss
# scale (Lightning's '16-mixed'), seed 0. One warm-up for every parameter to iteration 1500, where
# upstream's two-stage warm-up (warmup_steps [500, 1000]) ends for the backbone, then poly 0.9 to
# 0 at the last iteration: mmengine's schedulers act on all parameter groups alike, so upstream's
# heads (warm from 0 to 500, poly from 500) are not matched (the ledger rows record it).
# 39,122 iterations: ADE20K's 31 epochs of 16 images (configs/dinov2/ade20k/semantic/
# eomt_large_512.yaml) at 1,262 batches per epoch. Upstream's epoch is 4 GPUs x 4 with Lightning's
# DistributedSampler (ceil(N / 4) images per GPU, batches of 4, drop_last) over the N training
# images that check_empty_targets keeps (datasets/dataset.py drops an annotation holding one
# value; N itself: not found). Its annealing step 6,520 = floor(31 x B / 6) holds for B = 1,262
# only (1,261 gives 6,515, 1,263 gives 6,525), so 5,048-5,051 images per GPU, N in 20,189-20,204
# of ADE20K's 20,210. schedule_eomt_20k.py has Cityscapes' count.
layer_decay = 0.8  # upstream's llrd
optim_wrapper = dict(
    type='FiniteLossAmpOptimWrapper',
    loss_scale='dynamic',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999), weight_decay=0.05),
    clip_grad=dict(max_norm=0.01, norm_type=2),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(
        decay_rate=layer_decay,
        backbone='network.backbone',
        no_decay_regex='^$',
        lr_mults={
            r'^network\.backbone\.blocks\.': 1 / layer_decay,
            r'^network\.backbone\.(patch_embed|pos_embed|cls_token|reg_token)\b': (
                1 / layer_decay**2
            ),
        },
    ),
)
warmup_iters = 1500  # upstream's backbone: 500 at lr 0, then 1000 of linear warm-up
poly_power = 0.9
max_iters = 39122  # 31 epochs x 1,262 batches (derived from the annealing step, see above)
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='PolyLR',
        power=poly_power,
        eta_min=0.0,
        by_epoch=False,
        begin=warmup_iters,
        end=max_iters,
    ),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=4000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
randomness = dict(seed=0)
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=4000, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
