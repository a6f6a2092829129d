# EoMT-S, COCO panoptic 640 x 640, 2x schedule: the EoMT model zoo's 46.7 PQ (tue-mps/eomt
# model_zoo/dinov2.md, configs/dinov2/coco/panoptic/eomt_small_640_2x.yaml; ledger row
# eomt-coco-panoptic-vits16-640-2x): the 2x recipe with DINOv2 ViT-S/14-reg4 at patch 16.
_base_ = [
    '../_base_/recipes/eomt_dinov2-reg4_4xb4-177k_coco-panoptic-640x640.py',
    '../_base_/models/techniques/plain.py',
]
# timm's vit_small_patch14_reg4_dinov2: embed 384, depth 12, 6 heads (the ViT-L fragment's
# rules otherwise, vit-l16_dinov2-reg4.py)
model = dict(
    backbone=dict(
        embed_dims=384,
        num_layers=12,
        num_heads=6,
        out_indices=(11,),
        init_cfg=dict(checkpoint='pretrain/vit-s16_dinov2-reg4.pth'),
        **_base_.technique,
    ),
)
