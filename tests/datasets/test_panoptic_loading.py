"""COCO panoptic files through CheckedCocoPanopticDataset, CheckSampleFiles and LoadPanopticPNG:
what loads, and bad files stopped with an error naming them (PNG ids the JSON lacks, JSON
segments the PNG lacks, unlisted categories, config classes the file does not have, things and
stuff swapped)."""

import json

import numpy as np
import pytest
from mmengine.registry import init_default_scope
from PIL import Image

from vitspec.datasets import CheckedCocoPanopticDataset
from vitspec.errors import DataFileError
from vitspec.fileio.panoptic_png import id2rgb

CATEGORIES = [
    dict(id=1, name='person', isthing=1, supercategory='person'),
    dict(id=3, name='car', isthing=1, supercategory='vehicle'),
    dict(id=187, name='sky-other-merged', isthing=0, supercategory='sky'),
]
META = dict(
    classes=('person', 'sky-other-merged'),
    thing_classes=('person',),
    stuff_classes=('sky-other-merged',),
)
IDS = np.array([[5, 5, 9, 9, 9, 9], [5, 5, 9, 9, 0, 0], [5, 5, 12, 12, 0, 0], [5, 5, 12, 12, 0, 0]])


def segment(i, category_id, iscrowd=0):
    ys, xs = np.nonzero(IDS == i)
    x, y = int(xs.min()), int(ys.min())
    w, h = int(xs.max()) + 1 - x, int(ys.max()) + 1 - y
    return dict(id=i, category_id=category_id, iscrowd=iscrowd, bbox=[x, y, w, h], area=w * h)


SEGMENTS = [segment(5, 1), segment(9, 187), segment(12, 1, iscrowd=1)]


def write(root, ids=IDS, segments=SEGMENTS, categories=CATEGORIES):
    (root / 'img').mkdir(exist_ok=True)
    (root / 'pan').mkdir(exist_ok=True)
    Image.fromarray(np.zeros((4, 6, 3), np.uint8)).save(root / 'img' / 'a.jpg')
    Image.fromarray(id2rgb(ids)).save(root / 'pan' / 'a.png')
    doc = dict(
        images=[dict(id=1, file_name='a.jpg', height=4, width=6)],
        annotations=[dict(image_id=1, file_name='a.png', segments_info=segments)],
        categories=categories,
    )
    (root / 'pan.json').write_text(json.dumps(doc))


def dataset(root, metainfo=META):
    init_default_scope('mmdet')
    return CheckedCocoPanopticDataset(
        data_root=str(root),
        ann_file='pan.json',
        metainfo=metainfo,
        data_prefix=dict(img='img/', seg='pan/'),
        pipeline=[
            dict(type='LoadImageFromFile'),
            dict(type='CheckSampleFiles'),
            dict(type='LoadPanopticPNG'),
        ],
    )


def test_things_stuff_crowd_and_void_load(tmp_path):
    write(tmp_path)
    ds = dataset(tmp_path)
    info = ds.get_data_info(0)
    assert [s['iscrowd'] for s in info['segments_info']] == [False, False, True]
    assert len(info['instances']) == 1  # the crowd person is no instance
    out = ds[0]
    assert len(out['gt_masks']) == 1 and out['gt_masks'].masks[0].sum() == 8
    seg = out['gt_seg_map']
    assert (seg[IDS == 5] == 0).all() and (seg[IDS == 9] == 1).all()
    assert (seg[IDS == 0] == 255).all()
    assert (seg[IDS == 12] == 0).all()  # crowd: a thing label in the map, in no stuff mask


def test_png_ids_missing_from_the_json_are_named(tmp_path):
    write(tmp_path, segments=SEGMENTS[:2])
    missing = r'a\.png has segment ids missing from the JSON: \[12\]'
    with pytest.raises(DataFileError, match=missing):
        dataset(tmp_path)[0]


def test_json_segments_absent_from_the_png_are_named(tmp_path):
    write(tmp_path, ids=np.where(IDS == 9, 0, IDS))
    with pytest.raises(DataFileError, match=r'a\.png lacks segments its JSON entry lists: \[9\]'):
        dataset(tmp_path)[0]


def test_a_category_the_file_does_not_list_is_named(tmp_path):
    write(tmp_path, segments=[segment(5, 1), segment(9, 999), segment(12, 1, 1)])
    with pytest.raises(DataFileError, match=r'pan\.json: segment 9 .* category_id 999'):
        dataset(tmp_path)


def test_config_classes_the_file_lacks_or_swaps_are_named(tmp_path):
    write(tmp_path)
    renamed = dict(META, classes=('person', 'sky'), stuff_classes=('sky',))
    with pytest.raises(DataFileError, match=r"pan\.json: .*'sky'"):
        dataset(tmp_path, renamed)
    swapped = dict(META, thing_classes=('sky-other-merged',), stuff_classes=('person',))
    with pytest.raises(DataFileError, match=r'pan\.json: .* things \(isthing\)'):
        dataset(tmp_path, swapped)


def test_segments_of_unchosen_categories_are_void(tmp_path):
    write(tmp_path, segments=[segment(5, 3), segment(9, 187), segment(12, 1, 1)])
    out = dataset(tmp_path)[0]  # 5 is a car, not among the classes
    assert (out['gt_seg_map'][IDS == 5] == 255).all() and len(out['gt_masks']) == 0


def test_png_json_mismatches_stop_when_the_dataset_is_built(tmp_path):
    """They surfaced only when the image was first loaded, possibly hours into a run."""
    write(tmp_path, segments=SEGMENTS[:2])
    with pytest.raises(DataFileError, match=r'a\.png has segment ids missing from the JSON'):
        dataset(tmp_path)


@pytest.mark.parametrize('fault', ['missing', 'size', 'grey'])
def test_pngs_that_cannot_be_their_images_are_named_when_the_dataset_is_built(tmp_path, fault):
    write(tmp_path)
    png = tmp_path / 'pan' / 'a.png'
    if fault == 'missing':
        png.unlink()
    elif fault == 'size':
        Image.fromarray(id2rgb(IDS[:, :5])).save(png)
    else:
        Image.fromarray(IDS.astype(np.uint8)).save(png)
    why = {
        'missing': 'does not exist',
        'size': 'is 5x4, its image 6x4',
        'grey': 'is not an RGB image (mode L)',
    }[fault]
    with pytest.raises(DataFileError, match=r'pan\.json: 1 of 1 PNGs do not fit') as info:
        dataset(tmp_path)
    assert f'{png} {why}' in str(info.value) and 'data_prefix.seg' in str(info.value)
