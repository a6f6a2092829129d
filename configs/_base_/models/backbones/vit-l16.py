# Plain ViT-L/16 (timm vit_large_patch16_224 / DeiT layout, no LayerScale): the baseline that
# techniques/*.py add to. Taps and drop-path as mmseg's MAE/BEiT UPerNet configs (the drop-path is
# inactive in a frozen, eval-mode linear probe). Weights: tools/convert_checkpoint.py -> pretrain/.
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=4.0,
    out_indices=(7, 11, 15, 23),
    final_norm=True,
    drop_path_rate=0.2,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16.pth'),
)
