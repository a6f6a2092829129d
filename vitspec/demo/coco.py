"""The demo scenes in COCO's layout: images and instances_*.json with polygon masks, and the
same scenes as COCO panoptic (panoptic_*.json and PNGs, `coco_panoptic`)."""

import numpy as np

from .boundaries import mask_to_polygons
from .catalog import GENERATOR_VERSION, SPLITS, iter_scenes
from .coco_panoptic import panoptic_categories, panoptic_segments, write_panoptic_png
from .files import save_jpeg, write_json

# COCO 2017's 80 categories as its instances_*.json list them (ids with COCO's gaps; each
# supercategory from its first id on), so that every COCO config finds its classes in the demo
# file; the scenes draw five of them.
COCO_NAMES = (
    'person', 'bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat',
    'traffic light', 'fire hydrant', 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog',
    'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe', 'backpack', 'umbrella',
    'handbag', 'tie', 'suitcase', 'frisbee', 'skis', 'snowboard', 'sports ball', 'kite',
    'baseball bat', 'baseball glove', 'skateboard', 'surfboard', 'tennis racket', 'bottle',
    'wine glass', 'cup', 'fork', 'knife', 'spoon', 'bowl', 'banana', 'apple', 'sandwich', 'orange',
    'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'chair', 'couch', 'potted plant',
    'bed', 'dining table', 'toilet', 'tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone',
    'microwave', 'oven', 'toaster', 'sink', 'refrigerator', 'book', 'clock', 'vase', 'scissors',
    'teddy bear', 'hair drier', 'toothbrush',
)  # fmt: skip
COCO_CATEGORY_IDS = (
    *range(1, 12), *range(13, 26), 27, 28, *range(31, 45), *range(46, 66), 67, 70,
    *range(72, 83), *range(84, 91),
)  # fmt: skip
SUPERCATEGORIES = (
    (1, 'person'), (2, 'vehicle'), (10, 'outdoor'), (16, 'animal'), (27, 'accessory'),
    (34, 'sports'), (44, 'kitchen'), (52, 'food'), (62, 'furniture'), (72, 'electronic'),
    (78, 'appliance'), (84, 'indoor'),
)  # fmt: skip
COCO_CATEGORIES = tuple(
    {
        'supercategory': next(sup for first, sup in reversed(SUPERCATEGORIES) if first <= i),
        'id': i,
        'name': name,
    }
    for i, name in zip(COCO_CATEGORY_IDS, COCO_NAMES, strict=True)
)
COCO_IDS = {'person': 1, 'bicycle': 2, 'car': 3, 'chair': 62, 'table': 67}
COCO_MIN_VISIBLE_AREA = 20  # pixels


def coco_annotations(scene, image_id, first_annotation_id):
    """Instances of the COCO classes by their visible part; tiny remnants are left out."""
    annotations = []
    for index, name in enumerate(scene.things):
        mask = scene.instances == index
        area = int(mask.sum())
        if name not in COCO_IDS or area < COCO_MIN_VISIBLE_AREA:
            continue
        ys, xs = np.nonzero(mask)
        x0, y0 = int(xs.min()), int(ys.min())
        annotations.append(
            {
                'id': first_annotation_id + len(annotations),
                'image_id': image_id,
                'category_id': COCO_IDS[name],
                'segmentation': mask_to_polygons(mask),
                'area': float(area),
                'bbox': [float(x0), float(y0), float(xs.max() + 1 - x0), float(ys.max() + 1 - y0)],
                'iscrowd': 0,
            }
        )
    return annotations


def write_coco(root, counts, seed, progress):
    first_id = {'train': 1, 'val': 1_000_001}  # ids stay unique across the two splits
    for split in SPLITS:
        folder = f'{split}2017'
        images, annotations, panoptic = [], [], []
        next_segment_id = 1
        for index, scene, _ in iter_scenes('coco', split, counts[split], seed, progress):
            image_id = first_id[split] + index
            file_name = f'{image_id:012d}.jpg'
            save_jpeg(scene.image, root / folder / file_name)
            height, width = scene.semantic.shape
            images.append(
                {
                    'license': 1,
                    'file_name': file_name,
                    'coco_url': '',
                    'height': height,
                    'width': width,
                    'date_captured': '',
                    'flickr_url': '',
                    'id': image_id,
                }
            )
            annotations += coco_annotations(scene, image_id, first_id[split] + len(annotations))
            ids, segments = panoptic_segments(
                scene, next_segment_id, COCO_IDS, COCO_MIN_VISIBLE_AREA
            )
            next_segment_id += len(segments)
            png_name = file_name.replace('.jpg', '.png')
            write_panoptic_png(ids, root / 'annotations' / f'panoptic_{folder}' / png_name)
            panoptic.append(
                {'image_id': image_id, 'file_name': png_name, 'segments_info': segments}
            )
        write_json(
            coco_document(images, annotations, seed),
            root / 'annotations' / f'instances_{folder}.json',
        )
        write_json(
            {
                **coco_document(images, panoptic, seed),
                'categories': panoptic_categories(COCO_CATEGORIES),
            },
            root / 'annotations' / f'panoptic_{folder}.json',
        )


def coco_document(images, annotations, seed):
    return {
        'info': {
            'description': f'vitspec procedural demo data (seed {seed})',
            'url': '',
            'version': str(GENERATOR_VERSION),
            'year': 2017,
            'contributor': 'tools/make_demo_data.py',
            'date_created': '',
        },
        'licenses': [
            {'url': '', 'id': 1, 'name': 'Procedurally generated, no third-party content'}
        ],
        'images': images,
        'annotations': annotations,
        'categories': list(COCO_CATEGORIES),
    }
