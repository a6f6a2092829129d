# MAE ViT-L/16 (facebookresearch/mae models_vit.py vit_large_patch16: patch 16, 1024 wide,
# 24 blocks, 16 heads, MLP ratio 4, qkv_bias=True, LayerNorm eps 1e-6, no LayerScale; CLS token
# and a 224 / 16 = 14x14 position grid with its CLS slot). Architecture and weights only: leaves
# set taps, drop path, final norm and the techniques. Weights: mae_pretrain_vit_large.pth (mae
# README, "pre-trained checkpoint") converted by
#   python tools/convert_checkpoint.py mae_pretrain_vit_large.pth \
#       pretrain/vit-l16_mae.pth --format mae
backbone = dict(
    type='SpecViT',
    img_size=224,
    patch_size=16,
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=4.0,
    qkv_bias=True,
    layer_scale_init=None,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16_mae.pth'),
)
