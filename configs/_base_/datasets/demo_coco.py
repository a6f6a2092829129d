# The procedural demo data in COCO's layout (tools/make_demo_data.py): 5 classes, images of
# 128x128 / 160x120 / 120x160, padded to 160x160. No scale jitter: the demo trains for minutes,
# not 100 epochs.
dataset_type = 'CheckedCocoDataset'
data_root = 'data/demo/coco/'
metainfo = dict(classes=('person', 'bicycle', 'car', 'chair', 'dining table'))
image_size = (160, 160)
pad = dict(type='FixedSizePad', size=image_size, pad_val=dict(img=(114, 114, 114)))
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles')
train_pipeline = [
    load_image,
    check_files,
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(type='RandomFlip', prob=0.5),
    pad,
    dict(type='PackDetInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=image_size, keep_ratio=True),
    pad,
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape', 'scale_factor'),
    ),
]
train_dataloader = dict(
    batch_size=4,
    num_workers=0,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline,
    ),
)
val_dataloader = dict(
    batch_size=4,
    num_workers=0,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/instances_val2017.json',
        data_prefix=dict(img='val2017/'),
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
# mmdet's CocoMetric scoring against the annotation file the evaluated dataset read (decided
# when the run starts, so a data_root given on the command line reaches the ground truth).
val_evaluator = dict(
    type='DatasetCocoMetric',
    metric=['bbox', 'segm'],
)
test_evaluator = val_evaluator
