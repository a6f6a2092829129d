# mmseg's Mask2FormerHead with mmdet's MSDeformAttnPixelDecoder at mmsegmentation's Mask2Former
# ADE20K values (open-mmlab/mmsegmentation v1.2.2 configs/mask2former/
# mask2former_r50_8xb2-160k_ade20k-512x512.py): 256 channels, 8 heads, 100 queries, 6 deformable
# encoder layers over the 3 coarsest maps, 9 decoder layers, class / mask / dice losses 2 / 5 / 5
# with no-object weight 0.1, Hungarian matching on 12544 sampled points. Its input is 4 maps,
# finest first (strides 4, 8, 16, 32). Helpers are named __*: mmengine leaves them out of the
# built config, so a config inheriting this one holds only the keys it names itself.
__dims, __heads = 256, 8
__deform_attn = dict(
    embed_dims=__dims,
    num_heads=__heads,
    num_levels=3,
    num_points=4,
    im2col_step=64,
    dropout=0.0,
    batch_first=True,
    norm_cfg=None,
    init_cfg=None,
)
__decoder_attn = dict(
    embed_dims=__dims,
    num_heads=__heads,
    attn_drop=0.0,
    proj_drop=0.0,
    dropout_layer=None,
    batch_first=True,
)
__relu = dict(type='ReLU', inplace=True)
model = dict(
    type='ChunkedEncoderDecoder',
    decode_head=dict(
        type='Mask2FormerHead',
        strides=[4, 8, 16, 32],
        feat_channels=__dims,
        out_channels=__dims,
        num_classes=150,
        num_queries=100,
        num_transformer_feat_level=3,
        align_corners=False,
        pixel_decoder=dict(
            type='mmdet.MSDeformAttnPixelDecoder',
            num_outs=3,
            norm_cfg=dict(type='GN', num_groups=32),
            act_cfg=dict(type='ReLU'),
            encoder=dict(
                num_layers=6,
                layer_cfg=dict(
                    self_attn_cfg=__deform_attn,
                    ffn_cfg=dict(
                        embed_dims=__dims,
                        feedforward_channels=1024,
                        num_fcs=2,
                        ffn_drop=0.0,
                        act_cfg=__relu,
                    ),
                ),
                init_cfg=None,
            ),
            positional_encoding=dict(num_feats=__dims // 2, normalize=True),
            init_cfg=None,
        ),
        enforce_decoder_input_project=False,
        positional_encoding=dict(num_feats=__dims // 2, normalize=True),
        transformer_decoder=dict(
            return_intermediate=True,
            num_layers=9,
            layer_cfg=dict(
                self_attn_cfg=__decoder_attn,
                cross_attn_cfg=__decoder_attn,
                ffn_cfg=dict(
                    embed_dims=__dims,
                    feedforward_channels=2048,
                    num_fcs=2,
                    act_cfg=__relu,
                    ffn_drop=0.0,
                    dropout_layer=None,
                    add_identity=True,
                ),
            ),
            init_cfg=None,
        ),
        loss_cls=dict(
            type='mmdet.CrossEntropyLoss',
            use_sigmoid=False,
            loss_weight=2.0,
            reduction='mean',
            class_weight=[1.0] * 150 + [0.1],  # no-object last
        ),
        loss_mask=dict(
            type='mmdet.CrossEntropyLoss', use_sigmoid=True, reduction='mean', loss_weight=5.0
        ),
        loss_dice=dict(
            type='mmdet.DiceLoss',
            use_sigmoid=True,
            activate=True,
            reduction='mean',
            naive_dice=True,
            eps=1.0,
            loss_weight=5.0,
        ),
        train_cfg=dict(
            num_points=12544,
            oversample_ratio=3.0,
            importance_sample_ratio=0.75,
            assigner=dict(
                type='mmdet.HungarianAssigner',
                match_costs=[
                    dict(type='mmdet.ClassificationCost', weight=2.0),
                    dict(type='mmdet.CrossEntropyLossCost', weight=5.0, use_sigmoid=True),
                    dict(type='mmdet.DiceCost', weight=5.0, pred_act=True, eps=1.0),
                ],
            ),
            sampler=dict(type='mmdet.MaskPseudoSampler'),
        ),
    ),
    train_cfg=dict(),
)
