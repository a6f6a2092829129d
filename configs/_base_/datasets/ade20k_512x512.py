# ADE20K as mmsegmentation ships it (open-mmlab/mmsegmentation v1.2.2
# configs/_base_/datasets/ade20k.py): 150 classes, label 0 ("other") ignored, short side 512 with
# the long side capped at 2048, random scale 0.5-2.0, 512x512 crops; sliding-window test 512,
# stride 341 (configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py). Every file is
# checked once (vitspec/datasets/check_sample_files.py). Leaves pass data_preprocessor,
# num_classes and inference_cfg (the segmentor's test_cfg) into the model; batch size 2 per GPU as
# the MAE config.
dataset_type = 'ADE20KDataset'
data_root = 'data/ade/ADEChallengeData2016'
num_classes = 150
crop_size = (512, 512)
scale = (2048, 512)
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255,
    size=crop_size,
)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(341, 341))
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles', num_classes=num_classes, reduce_zero_label=True)
load_annotations = dict(type='LoadAnnotations', reduce_zero_label=True)
train_pipeline = [
    load_image,
    check_files,
    load_annotations,
    dict(type='RandomResize', scale=scale, ratio_range=(0.5, 2.0), keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
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
img_ratios = [0.5, 0.75, 1.0, 1.25, 1.5, 1.75]  # mmseg's ade20k.py (tools/test.py --tta)
tta_pipeline = [
    load_image,
    check_files,
    dict(
        type='TestTimeAug',
        transforms=[
            [dict(type='Resize', scale_factor=r, keep_ratio=True) for r in img_ratios],
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
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        pipeline=train_pipeline,
        data_prefix=dict(img_path='images/training', seg_map_path='annotations/training'),
    ),
)
val_dataloader = dict(
    batch_size=1,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        pipeline=test_pipeline,
        data_prefix=dict(img_path='images/validation', seg_map_path='annotations/validation'),
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='IoUMetric', iou_metrics=['mIoU'])
test_evaluator = val_evaluator
