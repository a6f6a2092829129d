# DINOv2 linear probe (methods.md §5.1): frozen backbone; BN + 1x1 conv on the concatenated patch
# tokens of the tapped layers. Leaves set the backbone (frozen), in_channels and num_classes.
model = dict(
    type='EncoderDecoder',
    decode_head=dict(
        type='LinearBNHead', norm_cfg=dict(type='SyncBN', requires_grad=True),
        dropout_ratio=0.0, align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0)),
    train_cfg=dict())
custom_hooks = [dict(type='LinearProbeHook')]
