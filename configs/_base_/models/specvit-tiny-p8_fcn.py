# A tiny SpecViT (patch 8) with a one-conv FCN head: small enough to train on 2 CPU cores.
norm_cfg = dict(type='SyncBN', requires_grad=True)
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255,
    size_divisor=8,
)
# ChunkedEncoderDecoder: mmseg's EncoderDecoder whose full-size label map is computed in row
# bands of at most 256 MiB of class scores (a 5000 x 5000 test image does not need 15 GB).
model = dict(
    type='ChunkedEncoderDecoder',
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
    decode_head=dict(
        type='FCNHead',
        in_channels=128,
        channels=128,
        num_convs=1,
        kernel_size=3,
        concat_input=False,
        num_classes=150,
        dropout_ratio=0.0,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0),
    ),
    train_cfg=dict(),
    test_cfg=dict(mode='whole'),
)
