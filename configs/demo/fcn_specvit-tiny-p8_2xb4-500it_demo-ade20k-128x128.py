# The main demo job: tools/dist_train.sh <this config> 2 on the procedural ADE20K-layout data.
_base_ = [
    '../_base_/models/specvit-tiny-p8_fcn.py',
    '../_base_/datasets/demo_ade20k.py',
    '../_base_/runtime_seg.py',
    '../_base_/schedules/schedule_demo.py',
]
randomness = dict(seed=0)
