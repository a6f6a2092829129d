# lin4_vit-l14-dinov2_8xb2-38k_kitti-352x704.py with a working gradient loss: the per-sample spatial
# gradient-matching loss (MegaDepth) that DINOv2's released GradientLoss meant to compute. Not
# a reproduction: it trains a different objective than the published numbers.
_base_ = ['./lin4_vit-l14-dinov2_8xb2-38k_kitti-352x704.py']
model = dict(
    decode_head=dict(
        loss_decode=[
            dict(type='SigLoss', warm_up_iters=100),
            dict(type='GradientLoss', loss_weight=0.5),
        ]
    )
)
