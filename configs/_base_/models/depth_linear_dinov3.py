# DINOv3's linear depth probe (facebookresearch/dinov3 dinov3/eval/depth/configs/config-nyu.yaml;
# dinov3/eval/depth/models/linear_head.py LinearHead and models/__init__.py FeaturesToDepth):
# SyncBN then a 1x1 conv (weights N(0, 0.01), bias 0) to 256 uniform depth bins in
# [min_depth, max_depth] with the 'linear' normalisation (ReLU + 0.1, divided by the sum), on the
# patch tokens only (use_cls_token False). The depth is computed on the patch grid and resized to
# the label bilinearly: no upsampling inside the head. Loss: SigLoss alone (SIGLOSS 1.0; its
# warm-up of 100 iterations is LossType.SIGLOSS's default in dinov3/eval/depth/loss.py).
# The head is depth_linear.py's LinearDepthHead with these options.
_base_ = ['./depth_estimator.py']
model = dict(
    decode_head=dict(
        type='LinearDepthHead',
        classify=True,
        n_bins=256,
        norm_strategy='linear',
        use_cls_token=False,
        upsample=1,
        with_bn=True,
        norm_cfg=dict(type='SyncBN', requires_grad=True),
        init_cfg=dict(type='Normal', layer='Conv2d', std=0.01, bias=0.0),
        loss_decode=[dict(type='SigLoss', warm_up_iters=100)],
    )
)
