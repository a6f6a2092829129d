# EoMT for panoptic and instance segmentation (EoMTPanoptic, an mmdet detector) on the tiny
# SpecViT (patch 8) of the demo EoMT: queries in the last 2 of its 6 blocks; 1024 loss points
# per mask (upstream: 12544) to stay small on 2 CPU cores. The post-processing keeps EoMT's
# thresholds (EoMTPanoptic's defaults, tue-mps/eomt's panoptic and instance modules).
data_preprocessor = dict(
    type='DetDataPreprocessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_size_divisor=8,
    pad_mask=True,
    mask_pad_value=0,
    pad_seg=True,
    seg_pad_value=255,
)
model = dict(
    type='EoMTPanoptic',
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
    num_things_classes=5,
    num_stuff_classes=6,
    num_queries=20,
    num_blocks=2,
    loss=dict(num_points=1024),
)
