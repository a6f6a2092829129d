# Cityscapes in EoMT's semantic protocol (tue-mps/eomt datasets/cityscapes_semantic.py and
# datasets/transforms.py; windowed test in training/lightning_module.py window_imgs_semantic):
# the ADE20K EoMT pipeline (ade20k_eomt_512x512.py says what each step matches) at 1024 x 1024.
# Upstream maps gtFine labelIds to the 19 train ids with torchvision's Cityscapes table
# (ignore_in_eval classes dropped): the labelTrainIds files mmseg reads hold the same ids. Test:
# short side to 1024 (a 1024 x 2048 image is kept), two 1024 windows along the long side.
_base_ = ['./cityscapes_512x1024.py']
crop_size = (1024, 1024)
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
    dict(type='Resize', scale=(99999999, 1024), keep_ratio=True, backend='pillow'),
    _base_.load_annotations,  # after Resize: the metric compares at the original size
    dict(type='PackSegInputs'),
]
# Upstream's check_empty_targets (datasets/dataset.py; on in every data module, passed to the
# validation set too): samples whose annotation holds a single value are left out of training and
# of the score (vitspec/datasets/empty_targets.py). False scores every image, as mmseg does.
check_empty_targets = True
dataset_type = 'EoMTCityscapesDataset'  # mmseg's dataset with that option
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
