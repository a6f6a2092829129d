# ADE20K in DINOv3's linear-probe protocol for a patch-14 backbone: DINOv3 (arXiv 2508.10104)
# evaluates every Table 3 segmentation probe "with input resolution adapted to 1024 patch tokens",
# 448x448 for patch size 14 where its published config (ade20k_dinov3_512x512.py) has 512 for
# patch 16. That config has one resolution (train img_size = crop_size = 512; its eval.py resizes
# the short side to the window size), so every 512 becomes 448: short side 448 x U(0.5, 2.0),
# 448x448 crops, test short side 448, sliding window 448. The stride (298: 2/3 of the window,
# floored, as 341 of 512) is ours: not published.
_base_ = ['./ade20k_dinov3_512x512.py']
crop_size = (448, 448)
scale = (99999999, 448)
data_preprocessor = dict(_base_.data_preprocessor, size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(298, 298))
train_pipeline = [
    dict(step, scale=scale)
    if step['type'] == 'RandomResize'
    else dict(step, crop_size=crop_size)
    if step['type'] == 'RandomCrop'
    else step
    for step in _base_.train_pipeline
]
test_pipeline = [
    dict(step, scale=scale) if step['type'] == 'Resize' else step for step in _base_.test_pipeline
]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
