# COCO 2017 instances with ViTDet's large-scale jitter (facebookresearch/detectron2
# projects/ViTDet/configs/common/coco_loader_lsj.py): flip first, resize by 0.1-2.0 of 1024 keeping
# the aspect ratio (ResizeScale), random 1024x1024 crop without padding (FixedSizeCrop, pad=False)
# with boxes recomputed from the masks; test: the long side to 1024 (ResizeShortestEdge(1024,
# max_size=1024)). No padding here: ViTDet pads every image, train and test, to 1024x1024 with 0
# after normalisation (SimpleFeaturePyramid square_pad=1024), which the leaf configs do with
# data_preprocessor pad_size_divisor=1024. Batch 64 = 16 GPUs x 4 (coco_loader_lsj.py).
dataset_type = 'CheckedCocoDataset'
data_root = 'data/coco/'
image_size = (1024, 1024)
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
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandomResize', scale=image_size, ratio_range=(0.1, 2.0), keep_ratio=True),
    dict(
        type='RandomCrop',
        crop_type='absolute_range',
        crop_size=image_size,
        recompute_bbox=True,
        allow_negative_crop=True,
    ),
    # detectron2's DatasetMapper: utils.filter_empty_instances, box_threshold=1e-5
    dict(type='FilterAnnotations', min_gt_bbox_wh=(1e-5, 1e-5)),
    dict(type='PackDetInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape', 'scale_factor'),
    ),
]
train_dataloader = dict(
    batch_size=4,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        # detectron2 drops training images without annotations (filter_empty=True)
        filter_cfg=dict(filter_empty_gt=True),
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
# mmdet's CocoMetric scoring against the annotation file the evaluated dataset read (decided
# when the run starts, so a data_root given on the command line reaches the ground truth).
val_evaluator = dict(
    type='DatasetCocoMetric',
    metric=['bbox', 'segm'],
    format_only=False,
)
test_evaluator = val_evaluator
