# DINOv2's linear depth probe (lin.1 / lin.4): BN + 1x1 conv over 256 uniform depth bins on the
# CLS-concatenated patch maps, x4 bilinear upsampling. The leaf config adds the backbone, the
# head's in_channels / num_inputs, the dataset's depth_range and test_cfg.
_base_ = ['./depth_estimator.py']
model = dict(
    decode_head=dict(
        type='LinearDepthHead', use_cls_token=True, upsample=4, with_bn=True,
        norm_cfg=dict(type='SyncBN', requires_grad=True),
        classify=True, n_bins=256, norm_strategy='linear'))
