# DINO-ViTDet-Large-4scale, ViT-L/16 from MAE ImageNet-1k weights, COCO, 50 epochs: IDEA-Research/
# detrex projects/dino/configs/dino-vitdet/dino_vitdet_large_4scale_50ep.py (projects/dino/
# README.md: box AP 57.5). Field by field in configs/coco/reproductions.yaml; the differences are
# in configs/coco/README.md. Weights:
#   python tools/convert_checkpoint.py mae_pretrain_vit_large.pth \
#       pretrain/vit-l16_mae.pth --format mae
# The ViT-L 12-epoch config with the 50-epoch schedule.
_base_ = ['./dino-4scale_vit-l16-mae_simplefpn_8xb2-12e_coco-1333x800.py']
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
