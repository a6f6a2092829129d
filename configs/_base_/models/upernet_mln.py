# UPerNet over a MultiLevelNeck pyramid (4 taps at 1/16 -> 1/4..1/32), as mmseg's ViT configs.
# Leaves set the backbone and the channel counts (embed_dims) and num_classes.
norm_cfg = dict(type='SyncBN', requires_grad=True)
model = dict(
    type='EncoderDecoder',
    neck=dict(type='MultiLevelNeck', scales=[4, 2, 1, 0.5]),
    decode_head=dict(
        type='UPerHead', in_index=[0, 1, 2, 3], pool_scales=(1, 2, 3, 6), channels=512,
        dropout_ratio=0.1, norm_cfg=norm_cfg, align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0)),
    auxiliary_head=dict(
        type='FCNHead', in_index=3, channels=256, num_convs=1, concat_input=False,
        dropout_ratio=0.1, norm_cfg=norm_cfg, align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=0.4)),
    train_cfg=dict())
