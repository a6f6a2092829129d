"""The six demo datasets: image sizes, cameras, default split sizes, and a seed per image."""

from dataclasses import dataclass

import numpy as np

from .scene import generate_scene
from .world import STYLES

GENERATOR_VERSION = 3  # 2: the COCO files list all 80 COCO categories; 3: COCO panoptic
KITTI_FOCAL = 721.5377  # the value BTS-style split files carry (KITTI's P_rect_02 focal)


@dataclass(frozen=True)
class DatasetSpec:
    key: int  # part of every image's seed, so that datasets never share scenes
    styles: tuple
    sizes: tuple  # (width, height) choices
    focal_per_width: float
    num_train: int
    num_val: int


MIXED_SIZES = ((128, 128), (160, 120), (120, 160))  # ADE20K, COCO and VOC images vary
DATASETS = {
    'ade20k': DatasetSpec(1, ('indoor', 'outdoor'), MIXED_SIZES, 1.0, 200, 50),
    'cityscapes': DatasetSpec(2, ('outdoor',), ((256, 128),), 1.1, 100, 25),
    'coco': DatasetSpec(3, ('indoor', 'outdoor'), MIXED_SIZES, 1.0, 200, 50),
    'nyu': DatasetSpec(4, ('indoor',), ((160, 120),), 518.8 / 640, 100, 25),
    'kitti': DatasetSpec(5, ('outdoor',), ((384, 128),), KITTI_FOCAL / 1242, 100, 25),
    'voc': DatasetSpec(6, ('indoor', 'outdoor'), MIXED_SIZES, 1.0, 100, 25),
}
# What a config's data_root points at, below the output folder.
DATA_ROOTS = {
    'ade20k': 'ade20k/ADEChallengeData2016',
    'cityscapes': 'cityscapes',
    'coco': 'coco',
    'nyu': 'nyu',
    'kitti': 'kitti',
    'voc': 'voc/VOCdevkit/VOC2012',
}
SPLITS = ('train', 'val')


def scene_rng(seed, dataset, split, index):
    return np.random.default_rng([seed, DATASETS[dataset].key, SPLITS.index(split), index])


def iter_scenes(dataset, split, count, seed, progress):
    """(index, scene, rng) for each image of a split; rng continues after the scene was drawn."""
    spec = DATASETS[dataset]
    for index in range(count):
        rng = scene_rng(seed, dataset, split, index)
        width, height = spec.sizes[int(rng.integers(len(spec.sizes)))]
        style = STYLES[spec.styles[int(rng.integers(len(spec.styles)))]]
        yield index, generate_scene(rng, width, height, style, spec.focal_per_width * width), rng
        progress.update(1)
