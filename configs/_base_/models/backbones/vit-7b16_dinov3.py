# DINOv3 ViT-7B/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vit7b16: embed 4096,
# depth 40, 32 heads, ffn_ratio 3, ffn_layer 'swiglu64', qkv_bias False); shared settings:
# _dinov3.py. SwiGLU width: int(4096 * 3 * 2 / 3) rounded up to 64 = 8192, which
# ffn_type='swiglu' (rounding up to 8) also gives.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vit7b16_pretrain_lvd1689m-a955f4ea.pth \
#     pretrain/vit-7b16_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=4096,
    num_layers=40,
    num_heads=32,
    mlp_ratio=3.0,
    ffn_type='swiglu',
    qkv_bias=False,
    out_indices=(9, 19, 29, 39),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-7b16_dinov3.pth'),
)
