"""Convert a DINOv2 / timm / DeiT-III / CaiT / MAE checkpoint into SpecViT's layout.

    python tools/convert_checkpoint.py SRC DST --format {dinov2,timm,deit3,cait,mae}

DST holds ``state_dict`` and ``meta['backbone_cfg']``, the SpecViT arguments that rebuild the
source architecture; use them as ``dict(type='SpecViT', **backbone_cfg, out_indices=...,
init_cfg=dict(type='Pretrained', checkpoint=DST))``. DINOv2 ViT-g's SwiGLU MLP (mlp.w12 / mlp.w3)
becomes ``ffn_type='swiglu'``:

    python tools/convert_checkpoint.py dinov2_vitg14_pretrain.pth pretrain/vit-g14_dinov2.pth \
        --format dinov2

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
    args = parser.parse_args(argv)
    try:
        backbone_cfg = convert_file(args.src, args.dst, args.format, args.num_heads)
    except (CheckpointError, FileNotFoundError, ValueError) as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 1
    print(f'wrote {args.dst}; backbone:')
    print(pprint.pformat(dict(type='SpecViT', **backbone_cfg), sort_dicts=False))
    return 0


if __name__ == '__main__':
    sys.exit(main())
