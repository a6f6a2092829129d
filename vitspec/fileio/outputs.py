"""One output policy for every tool that writes files.

A tool declares each output argument with ``add_output`` (a file with its suffixes, or a
folder) and, once it knows its inputs and before any work, calls ``claim_outputs``. Every
output is then checked the same way, whatever the tool:

- an existing file, or a folder that holds files, is refused unless ``--overwrite``;
- an output that is also an input, or a folder output that holds an input, is refused even with
  ``--overwrite`` (predictions would replace the images they come from, and inputs read later
  would be the run's own outputs);
- a file output needs one of its suffixes (a plotting library would append its own, and the
  tool would print a name it did not write); one that names a folder is refused;
- a parent that is a file, or cannot be written, is refused; missing parents are created;
- two outputs of one run that are the same path are refused;
- a tree (a folder the tool fills file by file and checks each file itself: it keeps one already
  there that it would write the same, refuses one that differs without ``--overwrite``, and
  never changes a file of its inputs, as tools/prepare_data.py) may hold files and may be or
  hold an input; it is refused only where it is a file.

``claim_outputs`` returns the paths that will be written: the tool prints those.
"""

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Sequence

from vitspec.errors import OutputPathError

FILE, FOLDER, TREE = 'file', 'folder', 'tree'
OUTPUTS = '_outputs'  # the namespace attribute that carries a parser's output declarations
OVERWRITE = '--overwrite'


@dataclass(frozen=True)
class Output:
    dest: str  # the argparse destination
    flag: str  # as the user writes it: '--out', or a positional's name
    kind: str  # FILE, FOLDER or TREE
    suffixes: tuple = ()  # FILE: the suffixes it may have ('.png',); empty: any


def add_output(
    parser: argparse.ArgumentParser, flag: str, kind: str = FILE, suffixes: Sequence[str] = (),
    **kwargs,
) -> argparse.Action:  # fmt: skip
    """``parser.add_argument(flag, **kwargs)`` for an output path, and ``--overwrite`` (once).
    The declaration travels in the parsed namespace to ``claim_outputs``."""
    if kind not in (FILE, FOLDER, TREE):
        raise ValueError(f'kind must be {FILE!r}, {FOLDER!r} or {TREE!r}, got {kind!r}')
    action = parser.add_argument(flag, **kwargs)
    if not any(OVERWRITE in a.option_strings for a in parser._actions):
        parser.add_argument(OVERWRITE, action='store_true', help='replace existing output files')
    declared = parser.get_default(OUTPUTS) or ()
    output = Output(action.dest, flag, kind, tuple(s.lower() for s in suffixes))
    parser.set_defaults(**{OUTPUTS: (*declared, output)})
    return action


def claim_outputs(
    args: argparse.Namespace, inputs: Iterable = (), create: bool = True
) -> Dict[str, Path]:
    """Check every output declared with ``add_output`` that was given (see the module doc)
    against the files and folders ``inputs`` and each other, create their parent folders (and
    folder outputs; ``create=False``: the tool creates them once its model has loaded), and
    return ``{dest: path}``. Raises OutputPathError naming the flag."""
    declared = getattr(args, OUTPUTS, None)
    if declared is None:
        raise ValueError('claim_outputs needs a namespace parsed with add_output arguments')
    overwrite = bool(getattr(args, 'overwrite', False))
    inputs = [Path(p) for p in inputs]
    claimed: Dict[str, Path] = {}
    for output in declared:
        value = getattr(args, output.dest, None)
        if value is None:
            continue
        path = check_output(value, output.kind, output.suffixes, overwrite, inputs, output.flag)
        for dest, other in claimed.items():
            if _same(path, other):
                raise OutputPathError(f'{output.flag} {value} is also the output of {dest}')
        claimed[output.dest] = path
    for output in declared if create else ():
        if output.dest in claimed:
            _create(claimed[output.dest], output.kind)
    return claimed


def check_output(
    value, kind: str, suffixes: Sequence[str] = (), overwrite: bool = False,
    inputs: Sequence = (), flag: str = 'output',
) -> Path:  # fmt: skip
    """One output path checked by the policy of the module doc, nothing created yet."""
    path = Path(os.fspath(value)).expanduser()
    named = f'{flag} {value}'
    if kind == FILE:
        if path.is_dir():
            example = path / f'output{suffixes[0]}' if suffixes else path / 'output'
            raise OutputPathError(f'{named} is a folder: name a file in it, e.g. {example}')
        if suffixes and path.suffix.lower() not in suffixes:
            got = f'{path.suffix!r}' if path.suffix else 'no suffix'
            raise OutputPathError(
                f'{named}: name a {" or ".join(suffixes)} file (got {got}), e.g. '
                f'{path.with_suffix(suffixes[0])}'
            )
        if path.exists() and not overwrite:
            raise OutputPathError(
                f'{named} exists: choose another name, or pass {OVERWRITE} to replace it'
            )
    else:
        if path.exists() and not path.is_dir():
            raise OutputPathError(f'{named} exists and is a file, not a folder')
        if kind == TREE:
            _check_parent(path, named)
            return path
        if path.is_dir() and any(path.iterdir()) and not overwrite:
            raise OutputPathError(
                f'{named} is a folder that holds files: choose another, or pass {OVERWRITE} to '
                f'replace the files of the same names'
            )
    for source in inputs:
        if _same(path, source) or (kind == FOLDER and _inside(source, path)):
            what = 'is' if _same(path, source) else 'holds'
            raise OutputPathError(
                f'{named} {what} the input {source}: outputs never replace inputs; write elsewhere'
            )
    _check_parent(path, named)
    return path


def _check_parent(path: Path, named: str) -> None:
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputPathError(f'{named}: {ancestor} is a file, not a folder')
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputPathError(f'{named}: cannot write in {ancestor} (permission denied)')


def _create(path: Path, kind: str) -> None:
    (path if kind in (FOLDER, TREE) else path.parent).mkdir(parents=True, exist_ok=True)


def _same(a: Path, b: Path) -> bool:
    return _resolved(a) == _resolved(b)


def _inside(path: Path, folder: Path) -> bool:
    return _resolved(folder) in _resolved(path).parents


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))
