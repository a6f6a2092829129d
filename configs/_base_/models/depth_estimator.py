# mmseg's DepthEstimator with DINOv2's depth losses (facebookresearch/dinov2 hosted depth configs,
# read in ywyue/FiT3D evaluation/baseline_configs/vitb_{nyu,kitti}_depth_linear_config.py):
# SigLoss (warm-up 100 iterations) + GradientLoss x0.5. DINOv2's GradientLoss slices the batch
# axis of (B, 1, H, W) maps and is exactly 0 at 2 images per GPU; dinov2_slicing=True reproduces
# that published behaviour (the *_gradloss-fixed_* leaves use the per-sample spatial loss).
# size_divisor=1 (mmseg's batching needs one): no padding here. SpecViT centre-pads its input to a
# multiple of the patch size, as DINOv2's CenterPadding (dinov2/hub/depthers.py), and the head's
# depth is resized to the unpadded image, as there.
# depth_linear.py, depth_linear_dinov3.py and depth_dpt.py add the head; leaves add the backbone,
# depth_range, test_cfg.
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    size_divisor=1,
    pad_val=0,
    seg_pad_val=0,
)  # padded depth (images of different sizes in a batch) reads "no measurement"
model = dict(
    type='DepthEstimator',
    data_preprocessor=data_preprocessor,
    decode_head=dict(
        loss_decode=[
            dict(type='SigLoss', warm_up_iters=100),
            dict(type='GradientLoss', loss_weight=0.5, dinov2_slicing=True),
        ]
    ),
    train_cfg=dict(),
    test_cfg=dict(mode='whole'),
)
