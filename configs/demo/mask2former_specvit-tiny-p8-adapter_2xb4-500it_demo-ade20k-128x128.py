# Mask2Former behind a ViT-Adapter on the procedural ADE20K-layout data: the demo FCN's tiny
# SpecViT (patch 8, 6 blocks of width 128) in a ViT-Adapter with 4 interactions, and mmseg's
# Mask2FormerHead cut to toy size (64 channels, 20 queries, 1 encoder and 3 decoder layers,
# 1024 sampled points: the 32 x 32 cells of a stride-4 mask). Everything else is the demo's.
_base_ = [
    '../_base_/models/mask2former_vit-adapter.py',
    '../_base_/models/backbones/specvit-tiny-p8.py',
    '../_base_/datasets/demo_ade20k.py',
    '../_base_/runtime_seg.py',
    '../_base_/schedules/schedule_demo.py',
]
randomness = dict(seed=0)
dims, heads, toy = 128, 4, 64
toy_attn = dict(embed_dims=toy, num_heads=heads)
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255,
    size_divisor=32,
)
model = dict(
    data_preprocessor=data_preprocessor,
    backbone=dict(
        vit=_base_.backbone,
        interaction_indexes=[1, 2, 4, 5],
        with_injector=True,
        conv_inplane=16,
        deform_num_heads=heads,
        n_points=4,
        deform_ratio=1.0,
        init_values=0.0,
        cffn_ratio=0.25,
        add_vit_feature=True,
        use_extra_extractor=True,
    ),
    decode_head=dict(
        in_channels=[dims] * 4,
        feat_channels=toy,
        out_channels=toy,
        num_queries=20,
        pixel_decoder=dict(
            norm_cfg=dict(type='GN', num_groups=8),
            encoder=dict(
                num_layers=1,
                layer_cfg=dict(
                    self_attn_cfg=toy_attn,
                    ffn_cfg=dict(embed_dims=toy, feedforward_channels=4 * toy),
                ),
            ),
            positional_encoding=dict(num_feats=toy // 2),
        ),
        positional_encoding=dict(num_feats=toy // 2),
        transformer_decoder=dict(
            num_layers=3,
            layer_cfg=dict(
                self_attn_cfg=toy_attn,
                cross_attn_cfg=toy_attn,
                ffn_cfg=dict(embed_dims=toy, feedforward_channels=4 * toy),
            ),
        ),
        train_cfg=dict(num_points=1024),
    ),
)
