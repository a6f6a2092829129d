# ADE20K in DINOv3's linear-probe protocol (facebookresearch/dinov3
# dinov3/eval/segmentation/configs/config-ade20k-linear-training.yaml, built by
# dinov3/eval/segmentation/transforms.py): train short side 512 x U(0.5, 2.0), labels reduced by
# one (0 ignored), random 512x512 crop (cat_max_ratio 0.75), flip 0.5, PhotoMetricDistortion,
# ImageNet mean / std, pad to 512 (image 0 after normalisation, label 255); test short side 512,
# sliding window 512 / stride 341 (the model's test_cfg), no TTA. The steps of DINOv2's fragment
# (ade20k_dinov2_512x512.py: short side 512, long side unbounded) but for PhotoMetricDistortion:
# DINOv3's shifts the hue by U(-0.5, 0.5) of the circle (torchvision adjust_hue), which is mmseg's
# hue_delta=90 (of 180).
_base_ = ['./ade20k_512x512.py']
scale = (99999999, 512)
test_pipeline = [
    dict(step, scale=scale) if step['type'] == 'Resize' else step for step in _base_.test_pipeline
]
train_pipeline = [
    dict(step, hue_delta=90)
    if step['type'] == 'PhotoMetricDistortion'
    else dict(step, scale=scale)
    if step['type'] == 'RandomResize'
    else step
    for step in _base_.train_pipeline
]
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
