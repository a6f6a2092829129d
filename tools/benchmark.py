"""Backbone speed and memory, side by side in ONE run: interleaved, repeated, medians, ratios.

    python tools/benchmark.py --preset readme            # the tables of docs/benchmarks.md
    python tools/benchmark.py --preset dinov3            # SpecViT's DINOv3 ViT-S/16 vs timm's
    python tools/benchmark.py --preset gpu               # ViT-B/16 batch 64, bf16 / fp16, a GPU
    python tools/benchmark.py --preset amp-cpu           # the same ratios in bf16 on a CPU
    python tools/benchmark.py --models timm specvit specvit-spec --size s16 --img 224 --batch 8
    python tools/benchmark.py --config configs/ade20k/A.py --config mmseg::mae/B.py  # train steps
    python tools/benchmark.py --mmcv-ops  # mmcv's ops: vitspec's kernels vs compiled ones
    python tools/benchmark.py --pipelines ade20k cityscapes coco nyu --data DIR --rounds 5

Each configuration is built in its own worker process and timed in turn, one worker at a time,
round after round (the order rotating from round to round), so drift of the machine hits all
of them alike and none inherits another's heap (glibc is told to keep what it frees, see
vitspec/benchmarking/worker.py). The table reports the median time per batch and the speed
against the baseline (the first model unless --baseline): the median over rounds of the ratio of
the two times of the SAME round, which cancels the host's slower drift, with its
distribution-free 95 % interval (order statistics). Memory: peak allocated on CUDA; on CPU, the
bytes of tensors saved for backward (activation memory), which is what gradient checkpointing
reduces. Also measures the machine's dense GEMM rate and the fraction of it each model achieves.
Training settings also count each model's aten ops, casts and GEMMs over one eager forward +
backward at batch 2 (vitspec/benchmarking/op_counts.py): on a GPU each op is a kernel. bf16
(fp16) is not timed on a CPU without AMX or AVX512-BF16 (-FP16), where it would only be
emulated. Presets also check their performance targets (vitspec/benchmarking/presets.py).

--config times whole training steps instead: each config's model and optim_wrapper built as its
train script builds them, `model.train_step` on random data of the config's crop size and batch
(--batch overrides it; --cfg-options changes every config), in the same interleaved rounds; it
reports s/iter, images/s, memory (CUDA: peak allocated; CPU: saved for backward) and the speed
against the first config. Configs of installed packages: mmseg::path, mmdet::path.

--pipelines times data pipelines instead: each named config's training pipeline against the same
pipeline without CheckSampleFiles (mmseg's and mmdet's plain transforms), per sample, once every
sample has been checked, on real files under --data (ade20k/ADEChallengeData2016, cityscapes,
coco, nyu in their native layouts; vitspec/benchmarking/pipelines.py), --calls samples a round.
"""

import argparse
import json
import sys

import torch
from mmengine.config import DictAction

from vitspec.benchmarking.config_report import format_config_table
from vitspec.benchmarking.config_runs import config_names, refuse_config_baseline, run_configs
from vitspec.benchmarking.config_source import check_config_exists
from vitspec.benchmarking.machine import DTYPES, describe_device
from vitspec.benchmarking.measure import refuse_baseline, run_setting
from vitspec.benchmarking.models import COMPILED, MODELS, SIZES
from vitspec.benchmarking.pipelines import CASES, TARGET_RATIO, format_pipeline_table, run_pipelines
from vitspec.benchmarking.presets import PRESETS, TARGETS
from vitspec.benchmarking.report import format_table
from vitspec.benchmarking.targets import check_targets
from vitspec.config.flag_needs import refuse_flags_without_their_needs
from vitspec.errors import OutputPathError
from vitspec.fileio import add_output, atomic_write_bytes, claim_outputs
from vitspec.mmcv_ops.benchmark import format_ops_table, run_mmcv_ops
from vitspec.mmcv_ops.kernel_sets import MMCV, VITSPEC

DESCRIPTION = __doc__.split('\n')[0]
# Flags that act only together with another one: given without it they are refused, not ignored.
NEEDS = {'--mmcv-kernels': '--config', '--cfg-options': '--config'}
NEEDS.update({'--data': '--pipelines', '--calls': '--pipelines'})
PIPELINE_CALLS = 90  # --calls when not given


