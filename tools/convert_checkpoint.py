"""Convert a DINOv2 / DINOv3 / timm / DeiT-III / CaiT / MAE checkpoint into SpecViT's layout.

    python tools/convert_checkpoint.py SRC DST --format {dinov2,dinov3,timm,deit3,cait,mae}
    python tools/convert_checkpoint.py HEAD DST --format dinov2 --head-config CONFIG [--backbone B]

DST holds ``state_dict`` and ``meta['backbone_cfg']``, the SpecViT arguments that rebuild the
source architecture; use them as ``dict(type='SpecViT', **backbone_cfg, out_indices=...,
init_cfg=dict(type='Pretrained', checkpoint=DST))``. DINOv2 ViT-g's SwiGLU MLP (mlp.w12 / mlp.w3)
becomes ``ffn_type='swiglu'``:

    python tools/convert_checkpoint.py dinov2_vitg14_pretrain.pth pretrain/vit-g14_dinov2.pth \
        --format dinov2

Training checkpoints convert as they are: MAE's ``checkpoint-<epoch>.pth``, DeiT / CaiT's
``checkpoint.pth``, timm's ``checkpoint-<epoch>.pth.tar`` / ``model_best.pth.tar`` (``--use-ema``
for their EMA weights) and DINOv2 / DINOv3's ``eval/<iteration>/teacher_checkpoint.pth``
(``--branch student`` for a file holding both networks):

    python tools/convert_checkpoint.py output_dir/checkpoint-799.pth pretrain/vit-b16_mae.pth \
        --format mae

The head count is read off the weights where they show it (CaiT), else taken from the published
models of the format (ViT-H/14: 16 heads, not 1280 / 64); a width without one needs
``--num-heads``.

A released decode head (DINOv2's ADE20K linear / +ms BNHeads, NYU / KITTI linear and DPT depth
heads) becomes a whole checkpoint of CONFIG's model: the backbone from the checkpoint CONFIG names
(``--backbone`` for another), the head from the released file; test it without training:

    python tools/convert_checkpoint.py dinov2_vits14_ade20k_linear_head.pth \
        work_dirs/released/dinov2_vits14_ade20k_linear.pth --format dinov2 \
        --head-config configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py
    tools/dist_test.sh configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py \
        work_dirs/released/dinov2_vits14_ade20k_linear.pth 8

DINOv3's released ADE20K segmentor (its trained adapter and Mask2Former head, without the ViT)
converts the same way with ``--format dinov3`` into the ViTAdapter + Mask2Former config, whose
ViT comes from the converted backbone:

    python tools/convert_checkpoint.py dinov3_vit7b16_ade20k_m2f_head-bf307cb1.pth \
        work_dirs/released/dinov3-ade20k-m2f-vit7b16.pth --format dinov3 --head-config \
        configs/ade20k/mask2former_vit-7b16-dinov3_dinov3-adapter_8xb2-20k_ade20k-896x896.py

DINOv2's released ADE20K segmentor (ViT-g/14 + ViT-Adapter + Mask2Former, an mmseg 0.x file of
ViT-Adapter's code holding its ViT, adapter and head) converts with ``--format dinov2`` into the
ViT-g adapter config; ViT-Adapter's own ViT-based Mask2Former checkpoints convert the same way:

    python tools/convert_checkpoint.py dinov2_vitg14_ade20k_m2f.pth \
        work_dirs/released/dinov2-ade20k-m2f-vitg14.pth --format dinov2 --head-config \
        configs/ade20k/mask2former_vit-g14-dinov2_vit-adapter_16xb1-80k_ade20k-896x896.py

DINOv3's released COCO detector head (Plain-DETR; its file holds no ViT) converts with
``--format dinov3-detr`` into the PlainDETR config, whose ViT-7B comes from the converted backbone:

    python tools/convert_checkpoint.py dinov3_vit7b16_coco2017_detr_head-b0235ff7.pth \
        work_dirs/released/dinov3-coco-detr-vit7b16.pth --format dinov3-detr --head-config \
        configs/coco/plain-detr_vit-7b16-dinov3_windows3_released_coco-2048x2048.py

A released EoMT checkpoint (tue-mps/eomt, Hugging Face ``pytorch_model.bin``, DINOv2 configs)
becomes a checkpoint of our EoMT segmentor (``network.*``), its ``meta['backbone_cfg']`` and
``meta['eomt_cfg']`` (num_classes, num_queries, num_blocks) read off the weights:

    python tools/convert_checkpoint.py pytorch_model.bin work_dirs/released/eomt_l_ade20k.pth \
        --format eomt
"""

import argparse
import pprint
import sys

from vitspec.checkpoints.layouts.backbone_formats import FORMATS
from vitspec.conversion.checkpoint import convert_file
from vitspec.conversion.eomt import convert_eomt_file
from vitspec.conversion.head_with_backbone import convert_head_file
from vitspec.conversion.plain_detr import convert_detr_head_file
from vitspec.errors import CheckpointError, OutputPathError
from vitspec.fileio import add_output, claim_outputs

