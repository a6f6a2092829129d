# UPerNet over mmseg's Feature2Pyramid neck, as mmsegmentation's MAE recipe (open-mmlab/
# mmsegmentation v1.2.2 configs/_base_/models/upernet_mae.py and
# configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py): 4 taps at stride 16 rescaled
# x4, x2, x1, x0.5 (deconv-SyncBN-GELU-deconv / deconv / identity / max-pool); UPerHead pool
# scales 1,2,3,6, dropout 0.1, decoder channels = the backbone width; auxiliary FCN head on the
# third tap (in_index 2), 256 channels, one conv, loss weight 0.4. Feature2Pyramid is mmseg's
# registered module. Leaves set the backbone, the widths (embed_dims) and num_classes.
norm_cfg = dict(type='SyncBN', requires_grad=True)
# ChunkedEncoderDecoder: mmseg's EncoderDecoder whose full-size label map is computed in row
# bands of at most 256 MiB of class scores (a 5000 x 5000 test image does not need 15 GB).
model = dict(
    type='ChunkedEncoderDecoder',
    neck=dict(type='Feature2Pyramid', rescales=[4, 2, 1, 0.5], norm_cfg=norm_cfg),
    decode_head=dict(
        type='UPerHead',
        in_index=[0, 1, 2, 3],
        pool_scales=(1, 2, 3, 6),
        dropout_ratio=0.1,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0),
    ),
    auxiliary_head=dict(
        type='FCNHead',
        in_index=2,
        channels=256,
        num_convs=1,
        concat_input=False,
        dropout_ratio=0.1,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=0.4),
    ),
    train_cfg=dict(),
)
