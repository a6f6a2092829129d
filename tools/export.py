"""Export a trained model to ONNX and check it against PyTorch with onnxruntime.

python tools/export.py [CONFIG] CHECKPOINT --format onnx --out FILE [--shape H W] [--dynamic]
    [--backbone] [--whole] [--no-check] [--benchmark ROUNDS] [--threads N]

Segmentation and depth models are exported end to end: the graph takes (batch, 3, H, W) RGB
pixels 0-255 and returns the class scores and labels, or the depth, at the input's size (the
config's whole-image test). --backbone exports the SpecViT alone. --dynamic makes the batch and
(where the model allows) the image size symbolic. The checkpoint's saved config builds the model
unless CONFIG is given (then it is checked against the saved one). See docs/export.md.
"""

import argparse
import sys

from vitspec.errors import VitspecError
from vitspec.export import check_parity
from vitspec.export.checkpoint_export import default_size, export_checkpoint
from vitspec.export.graphs import graph_for
from vitspec.export.speed import compare_speed
from vitspec.fileio import FILE, add_output, claim_outputs


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Export a model to ONNX')
    parser.add_argument('paths', nargs='+', metavar='[CONFIG] CHECKPOINT')
    parser.add_argument('--format', choices=['onnx'], default='onnx')
    add_output(
        parser, '--out', kind=FILE, suffixes=('.onnx',), required=True, help='the .onnx file'
    )
    parser.add_argument('--shape', nargs=2, type=int, metavar=('H', 'W'), help='image size')
    parser.add_argument(
        '--dynamic', action='store_true', help='symbolic batch and (where allowed) image size'
    )
    parser.add_argument('--backbone', action='store_true', help='export the SpecViT alone')
    parser.add_argument(
        '--whole', action='store_true', help="export a sliding-window config's whole-image test"
    )
    parser.add_argument(
        '--no-config-check', action='store_true', help='skip the check against meta.cfg'
    )
    parser.add_argument('--no-check', action='store_true', help='skip the onnxruntime check')
    parser.add_argument(
        '--benchmark', type=int, default=0, metavar='ROUNDS', help='time ONNX against PyTorch'
    )
    parser.add_argument('--threads', type=int, default=1, help='CPU threads for --benchmark')
    args = parser.parse_args(argv)
    if len(args.paths) > 2:
        parser.error('give CHECKPOINT, or CONFIG CHECKPOINT')
    args.config, args.checkpoint = ([None] + args.paths)[-2:]
    if args.shape is not None and min(args.shape) < 1:
        parser.error(f'--shape {" ".join(map(str, args.shape))}: give H W, each 1 pixel or more')
    if args.threads < 1:
        parser.error(f'--threads {args.threads}: give 1 or more')
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        claim_outputs(args, inputs=[p for p in (args.checkpoint, args.config) if p])
        result = export_checkpoint(
            args.checkpoint,
            args.out,
            config=args.config,
            size=args.shape,
            dynamic=args.dynamic,
            backbone_only=args.backbone,
            check_config=not args.no_config_check,
            whole=args.whole,
        )
    except (VitspecError, FileNotFoundError) as exc:
        sys.exit(f'cannot export: {exc}')
    exported = result.exported
    shape = 'dynamic' if exported.dynamic_size else 'x'.join(map(str, exported.traced_size))
    print(f'wrote {exported.path}: {exported.task}, outputs {", ".join(exported.output_names)}')
    batch = 'dynamic' if exported.dynamic_batch else 'fixed'
    print(f'  batch {batch}, image size {shape}')
    if exported.fixed_size_reason:
        print(f'  the image size is fixed: {exported.fixed_size_reason}')
    if not args.no_check:
        h, w = exported.traced_size
        for p in check_parity(result.model, exported, sizes=[(h + 13, w - 11)], batch=1):
            print(
                f'  onnxruntime vs PyTorch, batch {p.batch} at {p.size[0]}x{p.size[1]}: '
                f'max |difference| {p.max_abs_difference:.2e}'
            )
    if args.benchmark:
        speed = compare_speed(
            graph_for(result.model),
            exported.path,
            tuple(args.shape) if args.shape else default_size(result.model),
            rounds=args.benchmark,
            threads=args.threads,
        )
        print(
            f'  CPU, {speed.threads} thread(s), batch {speed.batch} at '
            f'{speed.size[0]}x{speed.size[1]}, {speed.rounds} rounds: PyTorch eager '
            f'{speed.torch_ms:.1f} ms, onnxruntime {speed.onnx_ms:.1f} ms, '
            f'onnxruntime {speed.speedup:.2f}x as fast'
        )


if __name__ == '__main__':
    main()
