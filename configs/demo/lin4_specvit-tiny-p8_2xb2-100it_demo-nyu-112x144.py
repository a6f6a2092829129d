# The depth demo: tools/dist_train.sh <this config> 2 on the procedural NYU-layout data. A tiny
# SpecViT trained from scratch with DINOv2's lin.4 head (4 layers + CLS, 256 bins), plus the BN
# and N(0, 0.01) conv init this 100-iteration demo was tuned with (DINOv2's head has neither).
_base_ = [
    '../_base_/models/depth_linear.py',
    '../_base_/datasets/demo_nyu_depth.py',
    '../_base_/runtime_seg.py',
    '../_base_/schedules/schedule_demo.py',
]
max_iters = 100
model = dict(
    data_preprocessor=dict(size_divisor=8),
    backbone=dict(
        type='SpecViT',
        img_size=128,
        patch_size=8,
        embed_dims=128,
        num_layers=6,
        num_heads=4,
        out_indices=(2, 3, 4, 5),
        output_cls_token=True,
        final_norm=True,
    ),
    decode_head=dict(
        in_channels=128,
        num_inputs=4,
        **_base_.depth_range,
        with_bn=True,
        norm_cfg=dict(type='SyncBN', requires_grad=True),
        init_cfg=dict(_delete_=True, type='Normal', std=0.01, layer='Conv2d'),
        loss_decode=[dict(type='SigLoss'), dict(type='GradientLoss', loss_weight=0.5)],
    ),
)
warmup_iters = 20
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=warmup_iters, end=max_iters),
]
train_cfg = dict(max_iters=max_iters, val_interval=max_iters)
default_hooks = dict(checkpoint=dict(interval=max_iters))
train_dataloader = dict(batch_size=2)
randomness = dict(seed=0)
