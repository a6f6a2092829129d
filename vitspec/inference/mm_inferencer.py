"""mmseg's and mmdet's own inferencers and image demos with vitspec configs and checkpoints.

``MMSegInferencer(model=<config>, weights=<checkpoint>)`` (and mmdet's DetInferencer) fails on
them twice: torch's
weights-only loading refuses mmengine's HistoryBuffer in a training checkpoint (vitspec's safe
loader allows it, but importing vitspec installs nothing into mmengine), and the inferencer
looks for a transform named exactly ``LoadImageFromFile`` in the test pipeline, where vitspec's
configs name their checked loader. ``inferencer_compatible(cfg)`` gives a config whose test
pipelines load with mmcv's loader and no annotations; ``SegInferencer`` and
``DetectionInferencer`` are MMSegInferencer and DetInferencer with both fixes (and the
checkpoint's saved config when no config is given).
"""

import copy

from mmdet.apis import DetInferencer
from mmengine.config import Config
from mmseg.apis import MMSegInferencer

from vitspec.checkpoints.trained import read_trained
from vitspec.config.load import load_config
from vitspec.errors import ConfigError
from vitspec.fileio import using_safe_io

IMAGE_LOADERS = {'CheckedLoadImageFromFile': 'LoadImageFromFile'}
ANNOTATION_LOADERS = frozenset(
    {'CheckedLoadAnnotations', 'LoadAnnotations', 'LoadDepthPNG', 'LoadDepthAnnotation'}
)


def _plain_pipeline(pipeline) -> list:
    steps = []
    for step in pipeline:
        kind = step.get('type')
        if kind in ANNOTATION_LOADERS:
            continue
        step = copy.deepcopy(step)
        step['type'] = IMAGE_LOADERS.get(kind, kind)
        steps.append(step)
    return steps


def inferencer_compatible(cfg: Config) -> Config:
    """A copy of ``cfg`` whose test pipelines (``test_dataloader``'s and ``test_pipeline``)
    read images with mmcv's LoadImageFromFile and load no annotations, as mmseg's
    MMSegInferencer and ``init_model`` / ``inference_model`` and mmdet's DetInferencer and
    ``init_detector`` / ``inference_detector`` expect."""
    cfg = copy.deepcopy(cfg)
    dataset = cfg.test_dataloader.dataset
    dataset.pipeline = _plain_pipeline(dataset.pipeline)
    if cfg.get('test_pipeline'):
        cfg.test_pipeline = _plain_pipeline(cfg.test_pipeline)
    return cfg


def _config_for(model, weights) -> Config:
    """``model`` as a Config: a path, a Config, or None for the checkpoint's own config; with
    weights, through ``read_trained`` (a config of another model is refused)."""
    if model is None and weights is None:
        raise ConfigError('an inferencer needs a config, a checkpoint or both')
    if weights is not None:
        model = read_trained(weights, model, mmap=True).cfg
    elif not isinstance(model, Config):
        model = load_config(str(model))
    return inferencer_compatible(model)


class SegInferencer(MMSegInferencer):
    """MMSegInferencer for vitspec: ``SegInferencer(model=config or None, weights=checkpoint)``.

    The checkpoint is read with vitspec's safe loader, the config's test pipeline made
    compatible, and with ``model=None`` the config is the checkpoint's own (meta.cfg).
    """

    def __init__(self, model=None, weights=None, **kwargs):
        cfg = _config_for(model, weights)
        with using_safe_io():
            super().__init__(model=cfg, weights=weights, **kwargs)


class DetectionInferencer(DetInferencer):
    """mmdet's DetInferencer for vitspec, as SegInferencer."""

    def __init__(self, model=None, weights=None, **kwargs):
        cfg = _config_for(model, weights)
        with using_safe_io():
            super().__init__(model=cfg, weights=weights, **kwargs)
