# Full fine-tuning as mmsegmentation's MAE UPerNet (open-mmlab/mmsegmentation v1.2.2
# configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py, on schedules/schedule_160k.py):
# AdamW lr 1e-4, betas (0.9, 0.999), weight decay 0.05; layer-wise lr decay 0.65 over
# num_layers + 2 depths (LayerDecayOptimizerConstructor; ours has the same depth rule, see
# vitspec/engine/optim/layer_decay.py); LinearLR from 1e-6 over 1500 iterations, then PolyLR
# power 1.0 to 0 from 1500 to 160k; mixed precision with a dynamic loss scale (the config's
# fp16 = dict(loss_scale='dynamic'); mmseg 1.x reads it only through --amp, so it is written
# here as AmpOptimWrapper, in its finite-loss form); 160k iterations, checkpoint and validation
# every 16k.
optim_wrapper = dict(
    type='FiniteLossAmpOptimWrapper',
    loss_scale='dynamic',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999), weight_decay=0.05),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(decay_rate=0.65),
)
max_iters = 160000
warmup_iters = 1500
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 1500 (mmseg's end=1500
    # reaches it at 1499)
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=warmup_iters, end=max_iters),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=16000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=16000, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
