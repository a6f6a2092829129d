# DINOv3's Mask2Former head (facebookresearch/dinov3 dinov3/eval/segmentation/models/heads/
# mask2former_head.py, pixel_decoder.py, mask2former_transformer_decoder.py; hub/segmentors.py
# hidden_dim 2048) as mmseg's Mask2FormerHead with mmdet's MSDeformAttnPixelDecoder: hidden and
# mask dim 2048, 16 heads and FFN 4096 in the pixel decoder (6 deformable encoder layers over the 3
# coarsest maps, 4 points, GN(32), one lateral level) and the transformer decoder (9 layers,
# post-norm, 100 queries, no input projection), 150 classes. Its input is the 4 maps of the
# adapter, finest first (strides 4, 8, 16, 32). Leaves set in_channels.
# Released as inference only (dinov3/eval/segmentation/train.py: "Only linear head is supported
# for training"), so the losses, matching and point sampling here are mmseg's Mask2Former ADE20K
# config (mask2former_r50_8xb2-160k_ade20k-512x512.py), not DINOv3's, which is not published.
m2f_dims, m2f_heads, m2f_ffn = 2048, 16, 4096
m2f_classes = 150
m2f_deform_attn = dict(
    embed_dims=m2f_dims,
    num_heads=m2f_heads,
    num_levels=3,
    num_points=4,
    im2col_step=64,
    dropout=0.0,
    batch_first=True,
    norm_cfg=None,
    init_cfg=None,
)
m2f_decoder_attn = dict(
    embed_dims=m2f_dims,
    num_heads=m2f_heads,
    attn_drop=0.0,
    proj_drop=0.0,
    dropout_layer=None,
    batch_first=True,
)
m2f_relu = dict(type='ReLU', inplace=True)
model = dict(
    type='ChunkedEncoderDecoder',
    decode_head=dict(
        type='Mask2FormerHead',
        strides=[4, 8, 16, 32],
        feat_channels=m2f_dims,
        out_channels=m2f_dims,
        num_classes=m2f_classes,
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
                    self_attn_cfg=m2f_deform_attn,
                    ffn_cfg=dict(
                        embed_dims=m2f_dims,
                        feedforward_channels=m2f_ffn,
                        num_fcs=2,
                        ffn_drop=0.0,
                        act_cfg=m2f_relu,
                    ),
                ),
                init_cfg=None,
            ),
            positional_encoding=dict(num_feats=m2f_dims // 2, normalize=True),
            init_cfg=None,
        ),
        enforce_decoder_input_project=False,
        positional_encoding=dict(num_feats=m2f_dims // 2, normalize=True),
        transformer_decoder=dict(
            return_intermediate=True,
            num_layers=9,
            layer_cfg=dict(
                self_attn_cfg=m2f_decoder_attn,
                cross_attn_cfg=m2f_decoder_attn,
                ffn_cfg=dict(
                    embed_dims=m2f_dims,
                    feedforward_channels=m2f_ffn,
                    num_fcs=2,
                    act_cfg=m2f_relu,
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
            class_weight=[1.0] * m2f_classes + [0.1],
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
