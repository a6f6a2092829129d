"""Parameters, FLOPs and per-block widths of a config's model and backbone.

    python tools/model_info.py CONFIG [--shape H W] [--json OUT.json]

Parameters: the whole model, its backbone, and the backbone's extra parameters over the plain
backbone (the same config with the arguments of its technique fragment(s) back at SpecViT's
defaults). FLOPs: torch.utils.flop_counter (a multiply-add counts 2) of one backbone forward at
the config's crop size (crop_size / image_size, else the backbone's img_size). Per block: heads,
head width, MLP width (layer-wise scaling shows here), window, specialized parts.
"""

import argparse
import json

from vitspec.analysis.model_info import format_info, model_info
from vitspec.errors import OutputPathError
from vitspec.fileio import add_output, atomic_write_bytes, claim_outputs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config')
    parser.add_argument(
        '--shape',
        type=int,
        nargs=2,
        metavar=('H', 'W'),
        help='input size for FLOPs (default: the config crop size)',
    )
    add_output(parser, '--json', suffixes=('.json',), help='also write the numbers to this file')
    args = parser.parse_args(argv)
    try:
        claim_outputs(args, inputs=[args.config])
    except OutputPathError as exc:
        parser.error(str(exc))
    info = model_info(args.config, args.shape)
    print(format_info(info))
    if args.json:
        atomic_write_bytes(json.dumps(info, indent=1).encode(), args.json)
        print(f'wrote {args.json}')


if __name__ == '__main__':
    main()
