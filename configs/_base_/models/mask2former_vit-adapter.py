# ViTAdapter (vitspec.models.backbones.vit_adapter: ViT-Adapter, arXiv 2205.08534, around a SpecViT)
# + mmseg's Mask2FormerHead with mmdet's MSDeformAttnPixelDecoder. The head's values are
# mmsegmentation's Mask2Former ADE20K config (open-mmlab/mmsegmentation v1.2.2
# configs/mask2former/mask2former_r50_8xb2-160k_ade20k-512x512.py): 256 channels, 100 queries,
# 6 deformable encoder layers over the 3 coarsest maps, 9 decoder layers, class / mask / dice
# losses 2 / 5 / 5 with no-object weight 0.1, Hungarian matching on 12544 sampled points.
# Leaves set backbone.vit, the adapter's options and decode_head.in_channels (the ViT width x 4).
dims, heads = 256, 8
deform_attn = dict(
    embed_dims=dims,
    num_heads=heads,
    num_levels=3,
    num_points=4,
    im2col_step=64,
    dropout=0.0,
    batch_first=True,
    norm_cfg=None,
    init_cfg=None,
)
decoder_attn = dict(
    embed_dims=dims,
    num_heads=heads,
    attn_drop=0.0,
    proj_drop=0.0,
    dropout_layer=None,
    batch_first=True,
)
relu = dict(type='ReLU', inplace=True)
model = dict(
    type='ChunkedEncoderDecoder',
    backbone=dict(type='ViTAdapter', norm_cfg=dict(type='SyncBN', requires_grad=True)),
    decode_head=dict(
        type='Mask2FormerHead',
        strides=[4, 8, 16, 32],
        feat_channels=dims,
        out_channels=dims,
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
                    self_attn_cfg=deform_attn,
                    ffn_cfg=dict(
                        embed_dims=dims,
                        feedforward_channels=1024,
                        num_fcs=2,
                        ffn_drop=0.0,
                        act_cfg=relu,
                    ),
                ),
                init_cfg=None,
            ),
            positional_encoding=dict(num_feats=dims // 2, normalize=True),
            init_cfg=None,
        ),
        enforce_decoder_input_project=False,
        positional_encoding=dict(num_feats=dims // 2, normalize=True),
        transformer_decoder=dict(
            return_intermediate=True,
            num_layers=9,
            layer_cfg=dict(
                self_attn_cfg=decoder_attn,
                cross_attn_cfg=decoder_attn,
                ffn_cfg=dict(
                    embed_dims=dims,
                    feedforward_channels=2048,
                    num_fcs=2,
                    act_cfg=relu,
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
    test_cfg=dict(mode='whole'),
)
