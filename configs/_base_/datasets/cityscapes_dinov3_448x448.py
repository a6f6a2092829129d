# Cityscapes with DINOv3's linear-probe choices for a patch-14 backbone: DINOv3 (arXiv
# 2508.10104) evaluates every Table 3 segmentation probe "with input resolution adapted to 1024
# patch tokens", 448x448 for patch size 14: the 512x512 crops and sliding windows of
# cityscapes_dinov3_512x512.py become 448x448. The image scale stays mmseg's (short side 1024,
# as for patch 16), the stride (298: 2/3 of the window, floored, as 341 of 512) is ours.
_base_ = ['./cityscapes_dinov3_512x512.py']
crop_size = (448, 448)
data_preprocessor = dict(_base_.data_preprocessor, size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(298, 298))
train_pipeline = [
    dict(step, crop_size=crop_size) if step['type'] == 'RandomCrop' else step
    for step in _base_.train_pipeline
]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
