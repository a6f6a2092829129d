"""The speed of mmcv's ops on vitspec's PyTorch / torchvision kernels against the same ops on
mmcv's compiled kernels, through mmcv's own Python (its autograd functions and modules),
interleaved round by round in one process (tools/benchmark.py --mmcv-ops). Only where the
compiled ops are installed (tools/install.sh --mmcv-ops); without them the torchvision side is
timed alone.

On CPU mmcv's deformable attention module runs its PyTorch form whatever is installed (the
compiled op has CUDA kernels only): its row times the autograd function, which has no compiled
CPU kernel, so it is timed on CUDA only."""

import sys
import time
from typing import Callable, NamedTuple

import torch

from vitspec.benchmarking.stats import median_interval, paired_ratio

from .kernel_sets import MMCV, VITSPEC, kernel_sets, use


class OpCase(NamedTuple):
    name: str
    what: str  # sizes, in words
    make: Callable  # device -> a function of no arguments that runs the op once
    cuda_only: bool = False


def _boxes(n, device, gen):
    xy = torch.rand(n, 2, generator=gen) * 600
    return torch.cat([xy, xy + 8 + torch.rand(n, 2, generator=gen) * 120], 1).to(device)


def _nms(n):
    def make(device):
        from mmcv.ops import nms

        gen = torch.Generator().manual_seed(0)
        boxes, scores = _boxes(n, device, gen), torch.rand(n, generator=gen).to(device)
        return lambda: nms(boxes, scores, 0.7)

    return make


def _batched_nms(n, classes):
    def make(device):
        from mmcv.ops import batched_nms

        gen = torch.Generator().manual_seed(0)
        boxes, scores = _boxes(n, device, gen), torch.rand(n, generator=gen).to(device)
        labels = torch.randint(0, classes, (n,), generator=gen).to(device)
        return lambda: batched_nms(boxes, scores, labels, dict(iou_threshold=0.5))

    return make


def _roi_align(rois, channels, size):
    def make(device):
        from mmcv.ops import RoIAlign

        gen = torch.Generator().manual_seed(0)
        feats = torch.randn(2, channels, size, size, generator=gen).to(device).requires_grad_()
        index = torch.randint(0, 2, (rois, 1), generator=gen).float()
        boxes = torch.cat([index, _boxes(rois, 'cpu', gen) * size * 4 / 728], 1).to(device)
        layer = RoIAlign((7, 7), 1 / 4, 0, aligned=True)
        return lambda: layer(feats, boxes).sum().backward()

    return make


def _deform_attn(queries, heads=8, channels=32, levels=((64, 64), (32, 32), (16, 16))):
    def make(device):
        from mmcv.ops.multi_scale_deform_attn import MultiScaleDeformableAttnFunction as msda

        gen = torch.Generator().manual_seed(0)
        keys = sum(h * w for h, w in levels)
        value = torch.randn(2, keys, heads, channels, generator=gen).to(device)
        loc = torch.rand(2, queries, heads, len(levels), 4, 2, generator=gen).to(device)
        attn = torch.rand(2, queries, heads, len(levels), 4, generator=gen).softmax(-1)
        shapes = torch.tensor(levels, device=device)
        start = torch.cat((shapes.new_zeros(1), shapes.prod(1).cumsum(0)[:-1]))
        leaves = [t.requires_grad_() for t in (value, loc, attn.to(device))]
        return lambda: msda.apply(leaves[0], shapes, start, *leaves[1:], 64).sum().backward()

    return make


def _deform_conv(channels, size):
    def make(device):
        from mmcv.ops import ModulatedDeformConv2d

        gen = torch.Generator().manual_seed(0)
        conv = ModulatedDeformConv2d(channels, channels, 3, padding=1).to(device)
        x = torch.randn(2, channels, size, size, generator=gen).to(device).requires_grad_()
        offset = torch.randn(2, 18, size, size, generator=gen).to(device)
        mask = torch.rand(2, 9, size, size, generator=gen).to(device)
        return lambda: conv(x, offset, mask).sum().backward()

    return make


CASES = (
    OpCase('nms', '2000 boxes', _nms(2000)),
    OpCase('batched_nms', '6000 boxes, 80 classes', _batched_nms(6000, 80)),
    OpCase('roi_align fwd+bwd', '512 RoIs, 256 ch, 7x7 from 64x64', _roi_align(512, 256, 64)),
    OpCase(
        'ms_deform_attn fwd+bwd',
        '2x5376 queries, 8 heads x 32, 3 levels x 4 points',
        _deform_attn(64 * 64 + 32 * 32 + 16 * 16),
        cuda_only=True,
    ),
    OpCase('modulated_deform_conv fwd+bwd', '64 ch, 2x64x64, 3x3', _deform_conv(64, 64)),
)


def _seconds(run, device) -> float:
    if device.type == 'cuda':
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    run()
    if device.type == 'cuda':
        torch.cuda.synchronize(device)
    return time.perf_counter() - start


def time_case(case: OpCase, sets, device, rounds, warmup) -> dict:
    """Median ms per call of each kernel set, and the compiled / vitspec time ratio (how many
    times faster vitspec's kernels are; below 1: slower) with its 95 % interval."""
    original = sys.modules['mmcv.ops.nms'].ext_module
    runs = {name: case.make(device) for name in sets}
    times = {name: [] for name in sets}
    try:
        for i in range(warmup + rounds):
            order = list(sets)[i % len(sets) :] + list(sets)[: i % len(sets)]
            for name in order:
                use(sets[name])
                seconds = _seconds(runs[name], device)
                if i >= warmup:
                    times[name].append(seconds)
    finally:
        use(original)
    row = dict(op=case.name, sizes=case.what)
    for name in sets:
        row[f'{name}_ms'] = median_interval(times[name])[0] * 1e3
    if MMCV in sets:
        row['speed'] = paired_ratio(times[MMCV], times[VITSPEC])
    return row


def run_mmcv_ops(device, rounds=15, warmup=2) -> list:
    device = torch.device(device)
    sets = kernel_sets()
    rows = []
    for case in CASES:
        if case.cuda_only and device.type != 'cuda':
            continue
        rows.append(time_case(case, sets, device, rounds, warmup))
        print(format_ops_table(rows[-1:]).splitlines()[-1], flush=True)
    return rows


def format_ops_table(rows) -> str:
    lines = [
        "| op | sizes | mmcv compiled ms | vitspec's kernels ms | speed vs compiled (95 % CI) |",
        '|---|---|---|---|---|',
    ]
    for row in rows:
        compiled = f'{row[f"{MMCV}_ms"]:.2f}' if f'{MMCV}_ms' in row else 'not installed'
        if 'speed' in row:
            mid, low, high = row['speed']
            speed = f'{mid:.2f} ({low:.2f}-{high:.2f})'
        else:
            speed = '-'
        cells = [row['op'], row['sizes'], compiled, f'{row[f"{VITSPEC}_ms"]:.2f}', speed]
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)
