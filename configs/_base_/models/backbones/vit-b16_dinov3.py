# DINOv3 ViT-B/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vitb16: embed 768,
# depth 12, 12 heads, ffn_ratio 4, ffn_layer 'mlp', qkv_bias True); shared settings: _dinov3.py.
# Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vitb16_pretrain_lvd1689m-73cec8be.pth \
#     pretrain/vit-b16_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=768,
    num_layers=12,
    num_heads=12,
    out_indices=(2, 5, 8, 11),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-b16_dinov3.pth'),
)
