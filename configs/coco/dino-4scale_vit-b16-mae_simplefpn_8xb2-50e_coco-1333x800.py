# DINO-ViTDet-Base-4scale, ViT-B/16 from MAE ImageNet-1k weights, COCO, 50 epochs: IDEA-Research/
# detrex projects/dino/configs/dino-vitdet/dino_vitdet_base_4scale_50ep.py (projects/dino/
# README.md: box AP 55.0). Field by field in configs/coco/reproductions.yaml; the differences are
# in configs/coco/README.md. Weights:
#   python tools/convert_checkpoint.py mae_pretrain_vit_base.pth \
#       pretrain/vit-b16_mae.pth --format mae
_base_ = [
    '../_base_/models/backbones/vit-b16_mae.py',
    '../_base_/recipes/dino-4scale_vitdet_simplefpn_8xb2-12e_coco-1333x800.py',
]
model = dict(
    # dino_vitdet.py: embed_dim, depth, num_heads, dp = 768, 12, 12, 0.1; window_block_indexes
    # 0, 1, 3, 4, 6, 7, 9, 10 ("2, 5, 8 11 for global attention")
    backbone=dict(
        _base_.backbone,
        **_base_.vitdet_backbone,
        drop_path_rate=0.1,
        global_attn_indexes=(2, 5, 8, 11),
        out_indices=(11,),
    ),
    neck=dict(
        necks=[
            dict(_base_.simple_fpn, in_channels=_base_.backbone['embed_dims']),
            _base_.channel_mapper,
        ]
    ),
)
# dino_vitdet_base_4scale_50ep.py: train.max_iter = 375000, coco_schedule.py lr_multiplier_50ep =
# default_coco_scheduler(50, 40, 0): x0.1 after 40 x 7500 = 300,000 iterations, no warmup
max_iters = 375000
param_scheduler = [
    dict(type='MultiStepLR', by_epoch=False, begin=0, end=max_iters, milestones=[300000], gamma=0.1)
]
train_cfg = dict(max_iters=max_iters)
