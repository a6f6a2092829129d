# DINOv2 ViT-g/14 ("vit_giant2" in facebookresearch/dinov2 dinov2/models/vision_transformer.py:
# embed 1536, depth 40, 24 heads, mlp_ratio 4; dinov2/hub/backbones.py dinov2_vitg14 and
# dinov2/configs/train/vitg14.yaml use ffn_layer='swiglufused'). ffn_type='swiglu' applies the
# same hidden-width rule: int(1536 * 4 * 2 / 3) rounded up to 8 = 4096.
# layer_scale_init: dinov2/configs/ssl_default_config.yaml student.layerscale (1e-5; the
# pretrained gammas replace it). out_indices: dinov2/hub/depthers.py out_index['vit_giant2'].
# Checkpoint: python tools/convert_checkpoint.py dinov2_vitg14_pretrain.pth \
#     pretrain/vit-g14_dinov2.pth --format dinov2
backbone = dict(
    type='SpecViT',
    img_size=518,
    patch_size=14,
    embed_dims=1536,
    num_layers=40,
    num_heads=24,
    mlp_ratio=4.0,
    ffn_type='swiglu',
    layer_scale_init=1e-5,
    pos_embed_interp='dinov2',
    out_indices=(9, 19, 29, 39),
    final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-g14_dinov2.pth'),
)
