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
from vitspec.inference import (
    checked_device,
    find_images,
    load_heads,
    load_model,
    predict_files,
    predict_files_heads,
)
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


def main_heads(args, device, slide):
    paths = find_images(args.inputs)
    claim_outputs(args, inputs=[*paths, *args.checkpoints], create=False)
    multi = load_heads(
        args.checkpoints, args.configs, device, args.input_of, not args.no_config_check
    )
    described = ', '.join(f'{n} ({h.task})' for n, h in zip(multi.names, multi.heads))
    print(
        f'{len(multi.heads)} heads on one backbone on {device}: {described}; {len(paths)} image(s)'
    )
    return predict_files_heads(
        multi, paths, args.out, batch_size=args.batch, amp=args.amp, npy=args.npy,
        overwrite=args.overwrite, slide=slide,
    )  # fmt: skip


def main(argv=None):
    args = parse_args(argv)
    slide = dict(window=tuple(args.window) if args.window else None, overlap=args.overlap)
    slide = slide if args.slide else None
    try:
        device = checked_device(args.device)
        if args.heads:
            summary = main_heads(args, device, slide)
            print('\n'.join(summary.lines()))
            print(f'outputs in {args.out}/<head>/')
            return 0 if summary.written else 1
        paths = find_images(args.inputs)
        # refused before the model loads; created only once it has loaded
        claim_outputs(args, inputs=[*paths, args.checkpoint], create=False)
        loaded = load_model(args.checkpoint, args.config, device, not args.no_config_check)
        print(f'{loaded.task} model of {loaded.checkpoint} on {device}: {len(paths)} image(s)')
        summary = predict_files(
            loaded,
            paths,
            args.out,
            batch_size=args.batch,
            amp=args.amp,
            npy=args.npy,
            overwrite=args.overwrite,
            slide=slide,
        )
    except (VitspecError, NotImplementedError, FileNotFoundError) as exc:
        sys.exit(f'infer: {exc}')
    print('\n'.join(summary.lines()))
    print(f'outputs in {args.out}')
    return 0 if summary.written else 1


if __name__ == '__main__':
    sys.exit(main())
