"""Predicting on folders of real samples writes each task's files at each input's size; bad
images are skipped and named; an output folder in use is refused."""

import json

import numpy as np
import pytest
from PIL import Image

from vitspec.errors import OutputPathError
from vitspec.inference import find_images, load_model, predict_files
from vitspec.inference.batch_run import same_size_batches, unique_stems
from vitspec.inference.inputs import ImageInput


@pytest.fixture(scope='module')
def segmenter(segmenter_checkpoint):
    return load_model(segmenter_checkpoint)


def test_segmentation_writes_labels_overlays_and_classes(segmenter, ade_images, tmp_path):
    paths = find_images([ade_images])
    summary = predict_files(segmenter, paths, tmp_path, batch_size=2, progress=False)
    assert len(summary.written) == 3 and not summary.skipped
    for path in paths:
        size = Image.open(path).size
        labels = Image.open(tmp_path / f'{path.stem}_labels.png')
        assert labels.mode == 'P' and labels.size == size
        values = np.asarray(labels)
        assert values.max() < 150
        palette = np.asarray(labels.getpalette()[:450]).reshape(150, 3)
        assert (palette == np.asarray(segmenter.dataset_meta['palette'])).all()
        assert Image.open(tmp_path / f'{path.stem}_overlay.jpg').size == size
    classes = json.loads((tmp_path / 'classes.json').read_text())
    assert len(classes) == 150 and classes[0]['name'] == 'wall'


def test_depth_writes_millimetres_npy_and_a_coloured_picture(
    depth_checkpoint, nyu_images, tmp_path
):
    loaded = load_model(depth_checkpoint)
    summary = predict_files(loaded, find_images(nyu_images), tmp_path, npy=True, progress=False)
    assert len(summary.written) == 2
    for written in summary.written:
        size = Image.open(written['image']).size
        millimetres = np.asarray(Image.open(written['depth']))
        assert millimetres.dtype == np.uint16 and millimetres.shape == size[::-1]
        metres = np.load(written['npy'])
        assert metres.dtype == np.float32 and metres.shape == size[::-1]
        assert np.abs(millimetres - metres * 1000).max() <= 0.5 + 1e-3
        assert 0.001 <= metres.min() and metres.max() <= 10.0  # the model's depth range
        colour = Image.open(written['colour'])
        assert colour.height == size[1] and colour.width > size[0]  # the scale bar beside


def test_predict_in_one_call(depth_checkpoint, nyu_images, tmp_path):
    from vitspec.inference import predict

    summary = predict(depth_checkpoint, [nyu_images[0]], tmp_path, progress=False)
    assert [w['depth'].name for w in summary.written] == ['bookstore_0001d_00001_depth.png']


def test_the_output_folder_is_checked_once_per_call(
    segmenter, segmenter_checkpoint, ade_images, tmp_path, monkeypatch
):
    from tests.utils import output_checks
    from vitspec.inference import batch_run, predict

    checked = output_checks(monkeypatch, batch_run)
    image = ade_images / 'ADE_val_00000003.jpg'
    predict_files(segmenter, [image], tmp_path / 'a', progress=False)
    predict(segmenter_checkpoint, [image], tmp_path / 'b', progress=False)
    assert checked == [tmp_path / 'a', tmp_path / 'b']
    assert (tmp_path / 'b/ADE_val_00000003_labels.png').is_file()


def test_one_loop_predicts_for_one_model_and_for_several_heads():
    """One prediction path: the batches are made at one place, whatever the model."""
    import ast
    from pathlib import Path

    import vitspec

    root = Path(vitspec.__file__).parent
    calls = [
        path.relative_to(root.parent)
        for path in [*root.rglob('*.py'), *(root.parent / 'tools').glob('*.py')]
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'same_size_batches'
    ]
    assert [str(path) for path in calls] == ['vitspec/inference/batch_run.py']


def test_bad_images_are_counted_and_named(segmenter, ade_images, tmp_path):
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'empty.png').write_bytes(b'')
    Image.open(ade_images / 'ADE_val_00000003.jpg').save(inputs / 'good.jpg')
    summary = predict_files(segmenter, find_images([inputs]), tmp_path / 'out', progress=False)
    assert [w['image'].name for w in summary.written] == ['good.jpg']
    assert [p.name for p, _ in summary.skipped] == ['empty.png']
    assert 'empty.png: empty file' in '\n'.join(summary.lines())


