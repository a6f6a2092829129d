# The procedural demo data in ADE20K's native layout (tools/make_demo_data.py). Every file
# is checked (vitspec/datasets/check_sample_files.py), the bad one named.
dataset_type = 'ADE20KDataset'
data_root = 'data/demo/ade20k/ADEChallengeData2016'
crop_size = (128, 128)
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles', num_classes=150, reduce_zero_label=True)
load_annotations = dict(type='LoadAnnotations', reduce_zero_label=True)
train_pipeline = [
    load_image,
    check_files,
    load_annotations,
    dict(type='RandomResize', scale=(128, 128), ratio_range=(0.75, 1.5), keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=(128, 128), keep_ratio=True),
    load_annotations,
    dict(type='PackSegInputs'),
]
tta_pipeline = [  # multi-scale + flip test: tools/test.py --tta
    load_image,
    check_files,
    dict(
        type='TestTimeAug',
        transforms=[
            [dict(type='Resize', scale_factor=r, keep_ratio=True) for r in (0.75, 1.0, 1.25)],
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
    batch_size=4,
    num_workers=0,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_prefix=dict(img_path='images/training', seg_map_path='annotations/training'),
        pipeline=train_pipeline,
    ),
)
val_dataloader = dict(
    batch_size=1,
    num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_prefix=dict(img_path='images/validation', seg_map_path='annotations/validation'),
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='IoUMetric', iou_metrics=['mIoU'])
test_evaluator = val_evaluator
