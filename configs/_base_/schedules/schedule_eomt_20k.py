# EoMT's optimization (schedule_eomt_39k.py says where each value comes from) over Cityscapes'
# 107 epochs of 16 images (tue-mps/eomt configs/dinov2/cityscapes/semantic/eomt_large_1024.yaml):
# 19,902 iterations, the same warm-up to 1500, then poly 0.9 to 0. Upstream trains on 4 GPUs x 4
# with Lightning's DistributedSampler, which pads the 2,975 training images to 2,976: 744 per GPU,
# 186 batches of 4 per epoch (the DataLoader's drop_last drops none); its annealing step 3,317 is
# exactly 19,902 / 6.
_base_ = ['./schedule_eomt_39k.py']
max_iters = 19902  # 107 epochs x 186 batches (ceil(2975 / 4) = 744 images per GPU, 4 per batch)
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=_base_.warmup_iters + 1),
    dict(
        type='PolyLR',
        power=_base_.poly_power,
        eta_min=0.0,
        by_epoch=False,
        begin=_base_.warmup_iters,
        end=max_iters,
    ),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=2000)
