# DINOv2's linear depth probe (lin.1 / lin.4; facebookresearch/dinov2
# dinov2/eval/depth/models/decode_heads/linear_head.py, BNHead, and dinov2/hub/depthers.py):
# a 1x1 conv over 256 uniform depth bins ('UD', 'linear' normalisation) on the CLS-concatenated
# patch maps, x4 bilinear upsampling. No BatchNorm (commented out in BNHead; norm_cfg=None in
# the hosted configs) and PyTorch's default conv init. Leaves add the backbone, the head's
# in_channels / num_inputs, the dataset's depth_range and test_cfg.
_base_ = ['./depth_estimator.py']
model = dict(
    decode_head=dict(
        type='LinearDepthHead',
        use_cls_token=True,
        upsample=4,
        with_bn=False,
        init_cfg=None,
        classify=True,
        n_bins=256,
        norm_strategy='linear',
    )
)
