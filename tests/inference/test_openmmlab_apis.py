"""mmseg's and mmdet's own ways to predict, called on vitspec's files as their docs call them:
``MMSegInferencer(model=<config>, weights=<checkpoint>)``, ``init_model`` + ``inference_model``
(mmseg's demo/image_demo.py), mmdet's ``DetInferencer`` and ``init_detector`` +
``inference_detector``. Each demo model is trained for two iterations (its checkpoint is what
training writes: a weights-only ``torch.load`` reads it without an allow-list) and each call
predicts what tools/infer.py writes for the same real images."""

import json
import pickle
import subprocess
import sys
from pathlib import Path

import mmcv
import numpy as np
import pytest
import torch
from mmdet.apis import DetInferencer, inference_detector, init_detector
from mmengine.config import Config
from mmseg.apis import MMSegInferencer, inference_model, init_model
from PIL import Image

from tests.inference.demo_checkpoints import DEPTHER, DETECTOR, SEGMENTER
from tests.utils import load_tool, make_demo_data
from vitspec.engine.checkpointing.plain_data import restore_objects
from vitspec.fileio import using_safe_io
from vitspec.runs.runner import build_runner

pytestmark = pytest.mark.slow
ITERS = 2


def train_briefly(config: Path, dataset: str, folder: Path) -> Path:
    """The demo config trained for ITERS iterations on a few procedural images; its checkpoint."""
    data = make_demo_data(folder / 'data', dataset, 4, 2)
    cfg = Config.fromfile(config)
    for split in ('train', 'val', 'test'):
        cfg[f'{split}_dataloader'].dataset.data_root = str(data)
    cfg.train_cfg.update(max_iters=ITERS, val_begin=ITERS + 1)  # no evaluation
    cfg.default_hooks.checkpoint.interval = ITERS
    cfg.update(work_dir=str(folder / 'work'), launcher='none', randomness=dict(seed=0))
    build_runner(cfg).train()
    checkpoint = folder / 'work' / f'iter_{ITERS}.pth'
    assert torch.serialization.get_unsafe_globals_in_checkpoint(str(checkpoint)) == []
    return checkpoint


def infer_tool(checkpoint: Path, images: list, out: Path, *flags) -> Path:
    argv = [str(checkpoint), *map(str, images), '--out', str(out), '--device', 'cpu', *flags]
    assert load_tool('infer').main(argv) == 0
    return out


def assert_loaded(model, checkpoint: Path) -> None:
    """Every weight of the model is the checkpoint's (mmengine loads with strict=False)."""
    saved = torch.load(checkpoint, weights_only=True)['state_dict']
    state = model.state_dict()
    assert state.keys() == saved.keys()
    assert all(state[key].equal(value) for key, value in saved.items())


@pytest.fixture(scope='module')
def segmenter(tmp_path_factory) -> Path:
    return train_briefly(SEGMENTER, 'ade20k', tmp_path_factory.mktemp('segmenter'))


def test_mmseg_calls_predict_the_label_maps_of_infer(segmenter, ade_images, tmp_path):
    images = [ade_images / 'ADE_val_00000001.jpg', ade_images / 'ADE_val_00000002.jpg']
    out = infer_tool(segmenter, images, tmp_path / 'infer')
    inferencer = MMSegInferencer(model=str(SEGMENTER), weights=str(segmenter), device='cpu')
    from_saved_config = MMSegInferencer(model=None, weights=str(segmenter), device='cpu')
    # mmseg's inference_model turns the model's test pipeline to arrays at the first array it
    # is given, for good: one model for paths, one for arrays
    for_paths, for_arrays = (init_model(str(SEGMENTER), str(segmenter), 'cpu') for _ in range(2))
    assert_loaded(for_paths, segmenter)
    for image in images:
        expected = np.asarray(Image.open(out / f'{image.stem}_labels.png'))
        assert np.array_equal(inferencer(str(image))['predictions'], expected)
        assert np.array_equal(from_saved_config(str(image))['predictions'], expected)
        for model, given in ((for_paths, str(image)), (for_arrays, mmcv.imread(image))):
            assert np.array_equal(inference_model(model, given).pred_sem_seg.data[0], expected)


def test_a_checkpoint_with_mmengines_objects_loads_within_the_safe_loader(
    segmenter, ade_images, tmp_path
):
    """Written before vitspec's Runner stored plain data: torch's weights-only load refuses its
    HistoryBuffer, vitspec's safe loader (allow-list) reads it."""
    old = tmp_path / 'old.pth'
    checkpoint = torch.load(segmenter, weights_only=True)
    restore_objects(checkpoint)
    torch.save(checkpoint, old)
    with pytest.raises(pickle.UnpicklingError, match='HistoryBuffer'):
        init_model(str(SEGMENTER), str(old), device='cpu')
    image = str(ade_images / 'ADE_val_00000002.jpg')
    with using_safe_io():
        by_old = MMSegInferencer(model=str(SEGMENTER), weights=str(old), device='cpu')(image)
    by_new = MMSegInferencer(model=str(SEGMENTER), weights=str(segmenter), device='cpu')(image)
    assert np.array_equal(by_old['predictions'], by_new['predictions'])


