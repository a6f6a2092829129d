# What every DINOv3 ViT shares (facebookresearch/dinov3 dinov3/hub/backbones.py, the released
# dinov3_vit*16 builders): patch 16, 4 storage tokens, LayerScale 1e-5, norm 'layernormbf16'
# (eps 1e-5), RoPE base 100 with 'separate' coordinates and no learned position table.
# rescale_coords=2 of pretraining is off here: fine-tuning starts from the eval behaviour.
# The size fragments vit-*16*_dinov3.py inherit this and state their widths, depth, MLP, qkv
# bias, out_indices (four evenly spaced blocks, as the DINOv2 fragments) and checkpoint.
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    mlp_ratio=4.0,
    num_register_tokens=4,
    with_pos_embed=False,
    pos_embed_cls=False,
    rope=dict(base=100.0, normalize_coords='separate'),
    norm_eps=1e-5,
    layer_scale_init=1e-5,
    final_norm=True,
)
