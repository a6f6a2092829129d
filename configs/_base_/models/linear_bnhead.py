# DINOv2's linear segmentation probe (facebookresearch/dinov2
# dinov2/eval/segmentation/models/decode_heads/linear_head.py BNHead, configured by the hosted
# dinov2_vit*14_ade20k_linear_config.py): the frozen backbone's tapped patch-token maps are
# resized to the first one and concatenated (resize_concat), SyncBN, then a 1x1 conv; dropout 0,
# cross-entropy weight 1.0. Leaves set the backbone (frozen), in_channels and num_classes, and take
# runtime_probe.py, whose LinearProbeHook guards the frozen backbone.
# ChunkedEncoderDecoder: mmseg's EncoderDecoder whose full-size label map is computed in row
# bands of at most 256 MiB of class scores (a 5000 x 5000 test image does not need 15 GB).
model = dict(
    type='ChunkedEncoderDecoder',
    decode_head=dict(
        type='LinearBNHead',
        norm_cfg=dict(type='SyncBN', requires_grad=True),
        dropout_ratio=0.0,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0),
    ),
    train_cfg=dict(),
)
