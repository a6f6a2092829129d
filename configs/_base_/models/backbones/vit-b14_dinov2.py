# DINOv2 ViT-B/14.
backbone = dict(
    type='SpecViT',
    img_size=518,
    patch_size=14,
    embed_dims=768,
    num_layers=12,
    num_heads=12,
    mlp_ratio=4.0,
    layer_scale_init=1e-5,
    pos_embed_interp='dinov2',
    out_indices=(2, 5, 8, 11),
    final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-b14_dinov2.pth'),
)
