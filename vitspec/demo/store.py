"""Complete or absent: a dataset is written into a hidden temporary folder and renamed into place
with a `.complete` marker (seed, counts, generator version); a run that finds a matching marker
keeps the dataset."""

import json
import os
import shutil
import time
from pathlib import Path

from .catalog import DATA_ROOTS, DATASETS, GENERATOR_VERSION
from .progress import make_progress
from .writers import WRITERS

MARKER = '.complete'


def marker_content(seed, counts):
    return {
        'generator': 'vitspec tools/make_demo_data.py',
        'version': GENERATOR_VERSION,
        'seed': seed,
        'num_train': counts['train'],
        'num_val': counts['val'],
    }


def read_marker(directory):
    try:
        return json.loads((directory / MARKER).read_text())
    except (OSError, ValueError):
        return None


def remove_abandoned_partials(out, name):
    """Delete temporary folders left by killed runs (their process no longer exists)."""
    for partial in (*out.glob(f'.{name}.partial-*'), *out.glob(f'.{name}.old-*')):
        pid = partial.name.rsplit('-', 1)[-1]
        if pid.isdigit() and not _process_alive(int(pid)):
            shutil.rmtree(partial, ignore_errors=True)


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_dataset(out, name, counts, seed, force=False):
    """Write out/name unless it holds a matching marker; returns 'kept' or 'written'."""
    target = out / name
    wanted = marker_content(seed, counts)
    if read_marker(target) == wanted:
        return 'kept'
    if target.exists() and read_marker(target) is None and not force:
        raise SystemExit(
            f'{target} exists but was not completed by this tool (no {MARKER}); '
            'remove it or pass --force'
        )
    out.mkdir(parents=True, exist_ok=True)
    remove_abandoned_partials(out, name)
    partial = out / f'.{name}.partial-{os.getpid()}'
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        with make_progress(counts['train'] + counts['val'], name) as progress:
            WRITERS[name](partial, counts, seed, progress)
        (partial / MARKER).write_text(json.dumps(wanted, indent=1) + '\n')
        _move_into_place(partial, target)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return 'written'


def _move_into_place(partial, target):
    if target.exists():
        old = target.with_name(f'.{target.name}.old-{os.getpid()}')
        os.rename(target, old)
        os.rename(partial, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(partial, target)


def write_datasets(out, names, seed=0, num_train=None, num_val=None, force=False):
    """Write each dataset of ``names`` under ``out`` (its catalog's image counts unless
    ``num_train`` / ``num_val`` are given), a line per dataset on stdout."""
    out = Path(out).resolve()
    for name in dict.fromkeys(names):
        spec = DATASETS[name]
        counts = {
            'train': spec.num_train if num_train is None else num_train,
            'val': spec.num_val if num_val is None else num_val,
        }
        started = time.perf_counter()
        outcome = write_dataset(out, name, counts, seed, force)
        what = (
            'already complete, kept'
            if outcome == 'kept'
            else f'wrote in {time.perf_counter() - started:.1f} s'
        )
        print(
            f'{name:<10} {counts["train"]:>4} train + {counts["val"]:>3} val images '
            f'(seed {seed}), {what}: {out / DATA_ROOTS[name]}',
            flush=True,
        )
