"""The demo scenes in Cityscapes' layout: leftImg8bit images and gtFine label images."""

import numpy as np

from .catalog import SPLITS, iter_scenes
from .files import save_image
from .world import lookup_table

# Cityscapes label ids; 'dynamic' (5) stands for unlabelled movable objects.
CITYSCAPES_IDS = {
    'road': 7,
    'building': 11,
    'tree': 21,
    'sky': 23,
    'person': 24,
    'car': 26,
    'bicycle': 33,
    'clutter': 5,
}
# The official labelId -> trainId table (cityscapesscripts/helpers/labels.py), ids 0..33.
CITYSCAPES_TRAIN_IDS = (
    255,
    255,
    255,
    255,
    255,
    255,
    255,
    0,
    1,
    255,
    255,
    2,
    3,
    4,
    255,
    255,
    255,
    5,
    255,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
    255,
    255,
    16,
    17,
    18,
)
CITYSCAPES_FIRST_INSTANCE_ID = 24  # person .. bicycle (24..33) have instance ids
CITYSCAPES_CITIES = {'train': ('aachen', 'bremen', 'zurich'), 'val': ('frankfurt', 'lindau')}


def cityscapes_label_images(scene):
    """labelIds, labelTrainIds and instanceIds images of a scene, as Cityscapes encodes them."""
    label_ids = lookup_table(CITYSCAPES_IDS, 0)[scene.semantic]
    train_ids = np.array(CITYSCAPES_TRAIN_IDS, np.uint8)[label_ids]
    instance_ids = label_ids.astype(np.uint16)
    per_class = {}
    for index, name in enumerate(scene.things):
        label = CITYSCAPES_IDS.get(name, 0)
        mask = scene.instances == index
        if label >= CITYSCAPES_FIRST_INSTANCE_ID and mask.any():
            instance_ids[mask] = label * 1000 + per_class.setdefault(label, 0)
            per_class[label] += 1
    return label_ids, train_ids, instance_ids


def write_cityscapes(root, counts, seed, progress):
    for split in SPLITS:
        cities = CITYSCAPES_CITIES[split]
        for index, scene, _ in iter_scenes('cityscapes', split, counts[split], seed, progress):
            city = cities[index % len(cities)]
            stem = f'{city}_{index // len(cities):06d}_000019'
            save_image(scene.image, root / 'leftImg8bit' / split / city / f'{stem}_leftImg8bit.png')
            gt = root / 'gtFine' / split / city
            label_ids, train_ids, instance_ids = cityscapes_label_images(scene)
            save_image(label_ids, gt / f'{stem}_gtFine_labelIds.png')
            save_image(train_ids, gt / f'{stem}_gtFine_labelTrainIds.png')
            save_image(instance_ids, gt / f'{stem}_gtFine_instanceIds.png')
