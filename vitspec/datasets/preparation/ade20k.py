"""ADE20K (the 150 classes of the SceneParsing challenge): a check of the layout only, since
``ADEChallengeData2016.zip`` unpacks into exactly the layout the configs read.

It counts the images and annotations of each split and names every image without an
annotation and every annotation without an image. The full ADE20K release (``ADE20K_2021_17_01``:
3688 classes in RGB-encoded ``*_seg.png``, per-image JSON) is another dataset, and is named so.
"""

from pathlib import Path
from typing import Dict

from vitspec.errors import DataFileError

from .output_tree import OutputTree
from .preparation import Preparation, require_folder

FOLDER = 'ADEChallengeData2016'
SPLITS = ('training', 'validation')
IMAGE, ANNOTATION = '.jpg', '.png'
NATIVE = """\
  ADEChallengeData2016/images/{training,validation}/ADE_{train,val}_<8 digits>.jpg
  ADEChallengeData2016/annotations/{training,validation}/ADE_{train,val}_<8 digits>.png
as ADEChallengeData2016.zip unpacks (SRC may be that folder or the one holding it)"""
FULL_FORMAT = (
    'is the full ADE20K release (ADE20K_2021_17_01: 3688 classes in RGB-encoded *_seg.png, '
    'per-image JSON), a different dataset from the 150-class ADE20K of the SceneParsing '
    'challenge that the configs read: download ADEChallengeData2016.zip, which holds'
)


def challenge_root(src: Path) -> Path:
    """The ADEChallengeData2016 folder: SRC or the one in it; DataFileError for the full
    release or another layout."""
    if _is_full_format(src):
        raise DataFileError(f'{src} {FULL_FORMAT}:\n{NATIVE}')
    root = src / FOLDER if (src / FOLDER).is_dir() else src
    require_folder(root / 'images', src, NATIVE)
    require_folder(root / 'annotations', src, NATIVE)
    return root


def prepare(src: Path, tree: OutputTree) -> None:
    root = challenge_root(src)
    report = tree.report
    for split in SPLITS:
        images_dir, annotations_dir = root / 'images' / split, root / 'annotations' / split
        missing = [d for d in (images_dir, annotations_dir) if not d.is_dir()]
        if missing:
            report.note(
                f'{split}: {" and ".join(map(str, missing))} missing: configs that '
                f'{"train" if split == "training" else "validate"} on ADE20K read it'
            )
            continue
        images = _by_stem(images_dir, IMAGE)
        annotations = _by_stem(annotations_dir, ANNOTATION)
        for stem in sorted(set(images) - set(annotations)):
            report.problem(images[stem], f'no annotation {stem}{ANNOTATION} in {annotations_dir}')
        for stem in sorted(set(annotations) - set(images)):
            report.problem(annotations[stem], f'no image {stem}{IMAGE} in {images_dir}')
        report.note(
            f'{split}: {len(images)} images, {len(annotations)} annotations, '
            f'{len(set(images) & set(annotations))} pairs'
        )
    report.note(f'nothing written: the configs read {root} as it is (their data_root)')


def _by_stem(folder: Path, suffix: str) -> Dict[str, Path]:
    return {p.name[: -len(suffix)]: p for p in folder.iterdir() if p.name.endswith(suffix)}


def _is_full_format(src: Path) -> bool:
    near = [src, *src.glob('*'), *src.glob('*/*')]
    return (
        (src / 'index_ade20k.pkl').exists()
        or (src / 'images' / 'ADE').is_dir()
        or any(p.name.startswith('ADE20K_20') and p.is_dir() for p in near)
    )


PREPARATION = Preparation(
    name='ade20k',
    default_out='data/ade/ADEChallengeData2016',
    native=NATIVE,
    prepare=prepare,
    writes=False,
)