def test_an_output_folder_with_files_needs_overwrite(segmenter, ade_images, tmp_path):
    (tmp_path / 'old.txt').write_text('x')
    paths = find_images([ade_images / 'ADE_val_00000003.jpg'])
    with pytest.raises(OutputPathError, match='--overwrite'):
        predict_files(segmenter, paths, tmp_path, progress=False)
    predict_files(segmenter, paths, tmp_path, overwrite=True, progress=False)
    assert (tmp_path / 'ADE_val_00000003_labels.png').is_file()


def test_batches_hold_one_image_size_and_names_stay_apart(tmp_path):
    images = [ImageInput(tmp_path / f'{i}.jpg', np.zeros(s, np.uint8)) for i, s in
              enumerate([(4, 4, 3), (4, 4, 3), (4, 6, 3), (4, 4, 3)])]  # fmt: skip
    assert [len(b) for b in same_size_batches(images, 8)] == [2, 1, 1]
    stems = unique_stems([tmp_path / 'a/x.jpg', tmp_path / 'b/x.jpg', tmp_path / 'y.png'])
    assert sorted(stems.values()) == ['a_x', 'b_x', 'y']


def test_an_eomt_checkpoint_writes_segmentation_files(ade_images, tmp_path):
    from tests.inference.demo_checkpoints import EOMT, save_demo_checkpoint
    from vitspec.inference import Predictor, read_image
    from vitspec.inference.large_images import slide_predict

    loaded = load_model(save_demo_checkpoint(EOMT, tmp_path / 'eomt.pth'))
    paths = find_images([ade_images / 'ADE_val_00000002.jpg'])
    predict_files(loaded, paths, tmp_path / 'out', progress=False)
    labels = np.asarray(Image.open(tmp_path / 'out/ADE_val_00000002_labels.png'))
    assert labels.shape == (364, 500) and labels.max() < 150
    slid = slide_predict(Predictor(loaded), read_image(paths[0]).bgr, window=(128, 128))
    assert slid.shape == (364, 500) and slid.max() < 150


def test_detection_writes_coco_json_with_rle_masks_and_pictures(realdata, tmp_path):
    """An untrained demo Mask R-CNN on the 16 real COCO images: what it finds is noise, but the
    JSON is COCO's, its masks decode at each image's size, and one picture per image is drawn."""
    from pycocotools import mask as mask_utils
    from pycocotools.coco import COCO

    from tests.inference.demo_checkpoints import DETECTOR, save_demo_checkpoint

    loaded = load_model(save_demo_checkpoint(DETECTOR, tmp_path / 'det.pth'))
    paths = find_images([realdata / 'coco/train2017'])[:4]
    summary = predict_files(loaded, paths, tmp_path / 'out', batch_size=2, progress=False)
    assert summary.run_files == [tmp_path / 'out/detections.json']
    assert f'  wrote {tmp_path}/out/detections.json' in summary.lines()
    coco = COCO(str(summary.run_files[0]))
    assert [coco.imgs[i]['file_name'] for i in sorted(coco.imgs)] == [p.name for p in paths]
    assert [c['name'] for c in coco.loadCats(coco.getCatIds())][:2] == ['person', 'bicycle']
    assert coco.getAnnIds()  # an untrained head still scores above mmdet's 0.05 threshold
    for annotation in coco.loadAnns(coco.getAnnIds()[:20]):
        image = coco.imgs[annotation['image_id']]
        mask = mask_utils.decode(annotation['segmentation'])
        assert mask.shape == (image['height'], image['width'])
        assert 1 <= annotation['category_id'] <= 5 and 0 <= annotation['score'] <= 1
    detections = coco.loadRes([dict(a) for a in coco.loadAnns(coco.getAnnIds())])
    assert len(detections.getAnnIds()) == len(coco.getAnnIds())
    for path in paths:
        assert (
            Image.open(tmp_path / f'out/{path.stem}_detections.jpg').size == Image.open(path).size
        )
