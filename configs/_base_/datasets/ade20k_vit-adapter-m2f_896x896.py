# ADE20K as ViT-Adapter trains Mask2Former on it at 896 (czczup/ViT-Adapter
# segmentation/configs/ade20k/mask2former_beit_adapter_large_896_80k_ade20k_ss.py): scale
# (3584, 896) with ratio 0.5-2.0, 896x896 crops (cat_max_ratio 0.75), flip, photometric
# distortion, padding to the crop; single-scale test at (3584, 896) keeping the ratio, sliding
# windows of 896 with stride 512 (its ResizeToMultiple(32) is left out: the windows cover any
# size); 1 image per GPU. Other values as ade20k_512x512.py.
_base_ = ['./ade20k_512x512.py']
crop_size = (896, 896)
scale = (3584, 896)
data_preprocessor = dict(size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(512, 512))
load_annotations = _base_.load_annotations
train_pipeline = [
    _base_.load_image,
    _base_.check_files,
    load_annotations,
    dict(type='RandomResize', scale=scale, ratio_range=(0.5, 2.0), keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    _base_.load_image,
    _base_.check_files,
    dict(type='Resize', scale=scale, keep_ratio=True),
    load_annotations,
    dict(type='PackSegInputs'),
]
train_dataloader = dict(batch_size=1, dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
