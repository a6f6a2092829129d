# DINO-ViTDet-Large-4scale, ViT-L/16 from MAE ImageNet-1k weights, COCO, 50 epochs: IDEA-Research/
# detrex projects/dino/configs/dino-vitdet/dino_vitdet_large_4scale_50ep.py (projects/dino/
# README.md: box AP 57.5). Field by field in configs/coco/reproductions.yaml; the differences are
# in configs/coco/README.md. Weights:
#   python tools/convert_checkpoint.py mae_pretrain_vit_large.pth \
#       pretrain/vit-l16_mae.pth --format mae
_base_ = [
    '../_base_/models/backbones/vit-l16_mae.py',
    '../_base_/recipes/dino-4scale_vitdet_simplefpn_8xb2-12e_coco-1333x800.py',
]
model = dict(
    # dino_vitdet_large_4scale_12ep.py: embed_dim 1024, depth 24, num_heads 16, drop_path_rate
    # 0.4, window_block_indexes all but "5, 11, 17, 23 for global attention"
    backbone=dict(
        _base_.backbone,
        **_base_.vitdet_backbone,
        drop_path_rate=0.4,
        global_attn_indexes=(5, 11, 17, 23),
        out_indices=(23,),
    ),
    neck=dict(
        necks=[
            dict(_base_.simple_fpn, in_channels=_base_.backbone['embed_dims']),
            _base_.channel_mapper,
        ]
    ),
)
# dino_vitdet_large_4scale_50ep.py: train.max_iter = 375000 and WarmupParamScheduler(
# MultiStepParamScheduler(values=[1.0, 0.1], milestones=[300000, 375000]), warmup_length=250 /
# train.max_iter, warmup_factor=0.001): linear warmup from 0.001 over 250 iterations, x0.1 at
# 300,000
max_iters = 375000
warmup_iters = 250
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 250, as detectron2's
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='MultiStepLR',
        by_epoch=False,
        begin=0,
        end=max_iters,
        milestones=[300000],
        gamma=0.1,
    ),
]
train_cfg = dict(max_iters=max_iters)
