"""Convert a DINOv2 / DINOv3 / timm / DeiT-III / CaiT / MAE checkpoint into SpecViT's layout.

    python tools/convert_checkpoint.py SRC DST --format {dinov2,dinov3,timm,deit3,cait,mae}

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
"""

import argparse
import pprint
import sys

from vitspec.apis.convert_checkpoint import convert_file
from vitspec.checkpoints.formats import FORMATS
from vitspec.errors import CheckpointError


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('src', help='source checkpoint')
    parser.add_argument('dst', help='converted checkpoint to write')
    parser.add_argument('--format', required=True, choices=sorted(FORMATS))
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
    args = parser.parse_args(argv)
    try:
        backbone_cfg = convert_file(
            args.src,
            args.dst,
            args.format,
            args.num_heads,
            trust_pickle=args.trust_pickle,
            use_ema=args.use_ema,
            branch=args.branch,
        )
    except (CheckpointError, FileNotFoundError, ValueError) as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 1
    print(f'wrote {args.dst}; backbone:')
    print(pprint.pformat(dict(type='SpecViT', **backbone_cfg), sort_dicts=False))
    return 0


if __name__ == '__main__':
    sys.exit(main())
