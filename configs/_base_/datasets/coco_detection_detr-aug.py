# COCO 2017 boxes with DETR's augmentation, as Plain-DETR trains (impiga/Plain-DETR
# datasets/coco.py make_coco_transforms): flip; then either a random short side of 480-800 (step
# 32, long side at most 1333) or a random short side of 400 / 500 / 600, a random crop of 384-600
# and the same 480-800 resize; test: short side 800, long side at most 1333. mmdet's DETR configs
# write the same pipeline this way (open-mmlab/mmdetection configs/detr/detr_r50_8xb2-150e_coco.py).
# Batch 16 = 16 GPUs x 1 image (impiga/Plain-DETR README.md, "Most of our experiments are
# conducted on 16 GPUs with 1 image per GPU"). Boxes only.
dataset_type = 'CheckedCocoDataset'
data_root = 'data/coco/'
scales = [(s, 1333) for s in range(480, 801, 32)]
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles')
train_pipeline = [
    load_image,
    check_files,
    dict(type='LoadAnnotations', with_bbox=True),
    dict(type='RandomFlip', prob=0.5),
    dict(
        type='RandomChoice',
        transforms=[
            [dict(type='RandomChoiceResize', scales=scales, keep_ratio=True)],
            [
                dict(
                    type='RandomChoiceResize',
                    scales=[(400, 4200), (500, 4200), (600, 4200)],
                    keep_ratio=True,
                ),
                dict(
                    type='RandomCrop',
                    crop_type='absolute_range',
                    crop_size=(384, 600),
                    allow_negative_crop=True,
                ),
                dict(type='RandomChoiceResize', scales=scales, keep_ratio=True),
            ],
        ],
    ),
    dict(type='PackDetInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=(1333, 800), keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape', 'scale_factor'),
    ),
]
train_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    batch_sampler=dict(type='AspectRatioBatchSampler'),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        filter_cfg=dict(filter_empty_gt=False),
        pipeline=train_pipeline,
    ),
)
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='annotations/instances_val2017.json',
        data_prefix=dict(img='val2017/'),
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='DatasetCocoMetric', metric='bbox', format_only=False)
test_evaluator = val_evaluator
