# ViTDet's Mask R-CNN recipe on COCO (facebookresearch/detectron2 projects/ViTDet/configs/COCO/
# mask_rcnn_vitdet_{b,l}_100ep.py): SimpleFPN, large-scale jitter 1024, 100 epochs of 64 images,
# mixed precision (see the _base_ files for each value). Leaves set the backbone (windows, global
# blocks, drop path, taps), the neck's in_channels and the layer-wise lr decay.
_base_ = [
    '../models/mask-rcnn_vitdet_simplefpn.py',
    '../datasets/coco_instance_lsj-1024x1024.py',
    '../schedules/schedule_vitdet_lsj-100e.py',
    '../runtime_det.py',
]
