# ADE20K in DINOv2's "+ms" protocol (arXiv 2304.07193 §7: the last 4 layers, image resolution
# 640, multi-scale test-time augmentation). The hosted dinov2_vit*14_ade20k_ms_config.py could not
# be read verbatim; its values below are read in derivative copies that keep its top-level
# pipelines (two WHU-OHS adaptations in the public code index; zshn25/DINOv2_mmseg
# configs/dinov2_vitb14_ade20k_ms_config.py has the same train ratio_range, at 518):
#   train: Resize img_scale=(99999999, 640), ratio_range=(1.0, 3.0), RandomCrop 640
#          cat_max_ratio 0.75, flip 0.5, PhotoMetricDistortion, pad 640;
#   test:  MultiScaleFlipAug img_scale=(99999999, 640), img_ratios=[1.0, 1.32, 1.73, 2.28, 3.0],
#          flip=True (DINOv2's notebook trims exactly this list: cfg.data.test.pipeline[1]).
# mmseg 0.x scales each TTA ratio against img_scale (short side 640 * r); mmseg 1.x's
# Resize(scale_factor=r) would scale the original image instead, so each scale is written out.
# The sliding-window stride is not found: 426 keeps the linear config's stride/crop of 2/3.
# The published test is always the multi-scale one: the +ms leaves set test_with_tta = True.
_base_ = ['./ade20k_512x512.py']
crop_size = (640, 640)
scale = (99999999, 640)
data_preprocessor = dict(size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(426, 426))
img_ratios = [1.0, 1.32, 1.73, 2.28, 3.0]
train_pipeline = [
    _base_.load_image,
    _base_.check_files,
    _base_.load_annotations,
    dict(type='RandomResize', scale=scale, ratio_range=(1.0, 3.0), keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
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
tta_pipeline = [
    _base_.load_image,
    _base_.check_files,
    dict(
        type='TestTimeAug',
        transforms=[
            [
                dict(type='Resize', scale=(int(scale[0] * r), int(scale[1] * r)), keep_ratio=True)
                for r in img_ratios
            ],
            [
                dict(type='RandomFlip', prob=0.0, direction='horizontal'),
                dict(type='RandomFlip', prob=1.0, direction='horizontal'),
            ],
            [_base_.load_annotations],
            [dict(type='PackSegInputs')],
        ],
    ),
]
train_dataloader = dict(batch_size=2, dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
