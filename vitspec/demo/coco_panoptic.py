"""The demo scenes in COCO panoptic's layout: annotations/panoptic_{split}2017.json and one PNG
per image in annotations/panoptic_{split}2017/ (segment id = R + 256 G + 256^2 B, 0 = VOID).

Things are the instances the instances file lists (same ids of category, same visible parts);
the background classes become COCO panoptic stuff categories; unlabelled clutter and thing
remnants too small for the instances file are VOID.
"""

import numpy as np

from vitspec.fileio.panoptic_png import id2rgb

from .files import save_image
from .world import CLASS_INDEX

# COCO panoptic's 53 stuff categories, ids as its panoptic_coco_categories.json (the ids
# tue-mps/eomt datasets/coco_panoptic.py maps to labels 80-132; names as mmdet's
# CocoPanopticDataset lists them). Supercategories are not reproduced.
COCO_STUFF_NAMES = (
    'banner', 'blanket', 'bridge', 'cardboard', 'counter', 'curtain', 'door-stuff', 'floor-wood',
    'flower', 'fruit', 'gravel', 'house', 'light', 'mirror-stuff', 'net', 'pillow', 'platform',
    'playingfield', 'railroad', 'river', 'road', 'roof', 'sand', 'sea', 'shelf', 'snow', 'stairs',
    'tent', 'towel', 'wall-brick', 'wall-stone', 'wall-tile', 'wall-wood', 'water-other',
    'window-blind', 'window-other', 'tree-merged', 'fence-merged', 'ceiling-merged',
    'sky-other-merged', 'cabinet-merged', 'table-merged', 'floor-other-merged', 'pavement-merged',
    'mountain-merged', 'grass-merged', 'dirt-merged', 'paper-merged', 'food-other-merged',
    'building-other-merged', 'rock-merged', 'wall-other-merged', 'rug-merged',
)  # fmt: skip
COCO_STUFF_IDS = (
    92, 93, 95, 100, 107, 109, 112, 118, 119, 122, 125, 128, 130, 133, 138, 141, 144, 145, 147,
    148, 149, 151, 154, 155, 156, 159, 161, 166, 168, 171, 175, 176, 177, 178, 180, 181, 184, 185,
    186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200,
)  # fmt: skip


def panoptic_categories(thing_categories):
    """The panoptic file's categories: the instances file's (things) and COCO's stuff."""
    return [{**c, 'isthing': 1, 'color': [0, 0, 0]} for c in thing_categories] + [
        {'supercategory': 'stuff', 'id': i, 'name': name, 'isthing': 0, 'color': [0, 0, 0]}
        for i, name in zip(COCO_STUFF_IDS, COCO_STUFF_NAMES, strict=True)
    ]


# the demo world's background classes as COCO panoptic stuff
DEMO_STUFF_IDS = {
    'sky': 187,
    'wall': 199,
    'floor': 190,
    'road': 149,
    'building': 197,
    'tree': 184,
}


def _segment(segment_id, category_id, mask):
    ys, xs = np.nonzero(mask)
    x0, y0 = int(xs.min()), int(ys.min())
    return {
        'id': segment_id,
        'category_id': category_id,
        'iscrowd': 0,
        'bbox': [x0, y0, int(xs.max()) + 1 - x0, int(ys.max()) + 1 - y0],
        'area': int(mask.sum()),
    }


def panoptic_segments(scene, first_id, thing_ids, min_thing_area):
    """(id map H x W, segments_info) of a scene; segment ids first_id, first_id + 1, ...;
    ``thing_ids``: category id of each labelled thing class, things of fewer pixels than
    ``min_thing_area`` are VOID."""
    ids = np.zeros(scene.semantic.shape, dtype=np.int64)
    segments = []
    for index, name in enumerate(scene.things):
        mask = scene.instances == index
        if name not in thing_ids or mask.sum() < min_thing_area:
            continue
        segments.append(_segment(first_id + len(segments), thing_ids[name], mask))
        ids[mask] = segments[-1]['id']
    for name, category_id in DEMO_STUFF_IDS.items():
        mask = (scene.semantic == CLASS_INDEX[name]) & (scene.instances < 0)
        if mask.any():
            segments.append(_segment(first_id + len(segments), category_id, mask))
            ids[mask] = segments[-1]['id']
    return ids, segments


def write_panoptic_png(ids, path):
    save_image(id2rgb(ids), path)
