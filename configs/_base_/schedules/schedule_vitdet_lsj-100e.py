# ViTDet's COCO schedule (facebookresearch/detectron2 projects/ViTDet/configs/COCO/
# mask_rcnn_vitdet_b_100ep.py, configs/common/optim.py): 100 epochs = 184,375 iterations at batch
# 64, AdamW lr 1e-4, betas (0.9, 0.999), wd 0.1, layer-wise lr decay (0.7 for ViT-B, 0.8 for
# ViT-L: set by the leaf), 250-iteration linear warmup from 0.001, x0.1 at 163,889 and 177,546,
# mixed precision (train.amp.enabled=True; mmengine's AmpOptimWrapper, as mmdet's
# projects/ViTDet/configs/lsj-100e_coco-instance.py; here its finite-loss form). No weight decay
# exactly where ViTDet has none: nn.LayerNorm parameters (weight_decay_norm=0.0; the LayerNorm-2d
# of neck and heads is detectron2's own LayerNorm class, which is decayed) and pos_embed
# (overrides); biases, relative position biases and everything else decay.
optim_wrapper = dict(
    type='FiniteLossAmpOptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999), weight_decay=0.1),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(
        decay_rate=0.7, no_decay_regex=r'^backbone\.(pos_embed$|blocks\.\d+\.norm[12]\.|norm\.)'
    ),
)
max_iters = 184375
warmup_iters = 250
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 250, as detectron2's
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='MultiStepLR',
        by_epoch=False,
        begin=0,
        end=max_iters,
        milestones=[163889, 177546],
        gamma=0.1,
    ),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=18438)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=18438, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderDetVisualizationHook'),
)
# The lr above is for a total batch of 64; --cfg-options auto_scale_lr.enable=True rescales it.
auto_scale_lr = dict(enable=False, base_batch_size=64)
