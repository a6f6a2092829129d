"""The demo scenes in Pascal VOC 2012's layout (VOCdevkit/VOC2012) with the SBD augmented set."""

import numpy as np
from PIL import Image

from .catalog import iter_scenes
from .files import save_image, save_jpeg
from .world import lookup_table

# VOC class indices (mmseg PascalVOCDataset.METAINFO); stuff is background (0).
VOC_IDS = {'person': 15, 'car': 7, 'bicycle': 2, 'chair': 9, 'table': 11}
VOC_IGNORE = 255  # object borders and difficult regions
VOC_UNLABELLED = ('clutter',)  # unknown objects: marked difficult
BORDER_PX = 1
SPLIT_FILES = 'ImageSets/Segmentation'


def voc_palette():
    """VOC's colour map: class c's bits spread over the three channels, 8 bits deep."""
    palette = np.zeros((256, 3), np.uint8)
    for label in range(256):
        c, r, g, b = label, 0, 0, 0
        for bit in range(8):
            r |= ((c >> 0) & 1) << (7 - bit)
            g |= ((c >> 1) & 1) << (7 - bit)
            b |= ((c >> 2) & 1) << (7 - bit)
            c >>= 3
        palette[label] = (r, g, b)
    return palette


def voc_labels(scene, border=True):
    """The class map of a scene as VOC draws it (255 on object borders and unknown objects), or
    as SBD does (``border=False``)."""
    if not border:  # SBD labels the 20 classes only: anything else is background
        return lookup_table(VOC_IDS, 0)[scene.semantic]
    table = lookup_table({**VOC_IDS, **dict.fromkeys(VOC_UNLABELLED, VOC_IGNORE)}, 0)
    labels = table[scene.semantic]
    padded = np.pad(labels, BORDER_PX, mode='edge')
    height, width = labels.shape
    edge = np.zeros_like(labels, bool)
    for dy in range(-BORDER_PX, BORDER_PX + 1):
        for dx in range(-BORDER_PX, BORDER_PX + 1):
            shifted = padded[
                BORDER_PX + dy : BORDER_PX + dy + height, BORDER_PX + dx : BORDER_PX + dx + width
            ]
            edge |= (shifted != labels) & ((shifted > 0) | (labels > 0))
    return np.where(edge, VOC_IGNORE, labels).astype(np.uint8)


def save_palette_png(labels, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.fromarray(labels, mode='P')
    image.putpalette(voc_palette().ravel().tolist())
    image.save(path)


def write_voc(root, counts, seed, progress):
    """train: alternately VOC's own (SegmentationClass, palette PNG with borders, train.txt) and
    SBD's (SegmentationClassAug, plain class PNG without borders, aug.txt), as mmseg's
    voc_aug.py converter leaves them; val: VOC's own (val.txt)."""
    base = root / 'VOCdevkit' / 'VOC2012'
    lists = {'train': [], 'aug': [], 'val': []}
    for split, first_id in (('train', 0), ('val', 500000)):
        for index, scene, _ in iter_scenes('voc', split, counts[split], seed, progress):
            name = f'{2007 + index % 6}_{first_id + index:06d}'
            save_jpeg(scene.image, base / 'JPEGImages' / f'{name}.jpg')
            if split == 'train' and index % 2:
                save_image(
                    voc_labels(scene, border=False), base / 'SegmentationClassAug' / f'{name}.png'
                )
                lists['aug'].append(name)
            else:
                save_palette_png(voc_labels(scene), base / 'SegmentationClass' / f'{name}.png')
                lists[split].append(name)
    lists['trainaug'] = lists['train'] + lists['aug']
    for name, names in lists.items():
        path = base / SPLIT_FILES / f'{name}.txt'
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(''.join(f'{n}\n' for n in names))
