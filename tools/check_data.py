"""Check every file a config's datasets will read, before a run.

    python tools/check_data.py CONFIG [--split train val test] [--jobs N]
        [--cfg-options data_root=DIR ...] [--out REPORT.json]

Each split's dataset is built as tools/train.py builds it (the same --cfg-options), and every
sample goes through the checks its pipeline's CheckSampleFiles applies on a sample's first read
(decodable, image and label of one size, label values inside the classes or ignore, depth units
and range, COCO boxes and polygons, panoptic PNG ids = JSON segments), in N processes (default:
one per CPU). Prints per split the counts, the class histogram and every bad file with its
reason; exit status 1 when anything is bad. The samples that passed are written to the check
record the run reads, so it does not check them again (vitspec/datasets/check_record.py).
tools/train.py --check-data runs the same check before it builds the Runner.
"""

import argparse
import json
import sys

from vitspec.config.cfg_options import merge_cfg_options
from vitspec.config.cfg_options_action import CfgOptionsAction
from vitspec.config.load import load_config
from vitspec.datasets.data_check import SPLITS, check_data, format_report
from vitspec.errors import ConfigError, OutputPathError
from vitspec.fileio import add_output, atomic_write_bytes, claim_outputs


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f'must be at least 1, got {value}')
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='a config file, or vitspec::<path below configs/>')
    parser.add_argument(
        '--split',
        nargs='+',
        choices=SPLITS,
        help='the splits to check (default: every split the config has; a test set that is the '
        'validation set is walked once)',
    )
    parser.add_argument('--jobs', type=positive_int, help='worker processes (default: one per CPU)')
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=CfgOptionsAction,
        metavar='KEY=VALUE',
        help='override config entries as tools/train.py does, e.g. data_root=/data/ade',
    )
    parser.add_argument('--no-progress', action='store_true', help='no progress bar')
    add_output(parser, '--out', suffixes=('.json',), help='also write the report as JSON')
    return parser, parser.parse_args(argv)


def main(argv=None) -> int:
    parser, args = parse_args(argv)
    try:
        cfg = load_config(args.config)
        if args.cfg_options:
            merge_cfg_options(cfg, args.cfg_options)
        claim_outputs(args, inputs=[cfg.filename])
    except (ConfigError, OutputPathError, FileNotFoundError, TypeError) as exc:
        parser.error(str(exc))
    try:
        report = check_data(cfg, args.split, args.jobs, progress=not args.no_progress)
    except ConfigError as exc:
        parser.error(str(exc))
    print(format_report(report), end='')
    if args.out:
        atomic_write_bytes(json.dumps(report.to_dict(), indent=1).encode(), str(args.out))
        print(f'wrote {args.out}')
    return 0 if report.clean else 1


if __name__ == '__main__':
    sys.exit(main())
