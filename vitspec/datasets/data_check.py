"""The data check before a run: every sample a config's datasets will read, checked up front.

Each split's dataset is built from the config as the run builds it (annotation files parsed,
COCO's annotation-level checks included), and every sample goes through ``check_sample``, the
function the pipeline's ``CheckSampleFiles`` runs on a sample's first read, with the settings of
that transform in the split's pipeline. Samples are checked in parallel worker processes and
every bad one is kept with its reason: the report lists them all, not the first. The keys of the
samples that passed go into the check record (``check_record``), so the run does not read them
a second time to check them.
"""

import logging
import multiprocessing
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
from mmengine.config import Config, ConfigDict
from mmengine.logging import MMLogger
from mmengine.registry import DATASETS, TRANSFORMS, DefaultScope
from tqdm import tqdm

from vitspec.errors import ConfigError, DataFileError

from .check_record import load_record, sample_key, write_record
from .file_checks import SampleChecks, check_sample, sample_files

SPLITS = ('train', 'val', 'test')
CHECK_TRANSFORM = 'CheckSampleFiles'
# Samples handed to a worker at a time: few enough that the progress bar moves and the workers
# end together, many enough that passing them costs little against reading their files.
MAX_CHUNK = 32


@dataclass
class BadSample:
    """A sample that failed its check: its files and why (the message names the file)."""

    files: List[str]
    reason: str


@dataclass
class SplitReport:
    """What the check of one split found."""

    split: str
    datasets: List[str] = field(default_factory=list)  # 'TYPE at DATA_ROOT', one per leaf
    samples: int = 0
    ok: int = 0
    bad: List[BadSample] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)  # a dataset that could not be built
    # logged while a dataset parsed its annotations: what it drops and trains without
    warnings: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    seconds: float = 0.0
    classes: Tuple[str, ...] = ()
    counts: Optional[np.ndarray] = None  # per class: pixels, or instances (``unit``)
    unit: str = 'pixels'
    records: List[str] = field(default_factory=list)  # check records written
    same_as: Optional[str] = None  # the split whose dataset this one is (not walked again)

    @property
    def clean(self) -> bool:
        return not self.bad and not self.errors

    def to_dict(self) -> dict:
        histogram = None
        if self.counts is not None:
            names = class_names(self.classes, len(self.counts))
            histogram = {name: int(n) for name, n in zip(names, self.counts)}
        return dict(
            split=self.split,
            same_as=self.same_as,
            datasets=self.datasets,
            samples=self.samples,
            ok=self.ok,
            bad=[dict(files=b.files, reason=b.reason) for b in self.bad],
            errors=self.errors,
            warnings=self.warnings,
            notes=self.notes,
            seconds=round(self.seconds, 3),
            unit=self.unit,
            histogram=histogram,
            records=self.records,
        )


@dataclass
class DataReport:
    splits: List[SplitReport]

    @property
    def clean(self) -> bool:
        return all(s.clean for s in self.splits)

    def to_dict(self) -> dict:
        return dict(clean=self.clean, splits=[s.to_dict() for s in self.splits])


def split_datasets(cfg: Config, splits: Optional[Sequence[str]] = None) -> Dict[str, object]:
    """``{split: its dataset config, or the name of an earlier split with the same dataset}``
    for the requested ``splits`` (default: every split the config has). ConfigError for a
    split the config does not have."""
    present = [s for s in SPLITS if cfg.get(f'{s}_dataloader')]
    for split in splits or ():
        if split not in present:
            raise ConfigError(
                f'the config has no {split}_dataloader (its splits: {", ".join(present) or "none"})'
            )
    chosen: Dict[str, object] = {}
    for split in [s for s in SPLITS if s in (splits or present)]:
        dataset = cfg[f'{split}_dataloader'].dataset
        earlier = [s for s, d in chosen.items() if isinstance(d, dict) and d == dataset]
        chosen[split] = earlier[0] if earlier else dataset
    return chosen


def leaf_datasets(dataset_cfg: dict) -> Iterator[dict]:
    """The datasets that read files, inside wrappers (ConcatDataset's ``datasets``,
    RepeatDataset's and ClassBalancedDataset's ``dataset``)."""
    if isinstance(dataset_cfg.get('datasets'), (list, tuple)):
        for sub in dataset_cfg['datasets']:
            yield from leaf_datasets(sub)
    elif isinstance(dataset_cfg.get('dataset'), dict):
        yield from leaf_datasets(dataset_cfg['dataset'])
    else:
        yield dataset_cfg


def find_check_transform(pipeline) -> Optional[dict]:
    """The ``CheckSampleFiles`` step of a pipeline (also inside TestTimeAug's transforms)."""
    for step in pipeline or ():
        if isinstance(step, (list, tuple)):
            found = find_check_transform(step)
        elif isinstance(step, dict):
            kind = step.get('type')
            if isinstance(kind, str) and kind.split('.')[-1] == CHECK_TRANSFORM:
                return step
            found = find_check_transform(step.get('transforms'))
        else:
            found = None
        if found is not None:
            return found
    return None


