# Pascal VOC 2012 (SBD augmented train set) in DINOv2's "+ms" protocol (arXiv 2304.07193 §7: the
# last 4 layers, image resolution 640, multi-scale test-time augmentation). The hosted
# dinov2_vit*14_voc2012_ms_config.py is read only in part, in a dump the public code index holds
# without its repository (data_root '/checkpoint/dino/datasets/VOC2012'): crop 640, train
# Resize img_scale=(99999999, 640), ratio_range=(1.0, 3.0), RandomCrop 640 cat_max_ratio 0.75,
# flip 0.5, PhotoMetricDistortion, ImageNet mean / std, pad 640. Its test scales were not read:
# the test side 640 and the ratios are those of DINOv2's ADE20K +ms config (DINOv2's notebook
# trims cfg.data.test.pipeline[1]['img_ratios'] of the ADE20K and VOC ms heads alike), each
# written out as a scale (mmseg 0.x scales each ratio against img_scale). The sliding-window
# stride is not found: 426 keeps the linear config's stride/crop of 2/3.
_base_ = ['./voc12aug_512x512.py']
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
train_dataloader = dict(
    dataset=dict(
        datasets=[
            dict(_base_.dataset_train, pipeline=train_pipeline),
            dict(_base_.dataset_aug, pipeline=train_pipeline),
        ]
    ),
)
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
