# A tiny plain SpecViT (patch 8, 6 blocks of width 128) for the CPU demos; no pretrained weights.
backbone = dict(
    type='SpecViT',
    img_size=128,
    patch_size=8,
    embed_dims=128,
    num_layers=6,
    num_heads=4,
    mlp_ratio=4.0,
    out_indices=(5,),
    final_norm=True,
    drop_path_rate=0.0,
)
