# MAE ViT-B/16 (facebookresearch/mae models_vit.py vit_base_patch16: patch 16, 768 wide, 12 blocks,
# 12 heads, MLP ratio 4, qkv_bias=True, LayerNorm eps 1e-6, no LayerScale; CLS token and a
# 224 / 16 = 14x14 position grid with its CLS slot). Architecture and weights only: leaves set taps,
# drop path, final norm and the techniques. Weights: mae_pretrain_vit_base.pth (mae README,
# "pre-trained checkpoint") converted by
#   python tools/convert_checkpoint.py mae_pretrain_vit_base.pth \
#       pretrain/vit-b16_mae.pth --format mae
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=768,
    num_layers=12,
    num_heads=12,
    mlp_ratio=4.0,
    qkv_bias=True,
    layer_scale_init=None,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-b16_mae.pth'),
)
