# ADE20K at 640x640 crops (DINOv2 "+ms": 4 layers, 640, multi-scale test-time augmentation).
_base_ = ['./ade20k_512x512.py']
crop_size = (640, 640)
scale = (2560, 640)
data_preprocessor = dict(size=crop_size)
inference_cfg = dict(crop_size=crop_size, stride=(426, 426))
img_ratios = [1.0, 1.32, 1.73, 2.28, 3.0]  # DINOv2's multi-scale ratios
train_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    _base_.load_annotations,
    dict(type='RandomResize', scale=scale, ratio_range=(0.5, 2.0), keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='Resize', scale=scale, keep_ratio=True),
    _base_.load_annotations,
    dict(type='PackSegInputs'),
]
tta_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='TestTimeAug', transforms=[
        [dict(type='Resize', scale_factor=r, keep_ratio=True) for r in img_ratios],
        [dict(type='RandomFlip', prob=0., direction='horizontal'),
         dict(type='RandomFlip', prob=1., direction='horizontal')],
        [_base_.load_annotations], [dict(type='PackSegInputs')]])
]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
