# Layer specialization vs plain on ViT-L, COCO detection: the specialization summary states "COCO AP
# increases by roughly 2.2 points" (arXiv 2602.08626, whose tables could not be read: detector,
# schedule, numbers "not found" in the ledger). ViTDet's Mask R-CNN recipe (the MAE ViT-L config's:
# windows of 14, global blocks 5, 11, 17, 23, drop path 0.4, layer decay 0.8) is the closest
# published plain-ViT detection protocol; patch 16 as ViTDet's strides need (the paper's patch size:
# not found). Unlike ViTDet, the CLS token and its position slot are kept (without it there is
# nothing to specialize), and LayerScale as DINOv2's ViT-L. The twins
# mask-rcnn_vit-l16-dinov2-{plain,spec}_... differ only in the technique line.
# pretrain/vit-l16_dinov2.pth: a plain ViT-L/16 pretrained with the DINOv2 recipe (none is released
# at patch 16: pretrain your own). Both twins fine-tune it, so the specialized one adds the
# technique at fine-tuning (its CLS weights start as copies of the shared ones), as a fine-tuning
# comparison here must (tools/compare_techniques.py). The paper specializes at pretraining: for its
# setting, point the specialized twin's init_cfg at a checkpoint pretrained with the technique, and
# compare the runs knowing that the checkpoints differ too.
_base_ = [
    '../_base_/models/backbones/vit-l16.py',
    '../_base_/recipes/mask-rcnn_vitdet_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py',
    '../_base_/models/techniques/specialized.py',
]
model = dict(
    backbone=dict(
        dict(_base_.backbone, **_base_.vitdet_backbone, **_base_.technique),
        with_cls_token=True,
        pos_embed_cls=True,
        layer_scale_init=1e-5,
        drop_path_rate=0.4,
        global_attn_indexes=(5, 11, 17, 23),
        out_indices=(23,),
        final_norm=False,
        init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16_dinov2.pth'),
    ),
    neck=dict(in_channels=_base_.backbone['embed_dims']),
)
optim_wrapper = dict(paramwise_cfg=dict(decay_rate=0.8))  # get_vit_lr_decay_rate
