# ADE20K in EoMT's semantic protocol (tue-mps/eomt datasets/ade20k_semantic.py and
# datasets/transforms.py; windowed test in training/lightning_module.py window_imgs_semantic).
# Train, in upstream's order: colour jitter, flip 0.5, scale jitter (the image fitted into
# 512 x 512, times 0.5-2.0: mmcv's keep_ratio resize to (512, 512) x ratio is the same rule),
# pad the 0-255 image with 0 at the bottom / right (labels: ignored), random 512 crop. Pillow
# resizes as torchvision's antialiased resize and upstream's PIL test resize do. Our crop is
# drawn before the pad, which places it the same way. Test: short side to 512, 512 windows along
# the long side (slide, stride 512: upstream's windows wherever an image needs at most two),
# the class scores averaged and resized back to the image. Label 0 ("other") is ignored, 1-150
# become 0-149 (upstream's CLASS_MAPPING). What differs from upstream: docs/mask_classification.md.
_base_ = ['./ade20k_512x512.py']
crop_size = (512, 512)
data_preprocessor = dict(_base_.data_preprocessor, size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=crop_size)
train_pipeline = [
    _base_.load_image,
    _base_.check_files,
    _base_.load_annotations,
    dict(
        type='PhotoMetricDistortion',
        brightness_delta=32,
        contrast_range=(0.5, 1.5),
        saturation_range=(0.5, 1.5),
        hue_delta=9,  # of OpenCV's 180: upstream's 18 of 360
    ),
    dict(type='RandomFlip', prob=0.5),
    dict(
        type='RandomResize',
        scale=crop_size,
        ratio_range=(0.5, 2.0),
        keep_ratio=True,
        backend='pillow',
    ),
    dict(type='RandomCrop', crop_size=crop_size, cat_max_ratio=1.0),
    dict(type='Pad', size=crop_size, pad_val=dict(img=0, seg=255)),
    dict(type='PackSegInputs'),
]
test_pipeline = [
    _base_.load_image,
    _base_.check_files,
    dict(type='Resize', scale=(99999999, 512), keep_ratio=True, backend='pillow'),
    _base_.load_annotations,  # after Resize: the metric compares at the original size
    dict(type='PackSegInputs'),
]
# Upstream's check_empty_targets (datasets/dataset.py; on in every data module, passed to the
# validation set too): samples whose annotation holds a single value are left out of training and
# of the score (vitspec/datasets/empty_targets.py). False scores every image, as mmseg does.
check_empty_targets = True
dataset_type = 'EoMTADE20KDataset'  # mmseg's dataset with that option
train_dataloader = dict(
    batch_size=4,
    dataset=dict(
        type=dataset_type, check_empty_targets=check_empty_targets, pipeline=train_pipeline
    ),
)
val_dataloader = dict(
    dataset=dict(type=dataset_type, check_empty_targets=check_empty_targets, pipeline=test_pipeline)
)
test_dataloader = val_dataloader
