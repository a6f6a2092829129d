# The demo segmentation job on the procedural Pascal VOC-layout data (VOC 2012 + SBD aug set,
# 21 classes): tools/dist_train.sh <this config> 2. Reproduces nothing; shows the VOC loaders,
# the ConcatDataset of train.txt and aug.txt and the 255 borders at work.
_base_ = [
    '../_base_/models/specvit-tiny-p8_fcn.py',
    '../_base_/datasets/demo_voc.py',
    '../_base_/runtime_seg.py',
    '../_base_/schedules/schedule_demo.py',
]
model = dict(decode_head=dict(num_classes=_base_.num_classes))
randomness = dict(seed=0)
