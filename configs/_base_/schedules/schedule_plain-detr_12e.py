# Plain-DETR's 12-epoch COCO schedule (impiga/Plain-DETR
# configs/swinv2_small_mim_pt_boxrpe_reparam.sh
# and main.py): AdamW (torch's betas) lr 2e-4, weight decay 0.05, none on norms (--wd_norm_mult
# 0.0), gradient clipping at norm 0.1 (main.py clip_max_norm), a linear warm-up over 1000
# iterations (from 0 there; mmengine's LinearLR needs a start factor above 0: 1e-3, ours), x0.1
# after epoch 11 (--lr_drop 11), 12 epochs. Its layer-wise decay 0.9 of the backbone is moot with
# the frozen DINOv3 ViT (DINOv3 trains no backbone parameter).
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=2e-4, betas=(0.9, 0.999), weight_decay=0.05),
    clip_grad=dict(max_norm=0.1, norm_type=2),
    paramwise_cfg=dict(norm_decay_mult=0.0),
)
max_epochs = 12
warmup_iters = 1000
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at warmup_iters
    dict(type='LinearLR', start_factor=1e-3, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='MultiStepLR', by_epoch=True, begin=0, end=max_epochs, milestones=[11], gamma=0.1),
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=max_epochs, val_interval=1)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=1, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderDetVisualizationHook'),
)
# The lr above is for a total batch of 16; --cfg-options auto_scale_lr.enable=True rescales it.
auto_scale_lr = dict(enable=False, base_batch_size=16)
