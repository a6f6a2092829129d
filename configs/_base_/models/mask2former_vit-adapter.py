# ViTAdapter (vitspec.models.vit_adapter.backbone: ViT-Adapter, arXiv 2205.08534, around a SpecViT)
# + mmseg's Mask2Former ADE20K head (mask2former_head_ade20k.py: open-mmlab/mmsegmentation v1.2.2
# configs/mask2former/mask2former_r50_8xb2-160k_ade20k-512x512.py), whole-image inference.
# Leaves set backbone.vit, the adapter's options and decode_head.in_channels (the ViT width x 4).
_base_ = ['./mask2former_head_ade20k.py']
# the head's sizes and layer settings, by name for the configs that resize it
dims, heads = 256, 8
deform_attn = _base_.model.decode_head.pixel_decoder.encoder.layer_cfg.self_attn_cfg
decoder_attn = _base_.model.decode_head.transformer_decoder.layer_cfg.self_attn_cfg
relu = _base_.model.decode_head.transformer_decoder.layer_cfg.ffn_cfg.act_cfg
model = dict(
    backbone=dict(type='ViTAdapter', norm_cfg=dict(type='SyncBN', requires_grad=True)),
    test_cfg=dict(mode='whole'),
)
