"""Preparing a dataset: from the layout its authors ship to the layout the configs read.

``tools/prepare_data.py DATASET SRC [--out DIR]`` looks DATASET up in ``DATASETS`` and runs its
``Preparation``. Each dataset is one module of this package with one ``PREPARATION``:

- ``name``: the name on the command line;
- ``default_out``: the ``data_root`` the dataset's configs read (``--out`` when not given);
- ``native``: what SRC looks like, a few lines quoted when SRC is not that;
- ``prepare(src: Path, tree: OutputTree) -> None``: reads SRC, never writes there, and writes
  every output through ``tree`` (``tree.write_png`` / ``write_bytes`` / ``write_list`` /
  ``link``), which writes atomically, keeps an output already there with the same content,
  refuses one that differs (unless ``--overwrite``; never a file of SRC), and records each in
  ``tree.report``. A file of SRC that cannot be used is ``tree.refuse(path, reason)``; an SRC
  without an expected folder raises DataFileError naming it (``require_folder``). A check-only
  dataset writes nothing and records what it found with ``tree.report.problem`` /
  ``tree.report.note``.

So a second run finds everything done and changes nothing, and an interrupted run resumes.
"""

from typing import Dict

from . import ade20k, cityscapes, coco_panoptic, kitti, nyu, voc
from .preparation import Preparation

DATASETS: Dict[str, Preparation] = {
    p.name: p
    for p in (
        cityscapes.PREPARATION,
        voc.PREPARATION,
        coco_panoptic.PREPARATION,
        ade20k.PREPARATION,
        nyu.PREPARATION,
        kitti.PREPARATION,
    )
}
