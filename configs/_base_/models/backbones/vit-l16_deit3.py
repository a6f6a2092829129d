# DeiT-III ViT-L/16 (LayerScale 1e-4; no position embedding on the CLS token).
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=4.0,
    layer_scale_init=1e-4,
    pos_embed_cls=False,
    out_indices=(4, 11, 17, 23),
    final_norm=True,
)
