# ADE20K as DINOv3 evaluates its Mask2Former segmentor (facebookresearch/dinov3
# dinov3/eval/segmentation/configs/config-ade20k-m2f-inference.yaml, run by eval.py with
# transforms.py): test short side 896 (FixedSideResize of eval.crop_size), sliding window 896 /
# stride 596, labels reduced by one, ImageNet mean / std. TTA (use_tta True there, the published
# 63.0 setting): short sides 896 x [0.9, 0.95, 1.0, 1.05, 1.1], those below 1 rounded up to a
# multiple of 32 (832, 864, 896, 940, 985), each also flipped, softmax scores averaged (mmseg's
# SegTTAModel averages softmaxes too); tools/test.py --tta runs it.
# Training at 896 (arXiv 2508.10104 D.10); its augmentations are not published (train.py: "Only
# linear head is supported for training"): DINOv3's linear ADE20K pipeline at 896 (short side
# 896 x U(0.5, 2.0), 896x896 crops), ours.
_base_ = ['./ade20k_dinov3_512x512.py']
crop_size = (896, 896)
scale = (99999999, 896)
data_preprocessor = dict(_base_.data_preprocessor, size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(596, 596))
tta_short_sides = [832, 864, 896, 940, 985]
train_pipeline = [
    dict(step, scale=scale)
    if step['type'] == 'RandomResize'
    else dict(step, crop_size=crop_size)
    if step['type'] == 'RandomCrop'
    else step
    for step in _base_.train_pipeline
]
test_pipeline = [
    dict(step, scale=scale) if step['type'] == 'Resize' else step for step in _base_.test_pipeline
]
tta_pipeline = [
    _base_.load_image,
    _base_.check_files,
    dict(
        type='TestTimeAug',
        transforms=[
            [
                dict(type='Resize', scale=(99999999, side), keep_ratio=True)
                for side in tta_short_sides
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
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = val_dataloader
