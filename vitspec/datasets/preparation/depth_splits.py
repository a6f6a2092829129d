"""Split lists of the depth datasets, and the image / depth-map pairs they name.

NYU-Depth v2 and KITTI have no split folders: BTS (cleinc/bts ``train_test_inputs/``) fixed the
Eigen splits as lists of ``<image> <depth> <focal>`` lines, paths relative to the dataset's roots
(``None`` as the depth of a KITTI frame without ground truth), and the Toolbox and DINOv2 read
the same lists. A preparation takes the lists the user has (``--split-file [SPLIT=]FILE``, or a
list of a known name in SRC), finds each line's files in SRC, checks every pair as a run would
read it (``file_checks.check_sample``: decodable, sizes equal, depth in its unit) and links the
good pairs into the layout the configs read. A line whose file is missing or bad is refused with
the list's name and line number, so the summary names every pair that did not make it.

The lists are not shipped (BTS's are GPL-3.0); their SHA-256 over the normalized lines is, so
the summary says whether a list is the standard one or differs from it.
"""

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from vitspec.errors import ConfigError, DataFileError

from ..file_checks import SampleChecks, check_sample
from .output_tree import OutputTree

NO_DEPTH = 'None'  # BTS's depth field of a frame without ground truth
# Decoding is most of the work (cv2 and pillow release the GIL while they decode).
MAX_THREADS = 8


@dataclass(frozen=True)
class SplitLine:
    """One line of a split list: ``where`` names it (``nyu_test.txt:3``), paths are relative
    and without the leading slash some lists carry; ``depth`` is None for BTS's ``None``."""

    where: str
    image: str
    depth: Optional[str]
    focal: str

    @property
    def text(self) -> str:
        return f'{self.image} {self.depth or NO_DEPTH} {self.focal}'


@dataclass(frozen=True)
class Pair:
    """A line whose files were found: the SRC files and where they go below the output."""

    line: SplitLine
    image: Path
    depth: Path
    out_image: str
    out_depth: str


def read_split_list(path: Path) -> List[SplitLine]:
    """The lines of a BTS-style split list; DataFileError naming the file and line for a line
    that is not ``<image> <depth> <focal>``."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError(f'cannot read split list {path}: {exc}') from exc
    lines = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        fields = raw.split()
        if not fields:
            continue
        where = f'{Path(path).name}:{lineno}'
        if len(fields) != 3:
            raise DataFileError(
                f'{path}:{lineno}: a split list line is "<image> <depth> <focal>", got {raw!r}'
            )
        image, depth, focal = fields
        depth = None if depth == NO_DEPTH else depth.lstrip('/')
        lines.append(SplitLine(where, image.lstrip('/'), depth, focal))
    if not lines:
        raise DataFileError(f'split list {path} names no sample')
    return lines


def list_digest(lines: Iterable[SplitLine]) -> str:
    """SHA-256 of the image and depth paths in list order: the same for a list with or without
    leading slashes, a final newline or other focal digits."""
    text = '\n'.join(f'{line.image} {line.depth or NO_DEPTH}' for line in lines)
    return hashlib.sha256(text.encode()).hexdigest()


def split_file_args(values: Sequence, splits: Sequence[str]) -> Dict[str, Path]:
    """``--split-file`` values, ``SPLIT=FILE`` or ``FILE`` whose name holds exactly one split
    name (``nyu_test.txt``), as ``{split: path}``; ConfigError naming a value that fits none."""
    chosen: Dict[str, Path] = {}
    for value in values or ():
        text = os.fspath(value)
        split, sep, path = text.partition('=')
        if not sep or split not in splits:
            named = [s for s in splits if s in Path(text).name]
            if len(named) != 1:
                raise ConfigError(
                    f'--split-file {text}: write it as SPLIT=FILE with SPLIT one of '
                    f'{", ".join(splits)} (the file name names {len(named)} of them)'
                )
            split, path = named[0], text
        if split in chosen:
            raise ConfigError(f'--split-file names two lists for {split}: {chosen[split]}, {path}')
        path = Path(path)
        if not path.is_file():
            raise DataFileError(f'--split-file {text}: {path} is not a file')
        chosen[split] = path
    return chosen


def find_split_lists(
    src: Path, given: Mapping[str, Path], names: Mapping[str, Sequence[str]],
    folders: Sequence[str] = ('',),
) -> Tuple[Dict[str, Path], List[str]]:  # fmt: skip
    """``({split: list}, notes)``: the list given for a split, else the first of its ``names``
    found in one of ``folders`` of SRC. A split without one is named in a note; no list at all
    is a DataFileError saying where they were looked for."""
    found, notes = {}, []
    for split, candidates in names.items():
        if split in given:
            found[split] = Path(given[split])
            continue
        paths = [src / folder / name for folder in folders for name in candidates]
        hit = next((p for p in paths if p.is_file()), None)
        if hit is None:
            notes.append(
                f'{split}: no split list (looked for {", ".join(candidates)} in '
                f'{", ".join(str(src / f) for f in folders)}): pass --split-file {split}=FILE'
            )
        else:
            found[split] = hit
    if not found:
        raise DataFileError('no split list found:\n  ' + '\n  '.join(notes))
    return found, notes


def locate(src: Path, roots: Sequence[str], rel: str) -> Optional[Path]:
    """The first ``src/root/rel`` that is a file, None when none is."""
    return next((src / root / rel for root in roots if (src / root / rel).is_file()), None)


def link_pairs(tree: OutputTree, pairs: Sequence[Pair], checks: SampleChecks, desc: str) -> list:
    """Check each pair (both files decoded and judged as a run would) and link the good ones;
    a bad pair is refused naming its list line. A pair already linked here is not decoded
    again, so a second run writes and reads nothing. Returns the pairs linked or kept."""
    todo = [i for i, p in enumerate(pairs) if not _linked(tree, p)]
    errors: Dict[int, str] = {}
    threads = max(1, min(MAX_THREADS, os.cpu_count() or 1, len(todo)))
    with ThreadPoolExecutor(threads) as pool:
        results = pool.map(lambda i: _check(pairs[i], checks), todo)
        for k, error in enumerate(tree.progress(results, f'{desc}: check', len(todo))):
            if error:
                errors[todo[k]] = error
    good = []
    for i, pair in enumerate(tree.progress(pairs, f'{desc}: link')):
        if i in errors:
            tree.refuse(pair.image, f'{pair.line.where} ({pair.line.text}): {errors[i]}')
            continue
        tree.link(pair.out_image, pair.image)
        tree.link(pair.out_depth, pair.depth)
        good.append(pair)
    return good


def _check(pair: Pair, checks: SampleChecks) -> Optional[str]:
    try:
        check_sample(dict(img_path=str(pair.image), depth_map_path=str(pair.depth)), checks)
    except DataFileError as exc:
        return str(exc)
    return None


def _linked(tree: OutputTree, pair: Pair) -> bool:
    return all(
        dst.is_symlink() and dst.exists() and os.path.samefile(dst, target)
        for dst, target in ((tree.path(pair.out_image), pair.image),
                            (tree.path(pair.out_depth), pair.depth))
    )  # fmt: skip


def describe_list(split: str, path: Path, lines: Sequence[SplitLine], standard: Mapping) -> str:
    """A summary line: the list used, its size, and whether it is the standard list."""
    name = standard.get(list_digest(lines))
    kind = f'the standard list ({name})' if name else 'not a standard list known here'
    return f'{split}: {path} ({len(lines)} lines): {kind}'
