# DINOv2 ViT-g/14 ("vit_giant2": facebookresearch/dinov2 dinov2/models/vision_transformer.py,
# embed 1536, depth 40, 24 heads, mlp_ratio 4; dinov2/hub/backbones.py builds it with
# ffn_layer='swiglufused'). ffn_type='swiglu' applies the same hidden-width rule (4096 here).
# out_indices: dinov2/hub/depthers.py, out_index['vit_giant2'] = [9, 19, 29, 39].
# Checkpoint: tools/convert_checkpoint.py dinov2_vitg14_pretrain.pth pretrain/vit-g14_dinov2.pth
#     --format dinov2
backbone = dict(
    type='SpecViT', img_size=518, patch_size=14, embed_dims=1536, num_layers=40, num_heads=24,
    mlp_ratio=4.0, ffn_type='swiglu', layer_scale_init=1e-5, pos_embed_interp='dinov2',
    out_indices=(9, 19, 29, 39), final_norm=True,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-g14_dinov2.pth'))