def class_names(classes: Sequence[str], n: int) -> List[str]:
    names = [str(c).strip() for c in classes][:n]
    return names + [f'class {i}' for i in range(len(names), n)]


def check_chunk(task) -> List[tuple]:
    """Worker: check ``items`` [(index, info)] under ``checks``. Returns per sample (index, key
    or None, per-class counts or None, reason or None)."""
    checks, num_classes, items = task
    results = []
    for index, info in items:
        key = sample_key(info, checks)
        try:
            stats = check_sample(info, checks)
        except DataFileError as exc:
            results.append((index, None, None, str(exc)))
            continue
        except Exception as exc:  # a failure the checks do not name: keep it, and the sample
            results.append((index, None, None, f'{info.get("img_path")}: {exc!r}'))
            continue
        counts = stats.class_pixels
        if counts is None and info.get('instances') is not None and num_classes:
            counts = instance_counts(info['instances'], num_classes)
        results.append((index, key, counts, None))
    return results


def instance_counts(instances: List[dict], num_classes: int) -> np.ndarray:
    """Instances per class of a sample whose checks count none (COCO panoptic's)."""
    labels = [i.get('bbox_label', -1) for i in instances]
    labels = [v for v in labels if 0 <= v < num_classes]
    return np.bincount(np.asarray(labels, np.int64), minlength=num_classes)


