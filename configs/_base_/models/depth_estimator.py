# mmseg's DepthEstimator with the DINOv2 depth losses; depth_linear.py and depth_dpt.py add the
# head. Leaf configs add the backbone, the dataset's depth_range and test_cfg.
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
    decode_head=dict(loss_decode=[dict(type='SigLoss', warm_up_iters=100),
                                  dict(type='GradientLoss', loss_weight=0.5)]),
    train_cfg=dict(),
    test_cfg=dict(mode='whole'))
