# DINOv3 ViT-L/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vitl16: embed 1024,
# depth 24, 16 heads, ffn_ratio 4, ffn_layer 'mlp', qkv_bias True,
# norm 'layernormbf16' (eps 1e-5), layerscale 1e-5, 4 storage tokens, RoPE base 100 with
# 'separate' coordinates; no learned position table).
# Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# rescale_coords=2 of pretraining is off here: fine-tuning starts from the eval behaviour.
# out_indices: four evenly spaced blocks, as the DINOv2 fragments.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vitl16_pretrain_lvd1689m-8aa4cbdd.pth \
#     pretrain/vit-l16_dinov3.pth --format dinov3
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=4.0,
    num_register_tokens=4,
    with_pos_embed=False,
    pos_embed_cls=False,
    rope=dict(base=100.0, normalize_coords='separate'),
    norm_eps=1e-5,
    layer_scale_init=1e-5,
    out_indices=(5, 11, 17, 23),
    final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16_dinov3.pth'),
)
