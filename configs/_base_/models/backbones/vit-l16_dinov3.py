# DINOv3 ViT-L/16 (facebookresearch/dinov3 dinov3/hub/backbones.py dinov3_vitl16: embed 1024,
# depth 24, 16 heads, ffn_ratio 4, ffn_layer 'mlp', qkv_bias True); shared settings: _dinov3.py.
# Its k bias is masked to zero (mask_k_bias); the converter applies the mask.
# Checkpoint: python tools/convert_checkpoint.py dinov3_vitl16_pretrain_lvd1689m-8aa4cbdd.pth \
#     pretrain/vit-l16_dinov3.pth --format dinov3
_base_ = ['./_dinov3.py']
backbone = dict(
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    out_indices=(5, 11, 17, 23),
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16_dinov3.pth'),
)
