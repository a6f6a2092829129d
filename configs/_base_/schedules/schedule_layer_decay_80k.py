# The fine-tuning schedule at 80k iterations (mmseg's Cityscapes length).
_base_ = ['./schedule_layer_decay_160k.py']
max_iters = 80000
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=1500),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=1500, end=max_iters),
]
train_cfg = dict(max_iters=max_iters, val_interval=8000)
default_hooks = dict(checkpoint=dict(interval=8000))
