"""Loss and metric curves of one or several training work dirs, as one PNG.

    python tools/analyze_logs.py WORK_DIR [WORK_DIR ...] --out curves.png [--keys loss mIoU]
        [--labels A B] [--smooth 5]

One panel per key, one line per work dir, against the iteration. Reads mmengine's scalar logs
(see vitspec/runs/logs.py); runs of a resumed work dir are joined. Default keys: 'loss' and the
headline metric of each task found (mIoU, coco/bbox_mAP, rmse).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

from vitspec.errors import OutputPathError
from vitspec.fileio import add_output, claim_outputs
from vitspec.runs.logs import TASK_METRICS, series

PANEL_INCHES, DPI = (5.0, 3.5), 100


def default_keys(work_dirs) -> list:
    keys = ['loss']
    for metrics in TASK_METRICS.values():
        if any(series(wd, metrics[0])[0] for wd in work_dirs):
            keys.append(metrics[0])
    return keys


def smoothed(values, window: int):
    if window <= 1 or len(values) < window:
        return values
    return np.convolve(values, np.ones(window) / window, mode='valid').tolist()


def plot_curves(work_dirs, keys, labels, out: str, smooth: int = 1):
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        1, len(keys), squeeze=False, dpi=DPI, figsize=(PANEL_INCHES[0] * len(keys), PANEL_INCHES[1])
    )
    for ax, key in zip(axes[0], keys):
        plotted = False
        for i, (wd, label) in enumerate(zip(work_dirs, labels)):
            steps, values = series(wd, key)
            if not steps:
                continue
            window = smooth if key.startswith('loss') or '.loss' in key else 1
            values = smoothed(values, window)
            ax.plot(
                steps[len(steps) - len(values) :],
                values,
                marker='.' if len(steps) < 30 else None,
                label=label,
                color=f'C{i % 10}',
            )
            plotted = True
        if not plotted:
            ax.text(0.5, 0.5, 'not logged', ha='center', transform=ax.transAxes)
        ax.set_title(key)
        ax.set_xlabel('iteration')
        ax.grid(alpha=0.3)
        if plotted:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, metadata={'Software': None})
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('work_dirs', nargs='+', type=Path)
    add_output(parser, '--out', suffixes=('.png',), required=True, help='PNG to write')
    parser.add_argument('--keys', nargs='+', help='scalars to plot (default: loss + metrics)')
    parser.add_argument('--labels', nargs='+', help='legend names (default: work dir names)')
    parser.add_argument('--smooth', type=int, default=1, help='moving average over losses')
    args = parser.parse_args(argv)
    missing = [str(wd) for wd in args.work_dirs if not wd.is_dir()]
    if missing:
        sys.exit(f'analyze_logs: no such work dir: {", ".join(missing)}')
    try:
        claim_outputs(args, inputs=args.work_dirs)
    except OutputPathError as exc:
        sys.exit(f'analyze_logs: {exc}')
    labels = args.labels or [wd.name for wd in args.work_dirs]
    if len(labels) != len(args.work_dirs):
        sys.exit('analyze_logs: --labels needs one label per work dir')
    keys = args.keys or default_keys(args.work_dirs)
    if not any(series(wd, k)[0] for wd in args.work_dirs for k in keys):
        sys.exit(f'analyze_logs: none of {keys} is logged in */vis_data/scalars.json')
    plot_curves(args.work_dirs, keys, labels, args.out, args.smooth)
    print(f'wrote {args.out} ({", ".join(keys)})')


if __name__ == '__main__':
    main()
