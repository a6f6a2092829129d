# DINOv2 ViT-L/14.
backbone = dict(
    type='SpecViT',
    img_size=518,
    patch_size=14,
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=4.0,
    layer_scale_init=1e-5,
    pos_embed_interp='dinov2',
    out_indices=(4, 11, 17, 23),
    final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l14_dinov2.pth'),
)
