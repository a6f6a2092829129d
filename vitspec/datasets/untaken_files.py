"""The files in a dataset's local folders that it did not take as samples, and why.

mmseg lists a folder by suffix, case-sensitively: ``x.JPG`` next to ``*.jpg`` images is not a
sample, a folder named ``x.jpg`` is entered rather than read, a label without its image is never
loaded; mmdet's COCO reads only the images its annotation file lists. Nothing says so.
Folders on a remote backend are not walked, and neither are those of a dataset whose samples a
split file or ``indices`` select: there, leaving files out is the point.
"""

import logging
import os
import os.path as osp
from typing import Dict, Iterable, List, NamedTuple, Set, Tuple

from mmengine.fileio import LocalBackend, get_file_backend

LABEL_KEYS = ('seg_map_path', 'depth_map_path')


class Untaken(NamedTuple):
    """``names``: '<path relative to folder> (why)' for each file not taken."""

    level: int  # logging.WARNING for files that look meant as samples, INFO otherwise
    what: str
    folder: str
    names: List[str]


def walk(folder: str) -> Tuple[List[str], List[str]]:
    """(files, folders) below ``folder``, relative to it; hidden files are left out, as
    mmengine's listing leaves them out."""
    files, folders = [], []
    for root, dirs, names in os.walk(folder, followlinks=True):
        here = osp.relpath(root, folder)
        folders += [osp.normpath(osp.join(here, d)) for d in dirs]
        files += [osp.normpath(osp.join(here, n)) for n in names if not n.startswith('.')]
    return sorted(files), sorted(folders)


def is_local_folder(folder, backend_args=None) -> bool:
    if not folder:
        return False
    backend = get_file_backend(folder, backend_args=backend_args)
    return isinstance(backend, LocalBackend) and osp.isdir(folder)


def relative_set(paths: Iterable[str], folder: str) -> Set[str]:
    return {osp.normpath(osp.relpath(p, folder)) for p in paths if p}


def data_infos(dataset) -> List[dict]:
    return [dataset.get_data_info(i) for i in range(len(dataset))]


def label_key(dataset) -> str:
    prefix = getattr(dataset, 'data_prefix', None) or {}
    return next((k for k in LABEL_KEYS if prefix.get(k)), '')


def listed_by_folder(dataset) -> bool:
    """Whether the dataset took its samples from a folder listing (mmseg's BaseSegDataset and
    NYUDataset without a split file, no ``indices``)."""
    prefix = getattr(dataset, 'data_prefix', None) or {}
    ann_file = getattr(dataset, 'ann_file', '')
    return (
        bool(prefix.get('img_path'))
        and hasattr(dataset, 'img_suffix')
        and not (ann_file and osp.isfile(ann_file))
        and getattr(dataset, '_indices', None) is None
    )


def untaken_files(dataset) -> List[Untaken]:
    """What the dataset left in its image and label folders (empty for datasets it cannot
    judge: remote, selected by a split file or by ``indices``)."""
    prefix = getattr(dataset, 'data_prefix', None) or {}
    backend_args = getattr(dataset, 'backend_args', None)
    if prefix.get('img') and getattr(dataset, '_indices', None) is None:
        if is_local_folder(prefix['img'], backend_args):
            return coco_untaken(dataset, prefix['img'])
    elif listed_by_folder(dataset) and is_local_folder(prefix['img_path'], backend_args):
        return folder_untaken(dataset, prefix['img_path'], prefix.get(label_key(dataset)))
    return []


def coco_untaken(dataset, img_dir: str) -> List[Untaken]:
    referenced = getattr(dataset, 'referenced_images', None)
    if referenced is None:  # mmdet's own datasets: the samples left after filtering
        referenced = [d['img_path'] for d in data_infos(dataset)]
    referenced = relative_set(referenced, img_dir)
    files, _ = walk(img_dir)
    names = [f'{f} (not in {osp.basename(dataset.ann_file)})' for f in files if f not in referenced]
    return [Untaken(logging.INFO, 'images not referenced by the annotation file', img_dir, names)]


def folder_untaken(dataset, img_dir: str, label_dir: str) -> List[Untaken]:
    left_out = getattr(dataset, 'empty_targets', [])  # a choice of the config: listed as INFO
    infos = data_infos(dataset) + left_out
    img_suffix = dataset.img_suffix
    images = relative_set((d['img_path'] for d in infos), img_dir)
    files, folders = walk(img_dir)
    skipped = [f'{f} (not *{img_suffix})' for f in files if f not in images]
    skipped += [f'{d}/ (a folder)' for d in folders if d.endswith(img_suffix)]
    found = [Untaken(logging.WARNING, 'entries not taken as images', img_dir, sorted(skipped))]
    if left_out:
        names = sorted(relative_set((d['img_path'] for d in left_out), img_dir))
        what = 'samples left out, their annotation holds a single value (check_empty_targets)'
        found.append(Untaken(logging.INFO, what, img_dir, names))
    if label_dir and is_local_folder(label_dir, getattr(dataset, 'backend_args', None)):
        found += label_untaken(infos, img_dir, label_dir, label_key(dataset), dataset)
    return found


def label_untaken(infos, img_dir, label_dir, key, dataset) -> List[Untaken]:
    """Labels with the label suffix (in any case) that no sample reads, and samples whose
    label is not there. Files of other suffixes are other annotation products (Cityscapes keeps
    four per image next to the one read) and are not listed."""
    suffix = dataset.seg_map_suffix
    labels_of: Dict[str, str] = {
        osp.normpath(osp.relpath(d[key], label_dir)): osp.relpath(d['img_path'], img_dir)
        for d in infos
        if d.get(key)
    }
    files, _ = walk(label_dir)
    present = set(files)
    orphans = [
        f'{f} (no image)' if f.endswith(suffix) else f'{f} (not *{suffix})'
        for f in files
        if f.lower().endswith(suffix.lower()) and f not in labels_of
    ]
    bare = [f'{image} (no {label})' for label, image in labels_of.items() if label not in present]
    return [
        Untaken(logging.WARNING, 'label files without a sample', label_dir, orphans),
        Untaken(logging.WARNING, 'images without their label', img_dir, sorted(bare)),
    ]
