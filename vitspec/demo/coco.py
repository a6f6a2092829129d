"""The demo scenes in COCO's layout: images and instances_*.json with polygon masks."""

import numpy as np

from .boundaries import mask_to_polygons
from .catalog import GENERATOR_VERSION, SPLITS, iter_scenes
from .files import save_jpeg, write_json

COCO_CATEGORIES = (
    {'supercategory': 'person', 'id': 1, 'name': 'person'},
    {'supercategory': 'vehicle', 'id': 2, 'name': 'bicycle'},
    {'supercategory': 'vehicle', 'id': 3, 'name': 'car'},
    {'supercategory': 'furniture', 'id': 62, 'name': 'chair'},
    {'supercategory': 'furniture', 'id': 67, 'name': 'dining table'},
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
        images, annotations = [], []
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
        write_json(
            coco_document(images, annotations, seed),
            root / 'annotations' / f'instances_{folder}.json',
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
