# DeiT-III ViT-S/16 (LayerScale 1e-4; no position embedding on the CLS token).
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    mlp_ratio=4.0,
    layer_scale_init=1e-4,
    pos_embed_cls=False,
    out_indices=(2, 5, 8, 11),
    final_norm=True,
)
