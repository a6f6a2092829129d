"""Panoptic outputs of an EoMTPanoptic checkpoint: COCO panoptic PNGs and JSON that agree with
each other at each input's size, and the instances in detections.json beside them."""

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vitspec.fileio.panoptic_png import rgb2id as rgb_to_ids
from vitspec.inference import (
    PANOPTIC,
    Predictor,
    find_images,
    load_model,
    predict_files,
    read_image,
)
from vitspec.inference.writers.panoptic import PanopticWriter

INSTANCE_OFFSET = 1000  # mmdet's panoptic map: class + instance * 1000


def test_category_ids_come_from_the_training_annotation_file(tmp_path):
    ann_file = tmp_path / 'panoptic_val2017.json'
    cats = [dict(id=1, name='person', isthing=1), dict(id=187, name='sky', isthing=0)]
    ann_file.write_text(json.dumps(dict(categories=cats)))
    meta = dict(classes=('person', 'sky'), ann_file=str(ann_file))
    writer = PanopticWriter(tmp_path, meta, num_things=1, num_stuff=1)
    assert writer.category_ids == [1, 187]
    assert writer.id_source == f'the categories of {ann_file}'
    ann_file.unlink()
    writer = PanopticWriter(tmp_path, meta, num_things=1, num_stuff=1)
    assert writer.category_ids == [1, 2]
    assert writer.id_source == f'class index + 1 ({ann_file} not found from {Path.cwd()})'
    writer.write('a', np.zeros((4, 4, 3), np.uint8), np.full((4, 4), 2, np.int64))
    assert json.loads(writer.close().read_text())['info'] == dict(category_ids=writer.id_source)


@pytest.fixture(scope='module')
def panoptic_model(tmp_path_factory):
    from tests.inference.demo_checkpoints import EOMT_PANOPTIC, save_demo_checkpoint

    def low_thresholds(cfg):
        # untrained, no query clears EoMT's 0.8 object threshold: every query is kept
        cfg.model.test_cfg = dict(object_mask_thr=0.0, iou_thr=0.0, max_per_image=10)

    path = tmp_path_factory.mktemp('panoptic') / 'iter_0.pth'
    return load_model(save_demo_checkpoint(EOMT_PANOPTIC, path, edit_cfg=low_thresholds))


def test_panoptic_checkpoint_writes_coco_panoptic_and_instances(panoptic_model, realdata, tmp_path):
    """An untrained demo EoMTPanoptic on real COCO images: its segments are noise, but PNG and
    JSON are COCO panoptic's and agree pixel for pixel."""
    assert panoptic_model.task == PANOPTIC
    paths = find_images([realdata / 'coco/train2017'])[:3]
    summary = predict_files(panoptic_model, paths, tmp_path, batch_size=2, progress=False)
    assert summary.run_files == [tmp_path / 'panoptic.json', tmp_path / 'detections.json']
    result = json.loads((tmp_path / 'panoptic.json').read_text())
    classes = panoptic_model.dataset_meta['classes']
    categories = {c['id']: c for c in result['categories']}
    assert sorted(categories) == list(range(1, len(classes) + 1))  # no ann_file: index + 1
    assert [categories[i + 1]['isthing'] for i in range(len(classes))] == [1] * 5 + [0] * 6
    assert [a['file_name'] for a in result['annotations']] == [
        f'{p.stem}_panoptic.png' for p in paths
    ]
    stuff_seen = thing_seen = False
    for path, annotation in zip(paths, result['annotations']):
        rgb = np.asarray(Image.open(tmp_path / annotation['file_name']))
        assert rgb.shape == (*Image.open(path).size[::-1], 3)
        ids = rgb_to_ids(rgb)
        segments = {s['id']: s for s in annotation['segments_info']}
        assert set(np.unique(ids).tolist()) - {0} == set(segments)
        for segment_id, segment in segments.items():
            mask = ids == segment_id
            assert segment['area'] == mask.sum()
            rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
            assert segment['bbox'] == [cols[0], rows[0], cols[-1] - cols[0] + 1,
                                       rows[-1] - rows[0] + 1]  # fmt: skip
            assert segment['isthing'] == categories[segment['category_id']]['isthing']
            stuff_seen |= not segment['isthing']
            thing_seen |= bool(segment['isthing'])
        picture = Image.open(tmp_path / f'{path.stem}_panoptic.jpg')
        assert picture.size == Image.open(path).size
    assert stuff_seen and thing_seen
    # the first PNG is the model's own panoptic map, relabelled
    sample = Predictor(panoptic_model).predict([read_image(paths[0]).bgr])[0]
    mmdet_map = sample.pred_panoptic_seg.sem_seg[0].numpy()
    ids = rgb_to_ids(np.asarray(Image.open(tmp_path / result['annotations'][0]['file_name'])))
    assert ((ids == 0) == (mmdet_map == len(classes))).all()
    for segment in result['annotations'][0]['segments_info']:
        values = np.unique(mmdet_map[ids == segment['id']])
        assert len(values) == 1 and values[0] % INSTANCE_OFFSET == segment['category_id'] - 1
    detections = json.loads((tmp_path / 'detections.json').read_text())
    assert detections['annotations']
    assert {a['category_id'] for a in detections['annotations']} <= set(range(1, 6))
