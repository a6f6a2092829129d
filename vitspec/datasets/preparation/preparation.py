"""One dataset's preparation: its name, where the configs read it, what its native layout is,
and the function that turns the one into the other."""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from vitspec.errors import DataFileError

from .output_tree import OutputTree


@dataclass(frozen=True)
class Preparation:
    name: str  # as tools/prepare_data.py's DATASET names it
    default_out: str  # the data_root of the dataset's configs (relative: to where runs start)
    native: str  # what SRC looks like, quoted when it does not
    prepare: Callable[[Path, OutputTree], None]
    writes: bool = True  # False: a layout check only, SRC is what the configs read
    # True: prepare also takes split_files, the --split-file values ([SPLIT=]FILE)
    split_lists: bool = False


def require_folder(folder: Path, src: Path, native: str) -> Path:
    """``folder`` (a folder of SRC), or DataFileError naming it and the native layout."""
    if not folder.is_dir():
        what = 'is not a folder' if folder.exists() else 'is missing'
        raise DataFileError(f'{folder} {what}; {src} should look like:\n{native}')
    return folder
