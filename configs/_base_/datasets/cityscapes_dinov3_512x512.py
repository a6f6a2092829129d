# Cityscapes with DINOv3's linear-probe choices: DINOv3 publishes no Cityscapes config
# (facebookresearch/dinov3 ships config-ade20k-linear-training.yaml only). Its paper (arXiv
# 2508.10104, Table 3's caption) evaluates segmentation probes "with input resolution adapted to
# 1024 patch tokens", 512x512 for patch size 16: 512x512 crops and sliding windows (stride 341,
# as its ADE20K config). PhotoMetricDistortion's hue as DINOv3's transforms.py (mmseg's
# hue_delta=90, see ade20k_dinov3_512x512.py). The rest is mmseg's Cityscapes pipeline; every
# Cityscapes-specific value is "not found" in the ledger.
_base_ = ['./cityscapes_512x1024.py']
crop_size = (512, 512)
data_preprocessor = dict(_base_.data_preprocessor, size=crop_size)
inference_cfg = dict(mode='slide', crop_size=crop_size, stride=(341, 341))

train_pipeline = [
    dict(step, hue_delta=90)
    if step['type'] == 'PhotoMetricDistortion'
    else dict(step, crop_size=crop_size)
    if step['type'] == 'RandomCrop'
    else step
    for step in _base_.train_pipeline
]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
