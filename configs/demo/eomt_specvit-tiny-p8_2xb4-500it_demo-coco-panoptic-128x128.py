# EoMT panoptic on the demo COCO panoptic data: the demo EoMT's backbone and schedule, 5 thing
# and 6 stuff classes; panoptic quality and mask AP (instances of the same scenes) at the end.
# The attention masks of the 2 query blocks fade out one after another as in the ADE20K demo.
_base_ = [
    '../_base_/models/specvit-tiny-p8_eomt-panoptic.py',
    '../_base_/datasets/demo_coco_panoptic.py',
    '../_base_/runtime_det.py',
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
default_hooks = dict(visualization=dict(_delete_=True, type='StoredOrderDetVisualizationHook'))
# EoMT's queries and mask module read the final norm, so every parameter gets a gradient
find_unused_parameters = False
randomness = dict(seed=0)
