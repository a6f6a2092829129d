# mmsegmentation's MAE ViT-B UPerNet recipe on ADE20K 512x512 (open-mmlab/mmsegmentation v1.2.2
# configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py with _base_/models/upernet_mae.py
# and _base_/datasets/ade20k.py): Feature2Pyramid, UPerHead at the backbone width, auxiliary FCN
# on the third tap; AdamW 1e-4, wd 0.05, layer decay 0.65, warmup 1500, poly, 160k iterations of
# 8 GPUs x 2 images, mixed precision; slide 512 / 341 test (see the _base_ files for each value).
# Leaves set the backbone (taps, final norm, drop path) and the widths of neck and heads.
_base_ = [
    '../models/upernet_f2p.py',
    '../datasets/ade20k_512x512.py',
    '../schedules/schedule_layer_decay_160k.py',
    '../runtime_seg.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    auxiliary_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
