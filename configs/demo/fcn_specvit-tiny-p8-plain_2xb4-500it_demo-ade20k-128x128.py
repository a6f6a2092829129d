# Plain vs specialized on the demo data: the two demo configs differ only in the technique line;
# same seed, data order and schedule. Compare with tools/compare_runs.py WORK_DIR WORK_DIR.
_base_ = [
    '../_base_/models/backbones/specvit-tiny-p8.py',
    '../_base_/models/techniques/plain.py',
    '../_base_/models/specvit-tiny-p8_fcn.py',
    '../_base_/datasets/demo_ade20k.py',
    '../_base_/runtime_seg.py',
    '../_base_/schedules/schedule_demo.py',
]
model = dict(backbone=dict(_base_.backbone, **_base_.technique))
randomness = dict(seed=0)