EOMT = 'eomt'  # a whole released EoMT network (vitspec.checkpoints.layouts.eomt)
CHECKPOINT_SUFFIXES = ('.pth', '.pt')
DETR = 'dinov3-detr'  # DINOv3's COCO detector head (vitspec.checkpoints.layouts.dinov3_detr)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('src', help='source checkpoint')
    add_output(parser, 'dst', suffixes=CHECKPOINT_SUFFIXES, help='converted checkpoint to write')
    parser.add_argument('--format', required=True, choices=sorted([*FORMATS, EOMT, DETR]))
    parser.add_argument(
        '--num-heads',
        type=int,
        help='attention heads, for a width the converter has no table entry for (default: read '
        "off CaiT's talking heads, else the format's published widths: ViT-Ti 3, S 6, B 12, "
        'L 16, H 16, g 24)',
    )
    parser.add_argument(
        '--use-ema',
        action='store_true',
        help="a training checkpoint's EMA weights (timm: state_dict_ema, DeiT: model_ema) "
        'instead of its trained weights (state_dict / model)',
    )
    parser.add_argument(
        '--branch',
        choices=('teacher', 'student'),
        default='teacher',
        help='of a DINOv2 / DINOv3 training checkpoint holding both: which network (default: '
        'the teacher, which DINOv2 and DINOv3 release)',
    )
    parser.add_argument(
        '--trust-pickle',
        action='store_true',
        help='for a file YOU made whose pickle needs classes outside the safe allow-list: '
        'unpickle it in full, which runs any code stored in it (logged as a WARNING). Training '
        'checkpoints of MAE, DeiT, CaiT, timm, DINOv2 and DINOv3 do not need it',
    )
    parser.add_argument(
        '--head-config',
        metavar='CONFIG',
        help="SRC is a released decode head: write a checkpoint of CONFIG's model (its backbone "
        'from the checkpoint CONFIG names, the head from SRC)',
    )
    parser.add_argument(
        '--backbone',
        help="with --head-config: the converted backbone checkpoint (default: the config's "
        'model.backbone.init_cfg.checkpoint)',
    )
    args = parser.parse_args(argv)
    inputs = [p for p in (args.src, args.head_config, args.backbone) if p]
    try:
        claim_outputs(args, inputs=inputs)
    except OutputPathError as exc:
        parser.error(str(exc))
    if args.format == DETR and not args.head_config:
        parser.error('--format dinov3-detr needs --head-config (a PlainDETR config)')
    if args.backbone and not args.head_config and args.format != EOMT:
        parser.error('--backbone goes with --head-config')
    try:
        report = convert(args)
    except (CheckpointError, FileNotFoundError, ValueError) as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 1
    print(report)
    return 0


def convert(args) -> str:
    """Write ``args.dst`` from ``args.src`` as ``--format`` and ``--head-config`` say; what to
    print."""
    if args.format == DETR:
        return convert_detr_head(args)
    if args.head_config:
        return convert_head(args)
    if args.format == EOMT:
        return convert_eomt(args)
    return convert_backbone(args)


def convert_backbone(args) -> str:
    backbone_cfg = convert_file(
        args.src,
        args.dst,
        args.format,
        args.num_heads,
        trust_pickle=args.trust_pickle,
        use_ema=args.use_ema,
        branch=args.branch,
    )
    spec_vit = pprint.pformat(dict(type='SpecViT', **backbone_cfg), sort_dicts=False)
    return f'wrote {args.dst}; backbone:\n{spec_vit}'


def convert_eomt(args) -> str:
    if args.backbone or args.use_ema or args.branch != 'teacher':
        raise ValueError('--format eomt takes none of --backbone, --use-ema, --branch')
    meta = convert_eomt_file(args.src, args.dst, args.num_heads, args.trust_pickle)
    spec_vit = pprint.pformat(dict(type='SpecViT', **meta['backbone_cfg']), sort_dicts=False)
    return (
        f'wrote {args.dst}; network under network.*: EoMT {meta["eomt_cfg"]}, backbone:\n{spec_vit}'
    )


def convert_detr_head(args) -> str:
    meta = convert_detr_head_file(
        args.head_config, args.src, args.dst, args.backbone, args.trust_pickle
    )
    return (
        f'wrote {args.dst}: PlainDETR from {args.src}, backbone from '
        f'{meta["backbone_checkpoint"]}; test it:\n'
        f'tools/dist_test.sh {args.head_config} {args.dst} <num_gpus>'
    )


def convert_head(args) -> str:
    meta = convert_head_file(
        args.head_config,
        args.src,
        args.dst,
        args.format,
        backbone=args.backbone,
        trust_pickle=args.trust_pickle,
    )
    return (
        f'wrote {args.dst}: {meta["head_type"]} from {args.src}, backbone from '
        f'{meta["backbone_checkpoint"]}; test it:\n'
        f'tools/dist_test.sh {args.head_config} {args.dst} <num_gpus>'
    )


if __name__ == '__main__':
    sys.exit(main())
