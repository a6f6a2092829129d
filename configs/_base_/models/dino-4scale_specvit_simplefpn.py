# DINO (Zhang et al. 2022, arXiv 2203.03605) on a plain ViT, as detrex's projects/dino/configs/
# models/dino_vitdet.py builds it on top of dino_r50.py (IDEA-Research/detrex): ViTDet's simple
# feature pyramid on the last ViT map at strides 8, 16, 32 plus a max-pooled P6 (4 levels, 256
# channels, LayerNorm), then dino_r50.py's ChannelMapper (1x1 conv + GroupNorm 32 per level),
# then mmdet 3.3's DINO: two-stage, box refinement, contrastive denoising queries. Leaves fill in
# the backbone (a SpecViT fragment) and the pyramid's in_channels.
# Written out (not inherited from mmdet's configs/dino/dino-4scale_r50_8xb2-12e_coco.py, a whole
# run whose data and schedule would collide with ours), in that file's layout.
num_levels = 4  # dino_vitdet.py: model.transformer.num_feature_levels = 4
# dino_vitdet.py SimpleFeaturePyramid: scale_factors=(2.0, 1.0, 0.5), top_block=LastLevelMaxPool(),
# out_channels=256, norm='LN' (leaves set in_channels: neck=dict(necks=[dict(_base_.simple_fpn,
# in_channels=...), _base_.channel_mapper]))
simple_fpn = dict(
    type='SimpleFPN',
    in_channels=768,
    out_channels=256,
    scale_factors=(2.0, 1.0, 0.5),
    num_outs=num_levels,
    norm_cfg=dict(type='LN2d', eps=1e-6),
)
# dino_r50.py ChannelMapper(kernel_size=1, out_channels=256, num_outs=4, norm_layer=GroupNorm(32,
# 256)) on p3-p6 (dino_vitdet.py neck.in_features)
channel_mapper = dict(
    type='ChannelMapper',
    in_channels=[256] * num_levels,
    kernel_size=1,
    out_channels=256,
    act_cfg=None,
    norm_cfg=dict(type='GN', num_groups=32),
    num_outs=num_levels,
)
model = dict(
    type='DINO',
    num_queries=900,  # dino_r50.py: num_queries=900
    num_feature_levels=num_levels,
    with_box_refine=True,  # detrex's DINO always refines boxes layer by layer ...
    as_two_stage=True,  # ... and selects its queries from the encoder (two_stage_num_proposals)
    # dino_r50.py pixel_mean / pixel_std, input_format='RGB'. detrex pads a batch to its largest
    # image (ImageList.from_tensors, no divisor; the patch conv drops a remainder): here to a
    # multiple of the patch, bottom / right, inside the padding mask, so no pixel is dropped
    data_preprocessor=dict(
        type='DetDataPreprocessor',
        mean=[123.675, 116.28, 103.53],
        std=[58.395, 57.12, 57.375],
        bgr_to_rgb=True,
        pad_size_divisor=16,
    ),
    backbone=dict(type='SpecViT'),
    neck=dict(type='SequentialNeck', necks=[simple_fpn, channel_mapper]),
    # dino_r50.py DINOTransformerEncoder / Decoder: 6 layers each, embed 256, 8 heads, FFN 2048,
    # dropout 0; 4 levels (4 sampling points: MultiScaleDeformableAttention's default in both)
    encoder=dict(
        num_layers=6,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=256, num_levels=num_levels, dropout=0.0),
            ffn_cfg=dict(embed_dims=256, feedforward_channels=2048, ffn_drop=0.0),
        ),
    ),
    decoder=dict(
        num_layers=6,
        return_intermediate=True,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=256, num_heads=8, dropout=0.0),
            cross_attn_cfg=dict(embed_dims=256, num_levels=num_levels, dropout=0.0),
            ffn_cfg=dict(embed_dims=256, feedforward_channels=2048, ffn_drop=0.0),
        ),
        post_norm_cfg=None,
    ),
    # dino_r50.py PositionEmbeddingSine(num_pos_feats=128, temperature=10000, normalize=True,
    # offset=-0.5); mmdet's DINO config has DINO's original 20 and 0.0 (detrex's README note)
    positional_encoding=dict(num_feats=128, normalize=True, temperature=10000, offset=-0.5),
    # dino_r50.py DINOCriterion: focal loss (alpha 0.25, gamma 2), weights class 1, bbox 5,
    # giou 2 (the same for the denoising and auxiliary losses)
    bbox_head=dict(
        type='DINOHead',
        num_classes=80,
        sync_cls_avg_factor=True,
        loss_cls=dict(type='FocalLoss', use_sigmoid=True, gamma=2.0, alpha=0.25, loss_weight=1.0),
        loss_bbox=dict(type='L1Loss', loss_weight=5.0),
        loss_iou=dict(type='GIoULoss', loss_weight=2.0),
    ),
    # dino_r50.py: dn_number=100, label_noise_ratio=0.5, box_noise_scale=1.0
    dn_cfg=dict(
        label_noise_scale=0.5,
        box_noise_scale=1.0,
        group_cfg=dict(dynamic=True, num_groups=None, num_dn_queries=100),
    ),
    # dino_r50.py HungarianMatcher(cost_class=2.0, cost_bbox=5.0, cost_giou=2.0, focal cost)
    train_cfg=dict(
        assigner=dict(
            type='HungarianAssigner',
            match_costs=[
                dict(type='FocalLossCost', weight=2.0),
                dict(type='BBoxL1Cost', weight=5.0, box_format='xywh'),
                dict(type='IoUCost', iou_mode='giou', weight=2.0),
            ],
        )
    ),
    test_cfg=dict(max_per_img=300),  # dino.py DINO(select_box_nums_for_evaluation=300)
)
