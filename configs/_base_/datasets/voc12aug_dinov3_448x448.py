# Pascal VOC 2012 (SBD augmented train set) in DINOv3's linear-probe choices for a patch-14
# backbone: DINOv3 (arXiv 2508.10104) evaluates every Table 3 segmentation probe "with input
# resolution adapted to 1024 patch tokens", 448x448 for patch size 14. The transforms of
# voc12aug_dinov3_512x512.py (its PhotoMetricDistortion hue, read there) at one resolution, 448
# where that file has 512 (short side, crop and window, as DINOv3's ADE20K config). It inherits
# voc12aug_512x512.py, not the 512 DINOv3 file, to keep the configs that use it within 4 levels
# of _base_. The stride (298: 2/3 of the window, floored, as 341 of 512) is ours.
_base_ = ['./voc12aug_512x512.py']
crop_size = (448, 448)
scale = (2048, 448)
data_preprocessor = dict(_base_.data_preprocessor, size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(298, 298))
train_pipeline = [
    dict(step, scale=scale)
    if step['type'] == 'RandomResize'
    else dict(step, crop_size=crop_size)
    if step['type'] == 'RandomCrop'
    else dict(step, hue_delta=90)
    if step['type'] == 'PhotoMetricDistortion'
    else step
    for step in _base_.train_pipeline
]
test_pipeline = [
    dict(step, scale=scale) if step['type'] == 'Resize' else step for step in _base_.test_pipeline
]
train_dataloader = dict(
    dataset=dict(
        datasets=[
            dict(_base_.dataset_train, pipeline=train_pipeline),
            dict(_base_.dataset_aug, pipeline=train_pipeline),
        ]
    ),
)
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
