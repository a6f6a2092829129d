# DINOv3's detector (frozen ViT, 4 evenly spaced blocks, DETR encoder, Plain-DETR head; see
# plain-detr_vit-7b16-dinov3_dinov3-detr_16xb1-12e_coco-2048x2048.py) on the distilled DINOv3
# ViT-L/16 at Plain-DETR's COCO recipe: a size one GPU node trains. No published number:
# DINOv3 reports COCO detection for its 7B model only (arXiv 2508.10104 Table 10), so this config
# is no ledger row. Sources: [D3-hub] facebookresearch/dinov3 dinov3/hub/detectors.py; [PD-*] the
# model fragment; [ours]. Model: the fragment's Plain-DETR values (hidden 256, 300 + 1500
# queries) where DINOv3's 7B head has 768 and 1500 + 1500; no windows (DINOv3 cuts 7B inputs in
# 3 x 3 windows and ViT-L+ ones in 2 x 2: at 1333 x 800 a ViT-L sees the whole image, [ours]).
# Data: DETR's augmentation at 800 / 1333 (Plain-DETR). Schedule: Plain-DETR's 12 epochs.
# Weights: python tools/convert_checkpoint.py <DINOv3 ViT-L/16 file> \
#     pretrain/vit-l16_dinov3.pth --format dinov3
_base_ = [
    '../_base_/models/backbones/vit-l16_dinov3.py',
    '../_base_/models/plain-detr_specvit.py',
    '../_base_/datasets/coco_detection_detr-aug.py',
    '../_base_/schedules/schedule_plain-detr_12e.py',
    '../_base_/runtime_det.py',
]
model = dict(
    backbone=dict(
        _base_.backbone,
        frozen_stages=24,  # [D3-hub] train_backbone=False
        out_indices=(5, 11, 17, 23),  # [D3-hub] layers_to_use rule: m * n_blocks // 4 - 1, m = 1..4
    ),
)
# the frozen ViT guarded as every frozen-backbone run (vitspec/engine/hooks/linear_probe.py)
custom_hooks = [*_base_.custom_hooks, dict(type='LinearProbeHook')]
