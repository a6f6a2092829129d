# EoMT on the tiny SpecViT (patch 8) of the demo FCN: queries in the last 2 of its 6 blocks, one
# 2x upscaling block in the mask module (32 x 32 masks at 128 x 128). The loss samples 1024
# points per mask (upstream: 12544 at 512 x 512 and more) to stay small on 2 CPU cores.
_base_ = ['./eomt.py']
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255,
    size_divisor=8,
)
model = dict(
    data_preprocessor=data_preprocessor,
    backbone=dict(
        type='SpecViT',
        img_size=128,
        patch_size=8,
        embed_dims=128,
        num_layers=6,
        num_heads=4,
        mlp_ratio=4.0,
        out_indices=(5,),
        final_norm=True,
        drop_path_rate=0.0,
    ),
    num_classes=150,
    num_queries=20,
    num_blocks=2,
    loss=dict(num_points=1024),
)
