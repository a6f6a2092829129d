# linear_vit-l16-dinov3_bnhead_8xb2-38k_nyu-416x544.py as facebookresearch/dinov3's
# dinov3/eval/depth/train.py runs it: depther.train() before training leaves the frozen backbone in
# train mode until the first validation (iteration 1600, eval_interval); all that time the hub
# backbones' pos_embed_rope_rescale_coords=2 scales the RoPE coordinates of each forward by a
# log-uniform factor in [1/2, 2]. A reproduction mode of the published code's behaviour (the base
# config keeps the frozen backbone in eval mode).
_base_ = ['./linear_vit-l16-dinov3_bnhead_8xb2-38k_nyu-416x544.py']
model = dict(backbone=dict(rope=dict(rescale_coords=2.0)))
custom_hooks = [
    dict(hook, train_mode_iters=_base_.train_cfg.val_interval)
    if hook['type'] == 'LinearProbeHook'
    else hook
    for hook in _base_.custom_hooks
]
