"""What the file checks cost the data pipeline once every sample has been checked: a config's
training pipeline against the same pipeline without ``CheckSampleFiles`` (and with mmseg's
``LoadDepthAnnotation`` for vitspec's depth loader), on the same files, in one process.

A warm-up pass reads every sample through both (it fills the checked set and the page cache);
then ``rounds`` rounds of ``calls`` samples each, the two pipelines in turn, their order swapped
from round to round, each round seeding numpy's random generator alike for both so the random
crops and resizes match. Reported: the median time per sample of each, and the median over
rounds of the ratio of the two times of the same round with its 95 % interval (``stats``). On a
busy host that ratio wanders by more than the checks cost, so the CheckSampleFiles step is also
timed alone on the same samples (``check_s``, its share of the plain time ``check_share``).
"""

import copy
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
from mmengine.registry import DATASETS, DefaultScope

from vitspec.config.load import load_config
from vitspec.errors import ConfigError

from .stats import median_interval, paired_ratio

CHECK = 'CheckSampleFiles'
TARGET_RATIO = 1.03  # steady state: at most 3 % over the plain pipeline


def _mmseg_depth_loader(step: dict) -> dict:
    return dict(type='LoadDepthAnnotation', depth_rescale_factor=1.0 / step['depth_scale'])


# vitspec's loaders -> mmseg's (vitspec's depth PNG loader: mmseg's, which reads the same metres)
PLAIN_LOADERS = {'LoadDepthPNG': _mmseg_depth_loader}


@dataclass(frozen=True)
class PipelineCase:
    """A config's training dataset pointed at real files in their native layout: ``folder``
    under the data directory, and the dataset options that find them there."""

    config: str
    folder: str
    dataset_options: dict


CASES: Dict[str, PipelineCase] = {
    'ade20k': PipelineCase(
        'vitspec::ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py',
        'ade20k/ADEChallengeData2016',
        dict(data_prefix=dict(img_path='images/validation', seg_map_path='annotations/validation')),
    ),
    'cityscapes': PipelineCase(
        'vitspec::cityscapes/linear_vit-s14-dinov2_bnhead_8xb2-40k_cityscapes-512x1024.py',
        'cityscapes',
        dict(data_prefix=dict(img_path='leftImg8bit/val', seg_map_path='gtFine/val')),
    ),
    'coco': PipelineCase(
        'vitspec::coco/mask-rcnn_vit-b16-mae_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py',
        'coco',
        dict(ann_file='annotations/instances_train2017.json', data_prefix=dict(img='train2017/')),
    ),
    'nyu': PipelineCase(
        'vitspec::nyu/lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
        'nyu',
        dict(data_prefix=dict(img_path='images', depth_map_path='annotations')),
    ),
}


def plain_pipeline(pipeline: List[dict]) -> List[dict]:
    """``pipeline`` without CheckSampleFiles, vitspec's loaders replaced by mmseg's."""
    steps = []
    for step in pipeline:
        kind = step.get('type')
        if kind == CHECK:
            continue
        steps.append(PLAIN_LOADERS[kind](step) if kind in PLAIN_LOADERS else copy.deepcopy(step))
    if len(steps) == len(pipeline):
        raise ConfigError(f'the pipeline has no {CHECK} to leave out: {pipeline}')
    return steps


def build_datasets(case: PipelineCase, data_dir) -> dict:
    """{'vitspec': dataset, 'plain': dataset} of the case's config and its files."""
    cfg = load_config(case.config)
    scope = cfg.get('default_scope', 'mmseg')
    dataset_cfg = copy.deepcopy(cfg.train_dataloader.dataset)
    dataset_cfg.update(data_root=str(Path(data_dir) / case.folder), **case.dataset_options)
    built = {}
    with DefaultScope.overwrite_default_scope(scope):
        for name, pipeline in (
            ('vitspec', dataset_cfg.pipeline),
            ('plain', plain_pipeline(dataset_cfg.pipeline)),
        ):
            built[name] = DATASETS.build(dict(dataset_cfg, pipeline=pipeline))
    if not len(built['vitspec']):
        raise ConfigError(f'no samples of {case.config} under {dataset_cfg.data_root}')
    return dict(datasets=built, scope=scope)


