# DINOv3 ViT-H+/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vith16plus: embed 1280,
# depth 32, 20 heads, ffn_ratio 6, ffn_layer 'swiglu', qkv_bias True); shared settings:
# _dinov3.py. Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# SwiGLU width: int(1280 * 6 * 2 / 3) rounded up to 8 = 5120, as ffn_type='swiglu'.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vith16plus_pretrain_lvd1689m-7c1da9a5.pth \
#     pretrain/vit-h16plus_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=1280,
    num_layers=32,
    num_heads=20,
    mlp_ratio=6.0,
    ffn_type='swiglu',
    out_indices=(7, 15, 23, 31),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-h16plus_dinov3.pth'),
)
