# DINOv3 ViT-S/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vits16: embed 384,
# depth 12, 6 heads, ffn_ratio 4, ffn_layer 'mlp', qkv_bias True); shared settings: _dinov3.py.
# Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vits16_pretrain_lvd1689m-08c60483.pth \
#     pretrain/vit-s16_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=384,
    num_layers=12,
    num_heads=6,
    out_indices=(2, 5, 8, 11),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-s16_dinov3.pth'),
)
