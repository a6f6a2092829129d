"""Samples checked once: a sample whose files are unchanged since their check is not read again.

A sample is known by ``sample_key``: a digest of the path, size and modification time (ns) of
every file it reads, the per-sample values the checks compare with (the annotation's width and
height, ``reduce_zero_label``, the panoptic segment ids) and the checks' own settings
(``SampleChecks.key``). A file rewritten, or the same file under other checks, gives another key
and is checked again (by the next run: within a run, ``CheckSampleFiles`` takes a sample it
passed by its paths alone).

Keys live in a set in each process (the pipeline's, one per data-loader worker) and, for a whole
dataset checked before a run, in a record file of one key a line: ``write_record`` (the data
check) and ``load_record`` (the pipeline, when it starts). Its default place depends on the
checks only: ``$VITSPEC_CACHE/checked_samples/<checks.key()>.txt``, ``VITSPEC_CACHE`` defaulting
to ``~/.cache/vitspec``.
"""

import hashlib
import os
from pathlib import Path
from typing import Iterable, Optional, Set

from vitspec.fileio.atomic_write import atomic_write_bytes

from .file_checks import SampleChecks, sample_files

CACHE_ENV = 'VITSPEC_CACHE'
DEFAULT_CACHE = '~/.cache/vitspec'
RECORD_FOLDER = 'checked_samples'


def sample_key(info: dict, checks: SampleChecks) -> Optional[str]:
    """The key of ``info`` under ``checks``; None when a file cannot be stat'ed (missing, or
    not on a local disk: such a sample is checked on every read, and the check names the file)."""
    parts = [checks.key()]
    for path in sample_files(info):
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        parts.append(f'{path}\0{st.st_size}\0{st.st_mtime_ns}')
    parts.append(repr((info.get('width'), info.get('height'), info.get('reduce_zero_label'))))
    segments = info.get('segments_info')
    if segments is not None:
        parts.append(repr([s.get('id') for s in segments]))
    return hashlib.sha1('\n'.join(parts).encode()).hexdigest()


def default_record_path(checks: SampleChecks) -> Path:
    cache = os.environ.get(CACHE_ENV) or DEFAULT_CACHE
    return Path(cache).expanduser() / RECORD_FOLDER / f'{checks.key()}.txt'


def load_record(path) -> Set[str]:
    """The keys of the record at ``path``; an empty set when there is none."""
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return set()
    return {line for line in text.split() if line}


def write_record(path, keys: Iterable[str]) -> None:
    """Write ``keys`` (one a line, sorted) to ``path`` atomically, creating its folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = ''.join(f'{k}\n' for k in sorted(set(keys)))
    atomic_write_bytes(text.encode(), str(path))


class CheckedSamples:
    """The keys of the samples checked in this process, seeded from the record of ``checks``
    (``record``: its path; None for ``default_record_path``) when first asked."""

    def __init__(self, checks: SampleChecks, record=None):
        self.checks = checks
        self.record = Path(record) if record is not None else default_record_path(checks)
        self._keys: Optional[Set[str]] = None
        self._pid: Optional[int] = None

    @property
    def keys(self) -> Set[str]:
        # a data-loader worker forked after the first read starts from the parent's keys,
        # which are still true; reading the record again picks up a check run since
        if self._keys is None or self._pid != os.getpid():
            self._keys = (self._keys or set()) | load_record(self.record)
            self._pid = os.getpid()
        return self._keys

    def __contains__(self, key: Optional[str]) -> bool:
        return key is not None and key in self.keys

    def add(self, key: Optional[str]) -> None:
        if key is not None:
            self.keys.add(key)
