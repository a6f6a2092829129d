# Plain-DETR (Lin et al., "DETR Doesn't Need Multi-Scale or Locality Design", ICCV 2023) on a
# SpecViT, in DINOv3's form (facebookresearch/dinov3 dinov3/eval/detection, hub/detectors.py):
# the frozen ViT's maps of several blocks concatenated, a DETR encoder kept outside the backbone,
# two-stage proposals at 4 strides, the BoxRPB decoder with reparameterized boxes, hybrid
# matching. Leaves fill in the backbone (a SpecViT fragment: its out_indices are the blocks taken).
# Where each value comes from:
#   [PD-cfg]  impiga/Plain-DETR configs/swinv2_small_mim_pt_boxrpe_reparam.sh (its best recipe)
#   [PD-main] impiga/Plain-DETR main.py argument defaults (what the .sh leaves unset)
#   [PD-code] impiga/Plain-DETR models/transformer.py (hard-coded values)
#   [D3-hub]  facebookresearch/dinov3 dinov3/hub/detectors.py (_make_dinov3_detector) and
#             dinov3/eval/detection/models/transformer.py (arguments it does not pass)
#   [ours]    no source sets it
model = dict(
    type='PlainDETR',
    data_preprocessor=dict(
        type='DetDataPreprocessor',
        # [PD-code] datasets/coco.py Normalize: ImageNet mean / std of RGB in [0, 1]
        mean=[123.675, 116.28, 103.53],
        std=[58.395, 57.12, 57.375],
        bgr_to_rgb=True,
        # [ours] batches pad to a multiple of the patch size (the source's ViT cuts off the
        # rest; Plain-DETR pads to the batch's largest image only)
        pad_size_divisor=16,
    ),
    backbone=dict(type='SpecViT'),
    num_windows=0,  # [D3-hub] n_windows_sqrt 3 (ViT-7B) / 2 (ViT-L+); none here: [ours]
    feature_norm=False,  # [D3-hub] backbone_use_layernorm=False
    class_columns=None,
    head=dict(
        num_classes=80,
        dims=256,  # [PD-main] hidden_dim 256 (DINOv3's 7B head: 768)
        num_heads=8,  # [PD-main] nheads; [D3-hub] nheads=8
        ffn_dims=2048,  # [PD-main] dim_feedforward; [D3-hub] 2048
        dropout=0.0,  # [PD-cfg] --dropout 0.0; [D3-hub] 0.0
        pre_norm=True,  # [PD-cfg] --norm_type pre_norm; [D3-hub] pre_norm
        num_decoder_layers=6,  # [PD-main] dec_layers; [D3-hub] 6
        # [D3-hub] add_transformer_encoder=True, num_encoder_layers=6 (Plain-DETR fine-tunes its
        # backbone and has no encoder; DINOv3 keeps the ViT frozen and adds DETR's encoder)
        num_encoder_layers=6,
        encoder_ffn_dims=2048,  # [D3-hub] transformer.py's default: dim_feedforward not passed
        encoder_dropout=0.1,  # [D3-hub] transformer.py's default: dropout not passed
        num_queries=300,  # [PD-cfg] --num_queries_one2one 300 (DINOv3: 1500)
        num_queries_one2many=1500,  # [PD-cfg]; [D3-hub] 1500
        rpb_hidden=512,  # [PD-main] decoder_rpe_hidden_dim; [D3-hub] 512 ('linear' rpe type)
        proposal_strides=(
            8,
            16,
            32,
            64,
        ),  # [PD-main] proposal_tgt_strides; [D3-hub] patch x (.5, 1, 2, 4)
        proposal_min_size=50,  # [PD-code] 50; [D3-hub] proposal_min_size=50
    ),
    k_one2many=6,  # [PD-cfg] --k_one2many 6; [D3-hub] 6
    lambda_one2many=1.0,  # [PD-cfg]; [D3-hub] 1.0
    # (class, box, GIoU): [PD-main] cls_loss_coef 2, giou_loss_coef 2; [PD-cfg] bbox_loss_coef 1.0
    loss_weights=(2.0, 1.0, 2.0),
    # [PD-main] set_cost_class 2, set_cost_giou 2; [PD-cfg] set_cost_bbox 1.0
    match_weights=(2.0, 1.0, 2.0),
    focal_alpha=0.25,  # [PD-main] focal_alpha
    test_cfg=dict(topk=100),  # [PD-main] topk 100 (DINOv3: 1500)
)
