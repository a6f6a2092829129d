# Plain vs specialized on the demo data: the two demo configs differ only in the technique line;
# same seed, data order and schedule. Compare with tools/compare_runs.py WORK_DIR WORK_DIR.
_base_ = [
    './fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py',
    '../_base_/models/backbones/specvit-tiny-p8.py',
    '../_base_/models/techniques/plain.py',
]
model = dict(backbone=dict(_base_.backbone, **_base_.technique))
