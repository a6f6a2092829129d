# Plain ViT-S/16 (timm vit_small_patch16_224 / DeiT layout, no LayerScale): the baseline that
# techniques/*.py add to. Taps and drop-path as mmseg's MAE/BEiT UPerNet configs (the drop-path is
# inactive in a frozen, eval-mode linear probe). Weights: tools/convert_checkpoint.py -> pretrain/.
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    mlp_ratio=4.0,
    out_indices=(3, 5, 7, 11),
    final_norm=True,
    drop_path_rate=0.1,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-s16.pth'),
)
