# DINOv2 ViT-S/14 (tools/convert_checkpoint.py --format dinov2 prints the same arguments).
backbone = dict(
    type='SpecViT',
    img_size=518,
    patch_size=14,
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    mlp_ratio=4.0,
    layer_scale_init=1e-5,
    pos_embed_interp='dinov2',
    out_indices=(2, 5, 8, 11),
    final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-s14_dinov2.pth'),
)
