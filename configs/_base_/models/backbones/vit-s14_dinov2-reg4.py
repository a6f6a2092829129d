# DINOv2 ViT-S/14 with 4 registers (resampled as timm / the hub's *_reg models do).
backbone = dict(
    type='SpecViT',
    img_size=518,
    patch_size=14,
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    mlp_ratio=4.0,
    layer_scale_init=1e-5,
    num_register_tokens=4,
    pos_embed_interp='timm',
    out_indices=(2, 5, 8, 11),
    final_norm=True,
)
