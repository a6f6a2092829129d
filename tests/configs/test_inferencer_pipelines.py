"""The configs' test pipelines as mmseg's and mmdet's own inference entry points rewrite them:
an image loader named ``LoadImageFromFile`` first (``inference_model`` and
``inference_detector`` swap ``test_pipeline[0]`` for an array loader, MMSegInferencer and
DetInferencer swap the transform of that name for their InferencerLoader), annotation loaders
removed by name, and CheckSampleFiles / LoadDepthPNG passing a bare image through."""

import copy
from types import SimpleNamespace

import numpy as np
import pytest
from mmdet.apis import DetInferencer
from mmdet.utils import get_test_pipeline_cfg
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.registry import DefaultScope
from mmseg.apis import MMSegInferencer
from mmseg.apis.utils import _preprare_data
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from vitspec.config.digest import built_config, leaf_configs

DEMO = ROOT / 'configs' / 'demo'
SEGMENTER = DEMO / 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DEPTH = DEMO / 'lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
DETECTOR = DEMO / 'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'


@pytest.fixture
def image(tmp_path):
    path = tmp_path / 'photo.jpg'
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (90, 120, 3), np.uint8)).save(path)
    return str(path)


def without_init(cls):
    """An inferencer object without its model: only its pipeline method is called."""
    return cls.__new__(cls)


@pytest.mark.parametrize('config', [SEGMENTER, DEPTH], ids=['segmenter', 'depth'])
def test_mmseg_inference_model_s_pipeline_takes_paths_and_arrays(config, image):
    for img in (image, np.asarray(Image.open(image))[..., ::-1].copy()):
        model = SimpleNamespace(cfg=Config.fromfile(config))
        with DefaultScope.overwrite_default_scope('mmseg'):
            data, _ = _preprare_data(img, model)
        assert data['inputs'][0].shape[0] == 3
        assert 'gt_sem_seg' not in data['data_samples'][0]


@pytest.mark.parametrize('config', [SEGMENTER, DEPTH], ids=['segmenter', 'depth'])
def test_mmseg_inferencer_s_pipeline_takes_paths(config, image):
    cfg = Config.fromfile(config)
    with DefaultScope.overwrite_default_scope('mmseg'):
        pipeline = without_init(MMSegInferencer)._init_pipeline(cfg)
        out = pipeline(image)
    names = [type(t).__name__ for t in pipeline.transforms]
    assert names[:2] == ['InferencerLoader', 'CheckSampleFiles']
    assert out['inputs'].shape[0] == 3 and 'gt_depth_map' not in out['data_samples']


def test_mmdet_inference_detector_and_det_inferencer_pipelines(image):
    cfg = Config.fromfile(DETECTOR)
    with DefaultScope.overwrite_default_scope('mmdet'):
        steps = get_test_pipeline_cfg(copy.deepcopy(cfg))
        steps[0].type = 'mmdet.LoadImageFromNDArray'  # as inference_detector does for arrays
        array = np.asarray(Image.open(image))[..., ::-1].copy()
        by_array = Compose(steps)(dict(img=array, img_id=0))
        by_path = Compose(get_test_pipeline_cfg(copy.deepcopy(cfg)))(dict(img_path=image, img_id=0))
        pipeline = without_init(DetInferencer)._init_pipeline(cfg)
        by_inferencer = pipeline(image)
    for out in (by_array, by_path, by_inferencer):
        assert out['inputs'].shape[0] == 3 and len(out['data_samples'].gt_instances) == 0


@pytest.mark.slow
def test_every_pipeline_loads_with_mmcv_s_loader_then_checks_the_files():
    """Each pipeline of each leaf config (train, val, test, tta, and the test_pipeline that
    mmseg's inference_model reads) begins with LoadImageFromFile, then CheckSampleFiles."""
    wrong = []
    for path in leaf_configs(ROOT / 'configs'):
        cfg = built_config(path)
        pipelines = {k: cfg.get(k) for k in ('train_pipeline', 'test_pipeline', 'tta_pipeline')}
        for split in ('train', 'val', 'test'):
            dataset = (cfg.get(f'{split}_dataloader') or {}).get('dataset') or {}
            for i, part in enumerate(dataset.get('datasets') or [dataset]):
                pipelines[f'{split}_dataloader.{i}'] = part.get('pipeline')
        assert cfg.get('test_pipeline'), path
        for name, pipeline in pipelines.items():
            head = [step.get('type') for step in (pipeline or [])[:2]]
            if pipeline and head != ['LoadImageFromFile', 'CheckSampleFiles']:
                wrong.append(f'{path.name} {name}: {head}')
    assert not wrong, wrong
