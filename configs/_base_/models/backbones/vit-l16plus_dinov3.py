# DINOv3 ViT-L+/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vitl16plus: embed 1024,
# depth 24, 16 heads, ffn_ratio 6, ffn_layer 'swiglu', qkv_bias True); shared settings:
# _dinov3.py. Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# SwiGLU width: int(1024 * 6 * 2 / 3) rounded up to 8 = 4096, as ffn_type='swiglu'.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vitl16plus_pretrain_lvd1689m-46503df0.pth \
#     pretrain/vit-l16plus_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=6.0,
    ffn_type='swiglu',
    out_indices=(5, 11, 17, 23),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16plus_dinov3.pth'),
)
