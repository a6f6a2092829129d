# DINOv3's Mask2Former head (facebookresearch/dinov3 dinov3/eval/segmentation/models/heads/
# mask2former_head.py, pixel_decoder.py, mask2former_transformer_decoder.py; hub/segmentors.py
# hidden_dim 2048) as mmseg's Mask2FormerHead with mmdet's MSDeformAttnPixelDecoder: hidden and
# mask dim 2048, 16 heads and FFN 4096 in the pixel decoder (6 deformable encoder layers over the 3
# coarsest maps, 4 points, GN(32), one lateral level) and the transformer decoder (9 layers,
# post-norm, 100 queries, no input projection), 150 classes. Its input is the 4 maps of the
# adapter, finest first (strides 4, 8, 16, 32). Leaves set in_channels.
# Released as inference only (dinov3/eval/segmentation/train.py: "Only linear head is supported
# for training"), so the losses, matching and point sampling here are mmseg's Mask2Former ADE20K
# config (mask2former_r50_8xb2-160k_ade20k-512x512.py, mask2former_head_ade20k.py), not DINOv3's,
# which is not published; this file states DINOv3's sizes only.
_base_ = ['./mask2former_head_ade20k.py']
m2f_dims, m2f_heads, m2f_ffn = 2048, 16, 4096
m2f_classes = 150
__head = _base_.model.decode_head
m2f_deform_attn = dict(
    __head.pixel_decoder.encoder.layer_cfg.self_attn_cfg, embed_dims=m2f_dims, num_heads=m2f_heads
)
m2f_decoder_attn = dict(
    __head.transformer_decoder.layer_cfg.self_attn_cfg, embed_dims=m2f_dims, num_heads=m2f_heads
)
m2f_relu = __head.transformer_decoder.layer_cfg.ffn_cfg.act_cfg
__ffn = dict(embed_dims=m2f_dims, feedforward_channels=m2f_ffn)
model = dict(
    decode_head=dict(
        feat_channels=m2f_dims,
        out_channels=m2f_dims,
        num_classes=m2f_classes,
        pixel_decoder=dict(
            encoder=dict(layer_cfg=dict(self_attn_cfg=m2f_deform_attn, ffn_cfg=__ffn)),
            positional_encoding=dict(num_feats=m2f_dims // 2),
        ),
        positional_encoding=dict(num_feats=m2f_dims // 2),
        transformer_decoder=dict(
            layer_cfg=dict(
                self_attn_cfg=m2f_decoder_attn,
                cross_attn_cfg=m2f_decoder_attn,
                ffn_cfg=__ffn,
            )
        ),
        loss_cls=dict(class_weight=[1.0] * m2f_classes + [0.1]),
    ),
)