def chunks(items: list, jobs: int) -> List[list]:
    size = max(1, min(MAX_CHUNK, len(items) // (4 * max(jobs, 1)) or 1))
    return [items[i : i + size] for i in range(0, len(items), size)]


def run_checks(
    infos: List[dict], checks: SampleChecks, num_classes: int, jobs: int, desc: str,
    progress: bool = True,
) -> List[tuple]:  # fmt: skip
    """``check_chunk`` over every sample, in ``jobs`` processes, results in sample order."""
    tasks = [(checks, num_classes, c) for c in chunks(list(enumerate(infos)), jobs)]
    results = []
    with tqdm(
        total=len(infos), desc=desc, unit='sample', disable=not progress, file=sys.stderr
    ) as bar:
        if jobs <= 1 or len(tasks) <= 1:
            done = map(check_chunk, tasks)
            for part in done:
                results.extend(part)
                bar.update(len(part))
        else:
            # fork: the workers start at once from this process's imports, and read files only
            context = multiprocessing.get_context('fork')
            with context.Pool(min(jobs, len(tasks))) as pool:
                for part in pool.imap_unordered(check_chunk, tasks):
                    results.extend(part)
                    bar.update(len(part))
    return sorted(results, key=lambda r: r[0])


def build_dataset(dataset_cfg: dict, scope: str):
    """The dataset of ``dataset_cfg`` as the run builds it (its pipeline built, not run: the
    COCO dataset checks polygons only when the pipeline loads masks), and the warnings logged
    while it parsed its annotations (annotations it drops, with their images)."""
    cfg = ConfigDict(dataset_cfg)
    cfg.serialize_data = False
    cfg.lazy_init = False
    with DefaultScope.overwrite_default_scope(scope), logged_warnings() as warnings:
        dataset = DATASETS.build(cfg)
    return dataset, warnings


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def logged_warnings() -> Iterator[List[str]]:
    """The warnings logged inside to mmengine's current logger, where datasets log."""
    logger = MMLogger.get_current_instance()
    handler = _Collect()
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def checks_of(dataset_cfg: dict, scope: str) -> Tuple[Optional[SampleChecks], Optional[str]]:
    """The settings and record path of the split pipeline's CheckSampleFiles, as the run
    builds it; (None, None) when the pipeline has none."""
    step = find_check_transform(dataset_cfg.get('pipeline'))
    if step is None:
        return None, None
    with DefaultScope.overwrite_default_scope(scope):
        transform = TRANSFORMS.build(ConfigDict(step))
    return transform.checks, str(transform.checked.record)


def describe(dataset_cfg: dict) -> str:
    return f'{dataset_cfg.get("type")} at {dataset_cfg.get("data_root") or "."}'


def check_split(
    split: str, dataset_cfg: dict, scope: str, jobs: int, progress: bool = True,
    write: bool = True,
) -> SplitReport:  # fmt: skip
    """Check every sample of one split (see the module docstring)."""
    report = SplitReport(split)
    start = time.perf_counter()
    for leaf in leaf_datasets(dataset_cfg):
        check_leaf(report, leaf, scope, jobs, progress, write)
    report.seconds = time.perf_counter() - start
    return report


def check_leaf(report: SplitReport, leaf: dict, scope: str, jobs: int, progress, write) -> None:
    name = describe(leaf)
    report.datasets.append(name)
    try:
        dataset, warnings = build_dataset(leaf, scope)
    except (DataFileError, OSError, AssertionError) as exc:  # mmseg asserts its ann_file exists
        report.errors.append(f'{name}: {exc}')
        return
    report.warnings += warnings
    infos = [dataset.get_data_info(i) for i in range(len(dataset))]
    if not infos:
        report.errors.append(f'{name}: no samples found')
        return
    classes = tuple(dataset.metainfo.get('classes') or ())
    report.classes = report.classes or classes
    checks, record = checks_of(leaf, scope)
    if checks is None:
        report.notes.append(
            f'{name}: its pipeline has no {CHECK_TRANSFORM}, so the run checks nothing; '
            'checked here with the default settings (images only, label values unchecked)'
        )
        checks, write = SampleChecks(), False
    labels = infos[0].get('seg_map_path') and checks.num_classes
    report.unit = 'pixels' if labels else 'instances'
    results = run_checks(infos, checks, len(classes), jobs, report.split, progress)
    passed = []
    for index, key, counts, reason in results:
        if reason is not None:
            report.bad.append(BadSample(sample_files(infos[index]), reason))
            continue
        if key is not None:
            passed.append(key)
        if counts is not None:
            report.counts = add_counts(report.counts, counts)
    if report.counts is not None and len(report.counts) < len(classes):
        report.counts = np.pad(report.counts, (0, len(classes) - len(report.counts)))
    report.samples += len(infos)
    report.ok += len(infos) - sum(r[3] is not None for r in results)
    if write and passed:
        write_record(record, load_record(record) | set(passed))
        if record not in report.records:
            report.records.append(record)


def add_counts(total: Optional[np.ndarray], counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, np.int64)
    if total is None:
        return counts.copy()
    if len(counts) > len(total):
        total = np.pad(total, (0, len(counts) - len(total)))
    total[: len(counts)] += counts
    return total


def check_data(
    cfg: Config, splits: Optional[Sequence[str]] = None, jobs: Optional[int] = None,
    progress: bool = True, write_records: bool = True,
) -> DataReport:  # fmt: skip
    """Check every sample of the requested ``splits`` of ``cfg`` (default: all it has) in
    ``jobs`` processes (default: one per CPU); write the check record of the samples that
    passed. Returns the report; nothing is raised for bad files."""
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise ConfigError(f'jobs must be at least 1, got {jobs}')
    scope = cfg.get('default_scope') or 'mmseg'
    reports = []
    for split, dataset in split_datasets(cfg, splits).items():
        if isinstance(dataset, str):
            reports.append(SplitReport(split, same_as=dataset))
        else:
            reports.append(check_split(split, dataset, scope, jobs, progress, write_records))
    return DataReport(reports)


def format_histogram(report: SplitReport, width: int = 100) -> List[str]:
    if report.counts is None:
        return []
    names = class_names(report.classes, max(len(report.classes), len(report.counts)))
    counts = np.zeros(len(names), np.int64)
    counts[: len(report.counts)] = report.counts
    total = int(counts.sum())
    order = sorted(range(len(names)), key=lambda i: (-counts[i], i))
    seen = [i for i in order if counts[i]]
    if report.unit == 'pixels':
        head = f'  classes, share of the {total} labelled pixels:'
        cells = [f'{names[i]} {100 * counts[i] / total:.2f}%' for i in seen]
    else:
        head = f'  classes, instances ({total} in all):'
        cells = [f'{names[i]} {counts[i]}' for i in seen]
    unseen = [names[i] for i in order if not counts[i]]
    lines = [head, *wrap_cells(cells, width)]
    if unseen:
        lines += [f'  never seen ({len(unseen)}):', *wrap_cells(unseen, width)]
    return lines


def wrap_cells(cells: List[str], width: int, indent: str = '    ') -> List[str]:
    """``cells`` joined by commas into lines of at most ``width``, no cell split."""
    lines, line = [], ''
    for cell in cells:
        if line and len(indent) + len(line) + len(cell) + 2 > width:
            lines.append(f'{indent}{line},')
            line = ''
        line = f'{line}, {cell}' if line else cell
    return [*lines, f'{indent}{line}'] if line else lines


def format_report(report: DataReport) -> str:
    lines = []
    for split in report.splits:
        if split.same_as:
            lines.append(f'{split.split}: the same dataset as {split.same_as}, not walked again')
            continue
        bad = len(split.bad) + len(split.errors)
        lines.append(
            f'{split.split}: {split.samples} samples, {split.ok} ok, {len(split.bad)} bad'
            f'{f", {len(split.errors)} datasets not read" if split.errors else ""}, '
            f'{split.seconds:.1f} s ({"; ".join(split.datasets)})'
        )
        lines += [f'  note: {n}' for n in split.notes]
        lines += [f'  warning: {w}' for w in split.warnings]
        lines += format_histogram(split)
        if bad:
            lines.append(f'  bad ({bad}):')
            lines += [f'    {e}' for e in split.errors]
            lines += [f'    {b.reason}' for b in split.bad]
        for record in split.records:
            lines.append(f'  check record of the samples that passed: {record}')
    verdict = 'all samples passed' if report.clean else 'bad files found: fix them before the run'
    return '\n'.join([*lines, verdict]) + '\n'