def test_mmseg_needs_no_import_besides_its_own(segmenter, ade_images, tmp_path):
    """A fresh Python, as a user writes it: the config's custom_imports bring vitspec in."""
    image = ade_images / 'ADE_val_00000002.jpg'
    script = (
        'import sys, numpy as np\n'
        'from mmseg.apis import MMSegInferencer\n'
        'inferencer = MMSegInferencer(model=sys.argv[1], weights=sys.argv[2], device="cpu")\n'
        'np.save(sys.argv[4], inferencer(sys.argv[3])["predictions"])\n'
        'assert "vitspec" in sys.modules\n'
    )
    args = [str(SEGMENTER), str(segmenter), str(image), str(tmp_path / 'labels.npy')]
    subprocess.run([sys.executable, '-c', script, *args], check=True, cwd=tmp_path)
    out = infer_tool(segmenter, [image], tmp_path / 'infer')
    expected = np.asarray(Image.open(out / f'{image.stem}_labels.png'))
    assert np.array_equal(np.load(tmp_path / 'labels.npy'), expected)


def test_mmseg_calls_predict_the_depth_of_infer(nyu_images, tmp_path):
    checkpoint = train_briefly(DEPTHER, 'nyu', tmp_path / 'depth')
    images = sorted(nyu_images[0].glob('*.jpg'))[:2]
    out = infer_tool(checkpoint, images, tmp_path / 'infer', '--npy')
    inferencer = MMSegInferencer(model=str(DEPTHER), weights=str(checkpoint), device='cpu')
    model = init_model(str(DEPTHER), str(checkpoint), device='cpu')
    assert_loaded(model, checkpoint)
    for image in images:
        metres = np.load(out / f'{image.stem}_depth.npy')
        millimetres = np.asarray(Image.open(out / f'{image.stem}_depth.png')).astype(np.float64)
        by_inferencer = inferencer(str(image))['predictions']
        by_demo_api = inference_model(model, str(image)).pred_depth_map.data[0].numpy()
        for predicted in (by_inferencer, by_demo_api):
            assert predicted.shape == metres.shape == millimetres.shape
            assert np.allclose(predicted, metres, rtol=0, atol=1e-6)
            assert np.abs(predicted * 1000 - millimetres).max() <= 0.5 + 1e-3  # PNG rounding
        assert np.ptp(metres) > 0


def test_mmdet_calls_predict_the_detections_of_infer(realdata, tmp_path):
    checkpoint = train_briefly(DETECTOR, 'coco', tmp_path / 'detector')
    images = [realdata / 'coco/train2017/000000005802.jpg']
    out = infer_tool(checkpoint, images, tmp_path / 'infer')
    written = json.loads((out / 'detections.json').read_text())
    inferencer = DetInferencer(model=str(DETECTOR), weights=str(checkpoint), device='cpu')
    from_saved_config = DetInferencer(model=None, weights=str(checkpoint), device='cpu')
    model = init_detector(str(DETECTOR), str(checkpoint), device='cpu')
    assert_loaded(model, checkpoint)
    for image in images:
        (image_id,) = [i['id'] for i in written['images'] if i['file_name'].endswith(image.name)]
        expected = [a for a in written['annotations'] if a['image_id'] == image_id]
        assert expected, 'the briefly trained detector keeps some detections'
        for by_inferencer in (inferencer, from_saved_config):
            assert_same_detections(by_inferencer(str(image))['predictions'][0], expected)
        for given in (str(image), mmcv.imread(image)):
            instances = inference_detector(model, given).pred_instances
            predicted = dict(
                scores=instances.scores.tolist(),
                bboxes=instances.bboxes.tolist(),
                labels=instances.labels.tolist(),
            )
            assert_same_detections(predicted, expected)


def assert_same_detections(predicted: dict, written: list) -> None:
    """mmdet's scores, [x1, y1, x2, y2] boxes and labels against detections.json's
    annotations (COCO [x, y, w, h] boxes; category ids from 1 in label order)."""
    assert len(predicted['scores']) == len(written)
    for score, box, label, annotation in zip(
        predicted['scores'], predicted['bboxes'], predicted['labels'], written
    ):
        x1, y1, x2, y2 = box
        assert score == pytest.approx(annotation['score'], abs=1e-4)
        assert [x1, y1, x2 - x1, y2 - y1] == pytest.approx(annotation['bbox'], abs=1e-2)
        assert label + 1 == annotation['category_id']
