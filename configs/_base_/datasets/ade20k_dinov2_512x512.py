# ADE20K in DINOv2's linear-probe protocol: the hosted config dinov2_vit*14_ade20k_linear_config.py
# (facebookresearch/dinov2 links it from notebooks/semantic_segmentation.ipynb; read in the
# verbatim dump franchesoni/cheapseg configs/dinov2/original_dinov2_vitb14_ade20k_linear_config.py,
# mmseg 0.x syntax). Train: Resize img_scale=(99999999, 512), ratio_range=(0.5, 2.0) (short side
# 512 x ratio, long side unbounded), RandomCrop 512 cat_max_ratio 0.75, flip 0.5,
# PhotoMetricDistortion, pad 512 (pad_val 0, seg_pad_val 255). Test: short side 512
# (MultiScaleFlipAug img_ratios=1.0, flip=False), slide 512 / stride 341. 8 GPUs x 2 images.
# The inherited tta_pipeline is mmseg's, not part of this protocol (lin. tests at one scale).
_base_ = ['./ade20k_512x512.py']
scale = (99999999, 512)
train_pipeline = [
    _base_.load_image,
    _base_.check_files,
    _base_.load_annotations,
    dict(type='RandomResize', scale=scale, ratio_range=(0.5, 2.0), keep_ratio=True),
    dict(type='RandomCrop', crop_size=_base_.crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    _base_.load_image,
    _base_.check_files,
    dict(type='Resize', scale=scale, keep_ratio=True),
    _base_.load_annotations,
    dict(type='PackSegInputs'),
]
train_dataloader = dict(batch_size=2, dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