def _time_calls(dataset, calls: int, seed: int, timer) -> float:
    np.random.seed(seed)
    random.seed(seed)
    start = timer()
    for i in range(calls):
        dataset[i % len(dataset)]
    return (timer() - start) / calls


def _time_check_step(dataset, calls: int, timer) -> float:
    """Seconds per sample of the dataset's CheckSampleFiles alone, every sample checked."""
    (step,) = [t for t in dataset.pipeline.transforms if type(t).__name__ == CHECK]
    infos = [dataset.get_data_info(i) for i in range(len(dataset))]
    for info in infos:
        step(dict(info))
    start = timer()
    for i in range(calls):
        step(dict(infos[i % len(infos)]))
    return (timer() - start) / calls


def time_pipelines(
    case: PipelineCase,
    data_dir,
    rounds: int = 5,
    calls: int = 90,
    timer=time.perf_counter,
) -> dict:
    """Seconds per sample of the case's pipeline and the plain one; see the module docstring."""
    if rounds < 1 or calls < 1:
        raise ConfigError(f'rounds and calls must be positive, got {rounds} and {calls}')
    built = build_datasets(case, data_dir)
    datasets, names = built['datasets'], ('vitspec', 'plain')
    times = {n: [] for n in names}
    with DefaultScope.overwrite_default_scope(built['scope']):
        for name in names:  # the warm-up: every sample checked, files in the page cache
            _time_calls(datasets[name], len(datasets[name]), 0, timer)
        for r in range(rounds):
            for name in names if r % 2 == 0 else names[::-1]:
                times[name].append(_time_calls(datasets[name], calls, r + 1, timer))
        check_s = _time_check_step(datasets['vitspec'], calls * 10, timer)
    ratio, low, high = paired_ratio(times['vitspec'], times['plain'])
    plain_s = median_interval(times['plain'])[0]
    return dict(
        config=case.config,
        samples=len(datasets['vitspec']),
        rounds=rounds,
        calls=calls,
        median_s={n: median_interval(times[n])[0] for n in names},
        times_s=times,
        ratio=ratio,
        ratio_interval=[low, high],
        check_s=check_s,
        check_share=check_s / plain_s,
    )


def run_pipelines(names, data_dir, rounds: int, calls: int, timer=time.perf_counter) -> list:
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise ConfigError(f'unknown pipelines {unknown}; choose from {sorted(CASES)}')
    return [dict(name=n, **time_pipelines(CASES[n], data_dir, rounds, calls, timer)) for n in names]


def format_pipeline_table(rows: list, target: Optional[float] = None) -> str:
    lines = [
        '| pipeline | samples | vitspec ms/sample | plain ms/sample | ratio (95 % interval) '
        '| CheckSampleFiles alone, ms (share of plain) |',
        '|---|---|---|---|---|---|',
    ]
    for r in rows:
        low, high = r['ratio_interval']
        lines.append(
            f'| {r["name"]} | {r["samples"]} | {r["median_s"]["vitspec"] * 1e3:.2f} | '
            f'{r["median_s"]["plain"] * 1e3:.2f} | {r["ratio"]:.3f} ({low:.3f}-{high:.3f}) | '
            f'{r["check_s"] * 1e3:.3f} ({r["check_share"]:.2%}) |'
        )
    if target is not None:
        over = [r['name'] for r in rows if r['ratio'] > target]
        lines.append(
            f'\ntarget ratio <= {target}: ' + (f'missed by {", ".join(over)}' if over else 'met')
        )
    return '\n'.join(lines)
