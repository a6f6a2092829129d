# The procedural demo data in COCO panoptic's layout (tools/make_demo_data.py writes it beside
# the instances files): 5 thing and 6 stuff classes, images of 128x128 / 160x120 / 120x160
# resized to a long side of 128. Panoptic quality (PanopticQualityMetric, panopticapi's rules)
# and, for the same scenes' instances file, mask AP (mmdet's CocoMetric).
dataset_type = 'CheckedCocoPanopticDataset'
data_root = 'data/demo/coco/'
thing_classes = ('person', 'bicycle', 'car', 'chair', 'dining table')
stuff_classes = (
    'road',
    'tree-merged',
    'sky-other-merged',
    'floor-other-merged',
    'building-other-merged',
    'wall-other-merged',
)
metainfo = dict(
    classes=thing_classes + stuff_classes,
    thing_classes=thing_classes,
    stuff_classes=stuff_classes,
)
image_size = (128, 128)
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles')
train_pipeline = [
    load_image,
    check_files,
    dict(type='LoadPanopticPNG', with_bbox=True, with_mask=True, with_seg=True),
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PackDetInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(
        type='PackDetInputs',
        meta_keys=(
            'img_id',
            'img_path',
            'ori_shape',
            'img_shape',
            'scale_factor',
            'seg_map_path',
            'segments_info',
        ),
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
        ann_file='annotations/panoptic_train2017.json',
        data_prefix=dict(img='train2017/', seg='annotations/panoptic_train2017/'),
        filter_cfg=dict(filter_empty_gt=False),
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
        ann_file='annotations/panoptic_val2017.json',
        data_prefix=dict(img='val2017/', seg='annotations/panoptic_val2017/'),
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = [
    dict(type='PanopticQualityMetric'),
    dict(
        type='CocoMetric',
        ann_file=data_root + 'annotations/instances_val2017.json',
        metric=['segm'],
    ),
]
test_evaluator = val_evaluator
