# Technique comparison (a comparison recipe, not a published result): UPerNet fine-tuning on
# ADE20K from the released DINOv2 ViT-B/14 weights, the same recipe for every technique -
# mmsegmentation's MAE ViT-B UPerNet recipe (v1.2.2 configs/mae/
# mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py: Feature2Pyramid, UPerHead 768, aux FCN on
# tap 2, AdamW 1e-4, wd 0.05, layer decay 0.65, warmup 1500, poly, 160k x 16 images, AMP, taps
# 3, 5, 7, 11, drop path 0.1, no final norm) on DINOv2's architecture as released (LayerScale,
# no relative position bias; 512 crops are centre-padded to 518). Specialization and Token
# Graying are added here at fine-tuning time and train with the rest (the CLS copies start from
# the shared weights); the leaves add only a technique fragment. Compare two runs with
# tools/compare_runs.py.
_base_ = [
    '../models/backbones/vit-b14_dinov2.py',
    './upernet_f2p_8xb2-amp-160k_ade20k-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(_base_.backbone, out_indices=[3, 5, 7, 11], final_norm=False, drop_path_rate=0.1),
    neck=dict(embed_dim=dims),
    decode_head=dict(in_channels=[dims] * 4, channels=dims),
    auxiliary_head=dict(in_channels=dims),
)
