# EoMT-B, COCO panoptic 640 x 640, 2x schedule: the EoMT model zoo's 51.6 PQ (tue-mps/eomt
# model_zoo/dinov2.md, configs/dinov2/coco/panoptic/eomt_base_640_2x.yaml; ledger row
# eomt-coco-panoptic-vitb16-640-2x): the ViT-L recipe with DINOv2 ViT-B/14-reg4 at patch 16,
# queries in the last 3 blocks, 24 epochs, the 3 blocks' masks annealed at upstream's steps.
_base_ = [
    '../_base_/recipes/eomt_vit-l16-dinov2-reg4_4xb4-89k_coco-panoptic-640x640.py',
    '../_base_/models/techniques/plain.py',
]
# timm's vit_base_patch14_reg4_dinov2: embed 768, depth 12, 12 heads (the ViT-L fragment's
# rules otherwise, vit-l16_dinov2-reg4.py)
model = dict(
    backbone=dict(
        embed_dims=768,
        num_layers=12,
        num_heads=12,
        out_indices=(11,),
        init_cfg=dict(checkpoint='pretrain/vit-b16_dinov2-reg4.pth'),
        **_base_.technique,
    ),
    num_blocks=3,
)
# 24 epochs of 7,391 batches (schedule_eomt_89k.py), warm-up then poly 0.9 to 0
max_iters = 24 * _base_.batches_per_epoch
param_scheduler = [
    _base_.param_scheduler[0],
    dict(_base_.param_scheduler[1], end=max_iters),
]
train_cfg = dict(max_iters=max_iters)
custom_hooks = [
    *_base_.custom_hooks[:-1],
    dict(
        type='MaskAnnealingHook',
        start_iters=[29564, 73910, 118256],
        end_iters=[59128, 103474, 147820],
        power=_base_.poly_power,
    ),
]
