# Pascal VOC 2012 with the SBD augmented train set, as mmsegmentation ships it (inherited from
# mmseg's configs/_base_/datasets/pascal_voc12_aug.py, open-mmlab/mmsegmentation v1.2.2): train
# on ImageSets/Segmentation/train.txt (SegmentationClass) + aug.txt (SegmentationClassAug, made
# by mmseg's tools/dataset_converters/voc_aug.py), 10582 images; test on val.txt (1449).
# 21 classes (background included), 255 (object borders, difficult regions) ignored; short side
# 512 with the long side capped at 2048, random scale 0.5-2.0, 512x512 crops; multi-scale test
# ratios 0.5-1.75 + flip. Here: every file is checked (vitspec/datasets/check_sample_files.py),
# padding to the crop is the data preprocessor's, and the sliding window (512, stride 341) is
# the one of DINOv2's linear VOC config (see configs/voc/reproductions.yaml).
_base_ = ['mmseg::_base_/datasets/pascal_voc12_aug.py']
num_classes = 21
scale = (2048, 512)
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255,
    size=_base_.crop_size,
)
inference_cfg = dict(mode='slide', crop_size=_base_.crop_size, stride=(341, 341))
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles', num_classes=num_classes, reduce_zero_label=False)
load_annotations = dict(type='LoadAnnotations', reduce_zero_label=False)
train_pipeline = [
    load_image,
    check_files,
    load_annotations,
    dict(type='RandomResize', scale=scale, ratio_range=(0.5, 2.0), keep_ratio=True),
    dict(type='RandomCrop', crop_size=_base_.crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=scale, keep_ratio=True),
    load_annotations,  # after Resize: the metric compares at the original size
    dict(type='PackSegInputs'),
]
tta_pipeline = [
    load_image,
    check_files,
    dict(
        type='TestTimeAug',
        transforms=[
            [dict(type='Resize', scale_factor=r, keep_ratio=True) for r in _base_.img_ratios],
            [
                dict(type='RandomFlip', prob=0.0, direction='horizontal'),
                dict(type='RandomFlip', prob=1.0, direction='horizontal'),
            ],
            [load_annotations],
            [dict(type='PackSegInputs')],
        ],
    ),
]
train_dataloader = dict(
    batch_size=2,
    dataset=dict(
        datasets=[
            dict(_base_.dataset_train, pipeline=train_pipeline),
            dict(_base_.dataset_aug, pipeline=train_pipeline),
        ]
    ),
)
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
