# DINOv2's linear depth probe (lin.1 / lin.4): BN + 1x1 conv over 256 uniform depth bins on the
# CLS-concatenated patch maps, x4 bilinear upsampling. The leaf config adds the backbone, the
# head's in_channels / num_inputs, the dataset's depth_range and test_cfg.
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=0,  # padded depth must read as "no measurement"
    size_divisor=14)
model = dict(
    type='DepthEstimator',
    data_preprocessor=data_preprocessor,
    decode_head=dict(
        type='LinearDepthHead', use_cls_token=True, upsample=4, with_bn=True,
        norm_cfg=dict(type='SyncBN', requires_grad=True),
        classify=True, n_bins=256, norm_strategy='linear',
        loss_decode=[dict(type='SigLoss', warm_up_iters=100),
                     dict(type='GradientLoss', loss_weight=0.5)]),
    train_cfg=dict(),
    test_cfg=dict(mode='whole'))
