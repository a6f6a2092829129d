# The procedural demo data in Pascal VOC 2012's layout with the SBD augmented set
# (tools/make_demo_data.py --datasets voc): mmseg's voc12aug (train.txt + aug.txt) at 128 pixels,
# with every file checked (vitspec/datasets/check_sample_files.py).
_base_ = ['mmseg::_base_/datasets/pascal_voc12_aug.py']
data_root = 'data/demo/voc/VOCdevkit/VOC2012'
num_classes = 21
crop_size = (128, 128)
scale = (2048, 128)
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
    dict(type='RandomResize', scale=scale, ratio_range=(0.75, 1.5), keep_ratio=True),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=0.75),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion'),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=scale, keep_ratio=True),
    load_annotations,
    dict(type='PackSegInputs'),
]
tta_pipeline = None  # mmseg's loads without the checks; the demo tests at one scale
train_dataloader = dict(
    batch_size=4,
    num_workers=0,
    persistent_workers=False,
    dataset=dict(
        datasets=[
            dict(_base_.dataset_train, data_root=data_root, pipeline=train_pipeline),
            dict(_base_.dataset_aug, data_root=data_root, pipeline=train_pipeline),
        ]
    ),
)
val_dataloader = dict(
    num_workers=0,
    persistent_workers=False,
    dataset=dict(data_root=data_root, pipeline=test_pipeline),
)
test_dataloader = val_dataloader
