"""The folder a preparation writes into, one file at a time, so that running it again is safe.

Every output is written atomically (a temporary file renamed into place), so a run killed
midway leaves whole files and temporaries, which the next run removes and then goes on from
where it stopped. Before writing, an output already there is compared with what would be
written: the same (pixels of a label PNG, bytes of a text, the file a link points to) is kept
and counted as already there; a different one is refused and named unless ``overwrite``.

SRC is never changed. ``out`` may be SRC itself or a folder inside it (then files are only added
beside SRC's own: one of the same name that differs is refused even with ``overwrite``), but
nothing is written into SRC through a link when ``out`` is elsewhere.
"""

import io
import os
import secrets
from pathlib import Path
from typing import Callable, Iterable, Optional

import numpy as np
from PIL import Image
from tqdm import tqdm

from vitspec.fileio.atomic_write import atomic_write_bytes, remove_stale_temporaries

from .report import KEPT, LINKED, REPLACED, WRITTEN, PrepareReport


class OutputTree:
    """``out`` written for a preparation of ``src`` (module docstring); ``report`` records
    every file."""

    def __init__(
        self, src: Path, out: Path, overwrite: bool = False, progress: bool = True,
        report: Optional[PrepareReport] = None,
    ):  # fmt: skip
        self.src, self.out = Path(src), Path(out)
        self.overwrite, self.show_progress = overwrite, progress
        self.report = report if report is not None else PrepareReport()
        self._src_real = Path(os.path.realpath(self.src))
        self.out_in_src = self._in_src(self.out / 'x')
        self._cleaned = set()

    def path(self, rel) -> Path:
        return self.out / rel

    def progress(self, items: Iterable, desc: str, total: Optional[int] = None):
        return tqdm(items, desc=desc, total=total, unit='file', disable=not self.show_progress)

    def refuse(self, path: Path, reason: str) -> None:
        self.report.refuse(path, reason)

    def write_png(self, rel, label: np.ndarray) -> None:
        """A single-channel uint8 label map as a PNG; one with the same pixels is kept."""
        dst = self.path(rel)
        if self._settle(dst, lambda: _same_pixels(dst, label)):
            buffer = io.BytesIO()
            Image.fromarray(np.ascontiguousarray(label, dtype=np.uint8)).save(buffer, 'PNG')
            atomic_write_bytes(buffer.getvalue(), dst)

    def write_bytes(self, rel, data: bytes) -> None:
        dst = self.path(rel)
        if self._settle(dst, lambda: dst.is_file() and dst.read_bytes() == data):
            atomic_write_bytes(data, dst)

    def write_list(self, rel, names: Iterable[str]) -> None:
        """Names one a line, sorted; a file of the same names in any order is kept (as one
        written by another tool)."""
        dst, names = self.path(rel), sorted(set(names))
        text = ''.join(f'{n}\n' for n in names)
        if self._settle(dst, lambda: sorted(set(dst.read_text().split())) == names):
            atomic_write_bytes(text.encode(), dst)

    def link(self, rel, target: Path) -> None:
        """A symbolic link to ``target`` (absolute); the same file there already is kept (the
        file itself when ``out`` is SRC, a link to it, a copy with the same bytes)."""
        dst = self.path(rel)
        target = Path(os.path.abspath(target))
        if self._settle(dst, lambda: _same_file(dst, target), LINKED):
            tmp = dst.parent / f'.{dst.name}.{secrets.token_hex(4)}.tmp'
            os.symlink(target, tmp)
            os.replace(tmp, dst)

    def _settle(self, dst: Path, same: Callable[[], bool], action: str = WRITTEN) -> bool:
        """Whether to write ``dst``, recording what is done with it."""
        in_src = self._in_src(dst)
        if in_src and not self.out_in_src:
            self.refuse(dst, f'lies in SRC {self.src} (through a link): SRC is never written')
            return False
        exists = dst.exists() or dst.is_symlink()
        if exists and dst.is_dir():
            self.refuse(dst, 'is a folder where a file goes')
            return False
        if exists and same():
            self.report.add(KEPT, dst)
            return False
        if exists and in_src:
            self.refuse(
                dst,
                f'a file of SRC {self.src} that differs from what would be written: files of '
                'SRC are never changed; write to an --out outside SRC',
            )
            return False
        if exists and not self.overwrite:
            self.refuse(
                dst, 'exists and differs from what would be written: pass --overwrite to replace it'
            )
            return False
        self._prepare_folder(dst.parent)
        self.report.add(REPLACED if exists else action, dst)
        return True

    def _prepare_folder(self, folder: Path) -> None:
        if folder not in self._cleaned:
            folder.mkdir(parents=True, exist_ok=True)
            if not self._in_src(folder / 'x'):  # temporaries in SRC are left as they are
                remove_stale_temporaries(folder)
            self._cleaned.add(folder)

    def _in_src(self, path: Path) -> bool:
        real = Path(os.path.realpath(path.parent)) / path.name
        return real == self._src_real or self._src_real in real.parents


def _same_pixels(path: Path, label: np.ndarray) -> bool:
    try:
        with Image.open(path) as image:
            there = np.asarray(image)
    except (OSError, ValueError):
        return False
    return there.shape == label.shape and np.array_equal(there, label)


def _same_file(path: Path, target: Path) -> bool:
    if not path.exists():  # a broken link
        return False
    if os.path.samefile(path, target):
        return True
    return (
        path.is_file()
        and path.stat().st_size == target.stat().st_size
        and (path.read_bytes() == target.read_bytes())
    )
