"""Finished runs against the ledger rows of their config (tools/reproductions.py --compare).

A work dir is matched to rows by the config mmengine dumped into it (<work_dir>/<config name>.py,
the same file name as the row's config), and that dump is checked against the row's protocol
fields; its measured value is read from the run's final metrics (final_metrics.py), never typed.
Whatever cannot be compared (no dump, no row, no final metrics, a metric not logged, a protocol
field that differs, data or a split other than the row's) is named below the table.

A run is the row's only if it was trained and evaluated on the row's data: the dataset of the
loader its metric came from (``test_dataloader`` for a tools/test.py result, ``val_dataloader``
for the validation at the end of training) and that of its ``train_dataloader`` must be those of
the row's config, their folders (``data_root``), files and subsets (``indices``, ``ann_file``,
``data_prefix``, ...) alike; the pipelines are the protocol's (checked by the row's fields).
The training data is read from the config of the training run: the dump for a validation at the
end of training; for a tools/test.py result, the config mmengine recorded for the newest training
run of the same work dir (<timestamp>/vis_data/config.py). A tools/test.py result in a work dir
without a training run (a released head) has no training data here to compare.
"""

import math
from pathlib import Path

from mmengine.config import Config

from vitspec.config.location import config_dir
from vitspec.config.saved import differences
from vitspec.errors import NoFinalMetrics
from vitspec.ledger.metrics import LEDGER_METRICS, measured
from vitspec.ledger.rows import NOT_FOUND, check_row
from vitspec.runs.final_metrics import final_metrics
from vitspec.runs.logs import NOT_METRICS, is_validation, read_records, scalar_files
from vitspec.runs.table import decimals

# keys of a dataset dict that do not change which samples it gives
NOT_DATA = frozenset({'pipeline', 'backend_args', 'serialize_data', 'lazy_init', 'max_refetch'})
FEW = 6

HEADER = ('run', 'row', 'metric', 'published', 'measured', 'difference', 'read from')


def config_dumps(work_dir: Path) -> list:
    """The configs mmengine's Runner dumped into ``work_dir`` (<config name>.py)."""
    return sorted(p for p in Path(work_dir).glob('*.py') if p.is_file())


def compare(ledger: dict, work_dirs, root: Path = None) -> tuple:
    """(text, every run compared): the table of published, measured and measured - published
    for each row a run matches, then one line for each thing that could not be compared.
    ``root``: the checkout whose configs the rows name (default: the one of config_dir())."""
    table, problems = [HEADER], []
    root = Path(root or config_dir().parent)
    for work_dir in map(Path, work_dirs):
        lines, missing = _compare_run(ledger, work_dir, root)
        table += lines
        problems += missing
    text = _aligned(table) if len(table) > 1 else 'no run matched a ledger row'
    return '\n'.join([text, *problems]), not problems


def _compare_run(ledger: dict, work_dir: Path, root: Path) -> tuple:
    if not work_dir.is_dir():
        return [], [f'{work_dir}: no such work dir']
    dumps = config_dumps(work_dir)
    if not dumps:
        return [], [
            f'{work_dir}: no config dump (<config name>.py, which the Runner of every training '
            'and tools/test.py run writes into its work dir)'
        ]
    lines, problems = [], []
    for dump in dumps:
        rows = [r for r in ledger['rows'] if Path(r['config']).name == dump.name]
        if not rows:
            problems.append(f'{work_dir}: its config {dump.name} is the config of no ledger row')
            continue
        cfg = Config.fromfile(dump)
        try:
            final = final_metrics(work_dir, cfg)
        except NoFinalMetrics as exc:
            problems.append(f'{exc} (rows {", ".join(r["id"] for r in rows)})')
            continue
        for row in rows:
            other_data = _other_data(root / row['config'], cfg, final.origin, work_dir)
            if other_data:
                problems.append(f'{work_dir}: {row["id"]}: not comparable: {other_data}')
                continue
            dumped = {**row, 'config': str(dump)}  # name the dump in what differs
            problems += [f'protocol differs: {p}' for p in check_row(ledger, dumped, cfg)]
            value = measured(row['metric'], final.metrics)
            if value is None:
                key = LEDGER_METRICS[row['metric']].key
                logged = ', '.join(k for k in final.metrics if k not in NOT_METRICS)
                problems.append(
                    f'{work_dir}: {row["id"]}: no {key!r} in the metrics of {final.origin} '
                    f'(logged: {logged})'
                )
                continue
            values = _values(row, value)
            lines.append((work_dir.name, row['id'], row['metric'], *values, final.origin))
    return lines, problems


def _other_data(path: Path, cfg: Config, origin: str, work_dir: Path) -> str:
    """Why the run was trained or evaluated on other data than the row's config (``path``);
    '' when the same (a ``data_root`` given another way that resolves to the same folder is the
    same), or when the row's config is not found (the ledger's own tests name such a row)."""
    if not path.is_file():
        return ''
    row_cfg = Config.fromfile(path)
    evaluated = 'test_dataloader' if origin.startswith('tools/test.py') else 'val_dataloader'
    trained = cfg if evaluated == 'val_dataloader' else _training_config(work_dir)
    checks = [('evaluated', evaluated, cfg)]
    if trained is not None:
        checks.append(('was trained on', 'train_dataloader', trained))
    for what, loader, run_cfg in checks:
        diffs = _data_differences(row_cfg.get(loader), run_cfg.get(loader), loader)
        if diffs:
            shown = '; '.join(f"{k} = {b!r}, the row's config: {a!r}" for k, a, b in diffs[:FEW])
            more = f'; ... and {len(diffs) - FEW} more' if len(diffs) > FEW else ''
            return (
                f'the run {what} other data or another split than the row ({shown}{more}); '
                f"its metric is not the row's. Run with the row's data and split (the data where "
                f'its config expects it, e.g. a link to your copy of the dataset, and no subset '
                f'options)'
            )
    return ''


def _data_differences(ours, theirs, loader: str) -> list:
    return [
        d
        for d in differences(_dataset(ours), _dataset(theirs), f'{loader}.dataset')
        if not NOT_DATA & set(d[0].split('.')) and not _same_folder(d)
    ]


def _training_config(work_dir: Path):
    """The config of the newest training run of ``work_dir`` (the one mmengine recorded in its
    <timestamp>/vis_data/config.py), or None when the work dir holds no training run."""
    for scalars in reversed(scalar_files(work_dir)):
        recorded = scalars.parent / 'config.py'
        trained = any(not is_validation(r) for r in read_records(scalars))
        if trained and recorded.is_file():
            return Config.fromfile(recorded)
    return None


def _same_folder(diff) -> bool:
    key, a, b = diff
    if not key.endswith('.data_root') or not isinstance(a, str) or not isinstance(b, str):
        return False
    return Path(a).resolve() == Path(b).resolve()


def _dataset(loader):
    return loader.get('dataset') if isinstance(loader, dict) else None


def _values(row: dict, value: float) -> tuple:
    """published, measured and their difference, with the decimals of four significant digits."""
    published = row['value']
    if published == NOT_FOUND:
        return NOT_FOUND, _fixed(value, value), '-'
    return (
        _fixed(published, published),
        _fixed(value, published),
        _signed(value - published, published),
    )


def _fixed(value: float, like: float) -> str:
    if value == 0 or like == 0 or not math.isfinite(value):
        return f'{value:g}'
    return f'{value:.{decimals(like)}f}'


def _signed(diff: float, like: float) -> str:
    text = _fixed(diff, like)
    return text if text.startswith('-') else f'+{text}'


def _aligned(rows: list) -> str:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join('  '.join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
