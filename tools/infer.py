"""Predict with a trained model on your own images and write files other programs read.

    python tools/infer.py [CONFIG] CHECKPOINT INPUTS... --out DIR [--overwrite] [--amp]
        [--batch N] [--device DEVICE] [--npy] [--slide [--window H W] [--overlap F]] [--fp32]
    python tools/infer.py INPUTS... --heads [CONFIG] CHECKPOINT [CONFIG] CHECKPOINT... --out DIR
        [--input-of K] [--slide [--window H W] [--overlap F]] [...]

CHECKPOINT alone uses the config it was trained with (saved in it); a CONFIG (a .py file or
vitspec::<path>) given before it is checked against that one, as tools/test.py does. INPUTS are
image files, folders, glob patterns (quoted) or .txt files listing paths. Outputs per task and
their formats: docs/inference.md.

--heads: several heads trained on one frozen backbone (their checkpoints' backbones are
checked equal), the backbone run once per batch; each head's files go into DIR/<the folder of
its checkpoint>/. --input-of K feeds every head the input head K prepares (0-based) when their
test pipelines or data preprocessors differ.
"""

import argparse
import sys

from vitspec.config.flag_needs import refuse_flags_without_their_needs
from vitspec.errors import ConfigError, VitspecError
from vitspec.fileio import FOLDER, add_output, claim_outputs
from vitspec.inference import MultiHeadModel, checked_device, predict
from vitspec.inference.large_images import DEFAULT_OVERLAP, check_slide_settings

# flags that act only with another one (vitspec/config/flag_needs.py)
NEEDS = {'--window': '--slide', '--overlap': '--slide', '--input-of': '--heads'}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('paths', nargs='+', metavar='[CONFIG] CHECKPOINT INPUTS')
    add_output(parser, '--out', kind=FOLDER, required=True, help='output folder')
    precision = parser.add_mutually_exclusive_group()
    precision.add_argument(
        '--amp', action='store_true', default=None, help='autocast (bfloat16 on CPUs)'
    )
    precision.add_argument(
        '--fp32', dest='amp', action='store_false', help='float32 (default: as trained)'
    )
    parser.add_argument(
        '--batch', type=positive_int, default=1, help='images (or windows) per forward'
    )
    parser.add_argument('--device', default=None, help='cuda, cuda:1, cpu (default: cuda if any)')
    parser.add_argument('--npy', action='store_true', help='depth: also float32 metres as .npy')
    parser.add_argument(
        '--slide', action='store_true', help='large images: overlapping windows at their own scale'
    )
    parser.add_argument('--window', type=int, nargs=2, metavar=('H', 'W'), help='--slide window')
    parser.add_argument(
        '--overlap', type=float, help=f'--slide overlap (fraction, default {DEFAULT_OVERLAP:.3f})'
    )
    parser.add_argument('--no-config-check', action='store_true', help='use CONFIG as given')
    parser.add_argument(
        '--heads',
        nargs='+',
        metavar='[CONFIG] CHECKPOINT',
        help='several heads on one frozen backbone (then every positional path is an input)',
    )
    parser.add_argument(
        '--input-of', type=int, default=None, metavar='K', help='--heads: head K prepares the input'
    )
    args = parser.parse_args(argv)
    refuse_flags_without_their_needs(parser, args, NEEDS)
    if args.overlap is None:
        args.overlap = DEFAULT_OVERLAP
    try:  # before any model loads, with or without --heads
        window = tuple(args.window) if args.window else None
        check_slide_settings(window, args.overlap, args.batch)
    except ConfigError as exc:
        parser.error(str(exc))
    if args.heads:
        args.configs, args.checkpoints = head_paths(args.heads, parser)
        args.inputs = args.paths
        return args
    config, rest = split_paths(args.paths)
    if len(rest) < 2:
        parser.error('give a CHECKPOINT and at least one input')
    args.config, args.checkpoint, args.inputs = config, rest[0], rest[1:]
    return args


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f'expected a number >= 1, got {text}')
    return value


def split_paths(paths):
    """(config or None, the other paths): a config ends in .py or starts with vitspec::."""
    first = paths[0]
    if first.endswith('.py') or first.startswith('vitspec::'):
        return first, paths[1:]
    return None, paths


def head_paths(paths, parser):
    """--heads' (configs, checkpoints): each checkpoint with the config just before it, if any."""
    configs, checkpoints, config = [], [], None
    for path in paths:
        if path.endswith('.py') or path.startswith('vitspec::'):
            if config is not None:
                parser.error(f'--heads: two configs in a row ({config}, {path})')
            config = path
        else:
            configs.append(config)
            checkpoints.append(path)
            config = None
    if config is not None:
        parser.error(f'--heads: config {config} without its checkpoint after it')
    if len(checkpoints) < 2:
        parser.error('--heads takes two checkpoints or more')
    return configs, checkpoints


def described(model, device, paths) -> str:
    """What runs: the model (or the heads), the device, how many images."""
    if isinstance(model, MultiHeadModel):
        count, heads = len(model.heads), zip(model.names, model.heads)
        listed = ', '.join(f'{name} ({head.task})' for name, head in heads)
        return f'{count} heads on one backbone on {device}: {listed}; {len(paths)} image(s)'
    return f'{model.task} model of {model.checkpoint} on {device}: {len(paths)} image(s)'


def main(argv=None):
    args = parse_args(argv)
    slide = dict(window=tuple(args.window) if args.window else None, overlap=args.overlap)
    slide = slide if args.slide else None
    try:
        device = checked_device(args.device)
        summary = predict(
            args.checkpoints if args.heads else args.checkpoint,
            args.inputs,
            args.out,
            args.configs if args.heads else args.config,
            device,
            check_config=not args.no_config_check,
            input_from=args.input_of,
            # refused before the model loads; created only once it has loaded
            claim=lambda inputs: claim_outputs(args, inputs, create=False)['out'],
            on_loaded=lambda model, paths: print(described(model, device, paths)),
            batch_size=args.batch,
            amp=args.amp,
            npy=args.npy,
            slide=slide,
        )
    except (VitspecError, NotImplementedError, FileNotFoundError) as exc:
        sys.exit(f'infer: {exc}')
    print('\n'.join(summary.lines()))
    print(f'outputs in {args.out}/<head>/' if args.heads else f'outputs in {args.out}')
    return 0 if summary.written else 1


if __name__ == '__main__':
    sys.exit(main())
