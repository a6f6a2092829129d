"""A small procedural dataset in the native layouts of ADE20K, Cityscapes, COCO, NYU-Depth v2
and KITTI, so that the unchanged dataset classes of mmseg / mmdet (and a KITTI Eigen-split
loader) can train and evaluate on it in seconds.

Every image comes from one scene generator (`scene.generate_scene`); one module per dataset
writes it in that dataset's layout and label encoding; `store.write_dataset` makes a dataset
folder appear complete or not at all. `tools/make_demo_data.py` is the command line.
"""

from .catalog import DATA_ROOTS, DATASETS, SPLITS
from .store import write_dataset, write_datasets

__all__ = ['DATA_ROOTS', 'DATASETS', 'SPLITS', 'write_dataset', 'write_datasets']
