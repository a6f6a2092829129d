# EoMT on the demo data: the demo FCN's backbone, data and schedule with EoMT's queries and
# mask module (configs/_base_/models/specvit-tiny-p8_eomt.py). The attention masks of the 2
# query blocks fade out one after another as upstream's do (tue-mps/eomt's ADE20K config: block i
# from (i + 1) P to (i + 2) P, P about a sixth of training).
_base_ = [
    '../_base_/models/specvit-tiny-p8_eomt.py',
    '../_base_/datasets/demo_ade20k.py',
    '../_base_/runtime_seg.py',
    '../_base_/schedules/schedule_demo.py',
]
mask_annealing_period = _base_.max_iters // 6
custom_hooks = [
    *_base_.custom_hooks,
    dict(
        type='MaskAnnealingHook',
        start_iters=[mask_annealing_period, 2 * mask_annealing_period],
        end_iters=[2 * mask_annealing_period, 3 * mask_annealing_period],
        power=0.9,
    ),
]
randomness = dict(seed=0)
