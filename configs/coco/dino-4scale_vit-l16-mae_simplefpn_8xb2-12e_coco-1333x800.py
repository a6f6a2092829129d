# DINO-ViTDet-Large-4scale, ViT-L/16 from MAE ImageNet-1k weights, COCO, 12 epochs: IDEA-Research/
# detrex projects/dino/configs/dino-vitdet/dino_vitdet_large_4scale_12ep.py (projects/dino/
# README.md: box AP 52.9). Field by field in configs/coco/reproductions.yaml; the differences are
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
# dino_vitdet_large_4scale_12ep.py keeps the base's train.max_iter = 90000 and sets
# WarmupParamScheduler(MultiStepParamScheduler(values=[1.0, 0.1], milestones=[300000, 375000]),
# warmup_length=250 / train.max_iter, warmup_factor=0.001). fvcore's MultiStepParamScheduler reads
# its milestones as fractions of num_updates (= the last milestone, 375000) and detectron2 calls it
# with iteration / max_iter: the lr falls x0.1 at 0.8 x 90,000 = 72,000 (not the base's 82,500);
# linear warmup from 0.001 over the first 250 iterations.
warmup_iters = 250
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 250, as detectron2's
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(
        type='MultiStepLR',
        by_epoch=False,
        begin=0,
        end=_base_.max_iters,
        milestones=[72000],
        gamma=0.1,
    ),
]
