# ViTDet-style Mask R-CNN, shrunk to train on 2 CPU processes in minutes:
# tools/dist_train.sh <this config> 2 on the procedural COCO-layout demo data. The stride-8
# backbone map is resampled by (2, 1, 0.5, 0.25) to strides 4-32; few proposals and samples.
_base_ = [
    '../_base_/models/backbones/specvit-tiny-p8.py',
    '../_base_/models/mask-rcnn_specvit_simplefpn.py',
    '../_base_/datasets/demo_coco.py',
    '../_base_/schedules/schedule_vitdet_lsj-100e.py',
    '../_base_/runtime_det.py',
]
channels = 64
num_classes = 5
model = dict(
    backbone=dict(
        _base_.backbone, img_size=160, final_norm=False, window_size=10, global_attn_indexes=(2, 5)
    ),
    neck=dict(
        in_channels=_base_.backbone['embed_dims'],
        out_channels=channels,
        scale_factors=(2.0, 1.0, 0.5, 0.25),
    ),
    rpn_head=dict(in_channels=channels, feat_channels=channels, anchor_generator=dict(scales=[4])),
    roi_head=dict(
        bbox_roi_extractor=dict(out_channels=channels),
        # two shared FC layers learn faster from scratch than ViTDet's 4conv1fc head
        bbox_head=dict(
            _delete_=True,
            type='Shared2FCBBoxHead',
            in_channels=channels,
            fc_out_channels=256,
            roi_feat_size=7,
            num_classes=num_classes,
            bbox_coder=dict(
                type='DeltaXYWHBBoxCoder',
                target_means=[0.0, 0.0, 0.0, 0.0],
                target_stds=[0.1, 0.1, 0.2, 0.2],
            ),
            loss_cls=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0),
            loss_bbox=dict(type='L1Loss', loss_weight=1.0),
        ),
        mask_roi_extractor=dict(out_channels=channels),
        mask_head=dict(
            num_convs=2, in_channels=channels, conv_out_channels=channels, num_classes=num_classes
        ),
    ),
    train_cfg=dict(
        rpn=dict(sampler=dict(num=128)),
        rpn_proposal=dict(nms_pre=500, max_per_img=100),
        rcnn=dict(sampler=dict(num=64)),
    ),
    test_cfg=dict(rpn=dict(nms_pre=500, max_per_img=100), rcnn=dict(max_per_img=50)),
)
# From scratch, AdamW at 3e-3 stalled (bbox AP 0.04-0.05 after 1000 iterations); 1e-3 learns
# about twice as fast here. bbox AP after 600 / 800 / 1000 iterations: 0.056 / 0.067 / 0.067.
max_iters = 800
# On CPU: no mixed precision (AmpOptimWrapper needs a GPU); the default no-decay rule.
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(lr=1e-3, weight_decay=0.05),
    clip_grad=dict(max_norm=1.0),
    paramwise_cfg=dict(_delete_=True, decay_rate=1.0),
)
warmup_iters = 50
param_scheduler = [
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='MultiStepLR',
        by_epoch=False,
        begin=0,
        end=max_iters,
        milestones=[int(max_iters * 0.8)],
        gamma=0.1,
    ),
]
train_cfg = dict(max_iters=max_iters, val_interval=max_iters)
default_hooks = dict(logger=dict(interval=50), checkpoint=dict(interval=max_iters))
randomness = dict(seed=0)
