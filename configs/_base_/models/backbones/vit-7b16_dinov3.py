# DINOv3 ViT-7B/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vit7b16: embed 4096,
# depth 40, 32 heads, ffn_ratio 3, ffn_layer 'swiglu64', qkv_bias False,
# norm 'layernormbf16' (eps 1e-5), layerscale 1e-5, 4 storage tokens, RoPE base 100 with
# 'separate' coordinates; no learned position table).
# No qkv bias.
# SwiGLU width: int(4096 * 3 * 2 / 3) rounded up to 64 = 8192, which
# ffn_type='swiglu' (rounding up to 8) also gives.
# rescale_coords=2 of pretraining is off here: fine-tuning starts from the eval behaviour.
# out_indices: four evenly spaced blocks, as the DINOv2 fragments.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vit7b16_pretrain_lvd1689m-a955f4ea.pth \
#     pretrain/vit-7b16_dinov3.pth --format dinov3
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=4096,
    num_layers=40,
    num_heads=32,
    mlp_ratio=3.0,
    ffn_type='swiglu',
    qkv_bias=False,
    num_register_tokens=4,
    with_pos_embed=False,
    pos_embed_cls=False,
    rope=dict(base=100.0, normalize_coords='separate'),
    norm_eps=1e-5,
    layer_scale_init=1e-5,
    out_indices=(9, 19, 29, 39),
    final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-7b16_dinov3.pth'),
)
