# DINO-ViTDet-Base-4scale, ViT-B/16 from MAE ImageNet-1k weights, COCO, 50 epochs: IDEA-Research/
# detrex projects/dino/configs/dino-vitdet/dino_vitdet_base_4scale_50ep.py (projects/dino/
# README.md: box AP 55.0). Field by field in configs/coco/reproductions.yaml; the differences are
# in configs/coco/README.md. Weights:
#   python tools/convert_checkpoint.py mae_pretrain_vit_base.pth \
#       pretrain/vit-b16_mae.pth --format mae
# The ViT-B 12-epoch config with the 50-epoch schedule.
_base_ = ['./dino-4scale_vit-b16-mae_simplefpn_8xb2-12e_coco-1333x800.py']
# dino_vitdet_base_4scale_50ep.py: train.max_iter = 375000, coco_schedule.py lr_multiplier_50ep =
# default_coco_scheduler(50, 40, 0): x0.1 after 40 x 7500 = 300,000 iterations, no warmup
max_iters = 375000
param_scheduler = [
    dict(type='MultiStepLR', by_epoch=False, begin=0, end=max_iters, milestones=[300000], gamma=0.1)
]
train_cfg = dict(max_iters=max_iters)
