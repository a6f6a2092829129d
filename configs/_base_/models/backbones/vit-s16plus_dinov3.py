# DINOv3 ViT-S+/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vits16plus: embed 384,
# depth 12, 6 heads, ffn_ratio 6, ffn_layer 'swiglu', qkv_bias True); shared settings:
# _dinov3.py. Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# SwiGLU width: int(384 * 6 * 2 / 3) rounded up to 8 = 1536, as ffn_type='swiglu'.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vits16plus_pretrain_lvd1689m-4057cbaa.pth \
#     pretrain/vit-s16plus_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    mlp_ratio=6.0,
    ffn_type='swiglu',
    out_indices=(2, 5, 8, 11),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-s16plus_dinov3.pth'),
)
