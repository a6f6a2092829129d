# EoMT's 2x COCO panoptic schedule at 640 x 640 for the smaller DINOv2 ViTs (tue-mps/eomt
# configs/dinov2/coco/panoptic/eomt_small_640_2x.yaml and eomt_base_640_2x.yaml, alike but for
# the backbone): the ViT-L recipe with queries in the last 3 blocks, 24 epochs, the 3 blocks'
# masks annealed at upstream's steps. Leaves set the backbone's size and weights.
_base_ = ['./eomt_vit-l16-dinov2-reg4_4xb4-89k_coco-panoptic-640x640.py']
model = dict(num_blocks=3)
# 24 epochs of 7,391 batches (schedule_eomt_89k.py), warm-up then poly 0.9 to 0
max_iters = 24 * _base_.batches_per_epoch
param_scheduler = [
    _base_.param_scheduler[0],
    dict(_base_.param_scheduler[1], end=max_iters),
]
train_cfg = dict(max_iters=max_iters)
custom_hooks = [
    *_base_.custom_hooks[:-1],
    dict(
        type='MaskAnnealingHook',
        start_iters=[29564, 73910, 118256],
        end_iters=[59128, 103474, 147820],
        power=_base_.poly_power,
    ),
]
