# ViTDet's Mask R-CNN recipe on COCO (facebookresearch/detectron2 projects/ViTDet/configs/COCO/
# mask_rcnn_vitdet_{b,l}_100ep.py): SimpleFPN, large-scale jitter 1024, 100 epochs of 64 images,
# mixed precision (see the _base_ files for each value). Leaves set the backbone (windows, global
# blocks, drop path, taps), the neck's in_channels and the layer-wise lr decay.
# The model (detectron2 configs/common/models/mask_rcnn_vitdet.py, detectron2/modeling/backbone/
# vit.py): the SimpleFPN Mask R-CNN of mask-rcnn_specvit_simplefpn.py with ViTDet's backbone
# options. Leaves add a MAE backbone fragment (vit-{b,l}16_mae.py) and the per-size settings:
# dict(_base_.backbone, **_base_.vitdet_backbone, drop_path_rate=..., global_attn_indexes=...,
# out_indices=(last block, )).
_base_ = [
    '../models/mask-rcnn_specvit_simplefpn.py',
    '../datasets/coco_instance_lsj-1024x1024.py',
    '../schedules/schedule_vitdet_lsj-100e.py',
    '../runtime_det.py',
]
model = dict(
    # SimpleFeaturePyramid square_pad=1024: every image, train and test, padded to 1024x1024 with
    # 0 after normalisation (the mean colour), at the bottom / right
    data_preprocessor=dict(pad_size_divisor=1024)
)
vitdet_backbone = dict(
    img_size=1024,  # ViT(img_size=1024): the global blocks' relative position grid
    pretrain_img_size=224,  # ViT default: pos_embed kept at the 14x14 pretraining grid ...
    pos_embed_interp='vitdet',  # ... and resampled to the input grid each forward (get_abs_pos)
    with_cls_token=False,  # no CLS token; the checkpoint's CLS slot is dropped
    pos_embed_cls=False,  # (ViT default pretrain_use_cls_token=True)
    rel_pos_bias='decomposed',  # use_rel_pos=True, rel_pos_zero_init=True (ViT default)
    window_size=14,
    window_padding='zeros',  # window_partition pads the normed tokens with zeros
    final_norm=False,
)  # ViTDet's ViT has no final norm