def main(argv=None):
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument('--preset', choices=sorted(PRESETS))
    parser.add_argument(
        '--models',
        nargs='+',
        choices=[*MODELS, *(m + COMPILED for m in MODELS)],
        metavar='MODEL',
        help=f'{", ".join(MODELS)}; any of them '
        f'with the suffix {COMPILED}: through torch.compile, its compilation timed apart',
    )
    parser.add_argument('--size', default='s16', choices=sorted(SIZES))
    parser.add_argument('--img', type=int, default=224)
    parser.add_argument(
        '--config',
        action='append',
        metavar='CONFIG',
        help="time a training config's model.train_step through its own optim_wrapper on random "
        'data of its crop size and batch (repeat it to compare configs; pkg::path for an '
        "installed package's config, e.g. mmseg::mae/...)",
    )
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=DictAction,
        metavar='KEY=VALUE',
        help='with --config: override entries of every config (probe_grid.* only those of probe '
        'grid configs, e.g. probe_grid.lr=[0.001,0.002] to compare a grid with its probe), '
        'e.g. optim_wrapper.type=AmpOptimWrapper',
    )
    parser.add_argument(
        '--batch', type=int, help="images per step (default: 8; with --config the config's)"
    )
    parser.add_argument('--dtype', default='fp32', choices=list(DTYPES))
    parser.add_argument(
        '--mode',
        choices=['inference', 'training'],
        help="default: inference; with --config training (inference: the config's test_step)",
    )
    parser.add_argument(
        '--mmcv-ops',
        action='store_true',
        help="mmcv's ops (NMS, RoIAlign, deformable attention and convolution) on vitspec's "
        "PyTorch / torchvision kernels against mmcv's compiled ones, where installed",
    )
    parser.add_argument(
        '--mmcv-kernels',
        nargs='+',
        choices=[VITSPEC, MMCV],
        help="with --config: run each config on these kernels of mmcv's ops, one row each "
        "(compiled: mmcv's own, where installed; torchvision: vitspec's)",
    )
    parser.add_argument(
        '--pipelines',
        nargs='+',
        choices=sorted(CASES),
        help="these datasets' training pipelines against the same without the file checks",
    )
    parser.add_argument('--data', help='with --pipelines: the folder holding the datasets')
    parser.add_argument(
        '--calls', type=_positive, help=f'with --pipelines: samples per round ({PIPELINE_CALLS})'
    )
    parser.add_argument('--baseline', help='model the ratios refer to (default: the first)')
    parser.add_argument('--rounds', type=int, default=15, help='interleaved timed rounds')
    parser.add_argument('--warmup', type=int, default=2)
    parser.add_argument('--device', default='cuda' if torch.cuda.is_available() else 'cpu')
    add_output(
        parser, '--out', suffixes=('.json',), default='benchmark.json', help='results (JSON)'
    )
    args = parser.parse_args(argv)
    refuse_flags_without_their_needs(parser, args, NEEDS)
    try:
        claim_outputs(args, inputs=args.config or ())
    except OutputPathError as exc:
        parser.error(str(exc))
    if args.pipelines:
        if args.preset or args.models or args.config or args.mmcv_ops:
            parser.error('--pipelines times pipelines alone: without --preset, --models, --config')
        if not args.data:
            parser.error('--pipelines needs --data, the folder holding the datasets')
        return _main_pipelines(args)
    if args.mmcv_ops:
        if args.preset or args.models or args.config:
            parser.error('--mmcv-ops times the ops alone: without --preset, --models, --config')
        return _main_mmcv_ops(args)
    if args.config:
        if args.preset or args.models:
            parser.error('give --config, or --preset / --models, not both')
        try:  # a missing config or an unknown --baseline: before any model is built
            for config in args.config:
                check_config_exists(config)
            refuse_config_baseline(config_names(_config_specs(args)), args.baseline)
        except (FileNotFoundError, ValueError) as exc:
            parser.error(str(exc))
        return _main_configs(args)
    if args.preset:
        settings = PRESETS[args.preset]
    elif args.models:
        settings = [
            dict(
                size=args.size,
                img=args.img,
                batch=args.batch or 8,
                dtype=args.dtype,
                mode=args.mode or 'inference',
                models=args.models,
            )
        ]
    else:
        parser.error('give --preset or --models')
    for setting in settings:
        try:
            refuse_baseline(setting, args.baseline)
        except ValueError as exc:
            parser.error(str(exc))
    device = torch.device(args.device)
    machine = describe_device(device)
    print(f'{machine}, torch {torch.__version__}\n')
    results = []
    for setting in settings:
        result = run_setting(setting, device, args.rounds, args.warmup, args.baseline)
        print(format_table(result) + '\n', flush=True)
        results.append(result)
    checks = check_targets(TARGETS.get(args.preset, []), results)
    if checks:
        print('targets:\n' + '\n'.join(checks) + '\n')
    _write(args.out, machine, results, targets=checks)


def _main_mmcv_ops(args):
    device = torch.device(args.device)
    machine = describe_device(device)
    print(f'{machine}, torch {torch.__version__}\n')
    rows = run_mmcv_ops(device, args.rounds, args.warmup)
    print('\n' + format_ops_table(rows) + '\n', flush=True)
    _write(args.out, machine, rows)


def _main_pipelines(args):
    machine = describe_device(torch.device('cpu'))
    print(f'{machine}\n')
    rows = run_pipelines(args.pipelines, args.data, args.rounds, args.calls or PIPELINE_CALLS)
    print(format_pipeline_table(rows, TARGET_RATIO) + '\n', flush=True)
    _write(args.out, machine, rows, target_ratio=TARGET_RATIO)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f'must be a positive integer, got {text}')
    return value


def _config_specs(args):
    """--config's configs; with --mmcv-kernels each once per kernel set, named 'name[kernels]'."""
    if not args.mmcv_kernels:
        return args.config
    return [
        dict(config=c, name=f'{name}[{kernels}]', kernels=kernels)
        for c, name in zip(args.config, config_names(args.config))
        for kernels in args.mmcv_kernels
    ]


def _main_configs(args):
    device = torch.device(args.device)
    machine = describe_device(device)
    print(f'{machine}, torch {torch.__version__}\n')
    result = run_configs(
        _config_specs(args),
        device,
        args.rounds,
        args.warmup,
        args.batch,
        args.cfg_options,
        args.mode or 'training',
        baseline=args.baseline,
    )
    print(format_config_table(result) + '\n', flush=True)
    _write(args.out, machine, [result])


def _write(path, machine, results, **extra):
    report = dict(
        command=' '.join(sys.argv),
        machine=machine,
        torch=torch.__version__,
        threads=torch.get_num_threads(),
        results=results,
        **extra,
    )
    atomic_write_bytes(json.dumps(report, indent=1).encode(), path)
    print(f'wrote {path}')


if __name__ == '__main__':
    main()
