# CaiT-XXS24: 24 self-attention blocks with talking heads (patches only), 2 class-attention blocks.
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=192,
    num_layers=24,
    num_heads=4,
    mlp_ratio=4.0,
    layer_scale_init=1e-5,
    pos_embed_cls=False,
    num_class_attn_layers=2,
    talking_heads=True,
    out_indices=(5, 11, 17, 23),
    final_norm=True,
)
