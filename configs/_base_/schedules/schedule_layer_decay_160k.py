# Full fine-tuning as mmseg's MAE UPerNet (methods.md §5.6): AdamW lr 1e-4, wd 0.05, layer-wise
# lr decay 0.65, 1500-iteration linear warmup, poly decay, 160k iterations.
_base_ = ['./schedule_linear_40k.py']
optim_wrapper = dict(
    optimizer=dict(lr=1e-4, weight_decay=0.05), paramwise_cfg=dict(decay_rate=0.65))
max_iters = 160000
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=1500),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=1500, end=max_iters),
]
train_cfg = dict(max_iters=max_iters, val_interval=16000)
default_hooks = dict(checkpoint=dict(interval=16000))
