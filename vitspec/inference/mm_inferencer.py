"""mmseg's own inferencer and image demo with vitspec configs and checkpoints.

``MMSegInferencer(model=<config>, weights=<checkpoint>)`` fails on them twice: torch's
weights-only loading refuses mmengine's HistoryBuffer in a training checkpoint (vitspec's safe
loader allows it, but importing vitspec installs nothing into mmengine), and the inferencer
looks for a transform named exactly ``LoadImageFromFile`` in the test pipeline, where vitspec's
configs name their checked loader. ``mmseg_compatible(cfg)`` gives a config whose test pipelines
load with mmcv's loader and no annotations, and ``SegInferencer`` is MMSegInferencer with both
fixes (and the checkpoint's saved config when no config is given).
"""

import copy

from mmengine.config import Config
from mmseg.apis import MMSegInferencer

from vitspec.config.load import load_config
from vitspec.config.saved import saved_config
from vitspec.errors import ConfigError
from vitspec.fileio import safe_torch_load, using_safe_io

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


def mmseg_compatible(cfg: Config) -> Config:
    """A copy of ``cfg`` whose test pipelines (``test_dataloader``'s and ``test_pipeline``)
    read images with mmcv's LoadImageFromFile and load no annotations, as mmseg's
    MMSegInferencer and ``init_model`` / ``inference_model`` expect."""
    cfg = copy.deepcopy(cfg)
    dataset = cfg.test_dataloader.dataset
    dataset.pipeline = _plain_pipeline(dataset.pipeline)
    if cfg.get('test_pipeline'):
        cfg.test_pipeline = _plain_pipeline(cfg.test_pipeline)
    return cfg


class SegInferencer(MMSegInferencer):
    """MMSegInferencer for vitspec: ``SegInferencer(model=config or None, weights=checkpoint)``.

    The checkpoint is read with vitspec's safe loader, the config's test pipeline made
    mmseg-compatible, and with ``model=None`` the config is the checkpoint's own (meta.cfg).
    """

    def __init__(self, model=None, weights=None, **kwargs):
        if model is None:
            if weights is None:
                raise ConfigError('SegInferencer needs a config, a checkpoint or both')
            model = saved_config(safe_torch_load(weights))
            if model is None:
                raise ConfigError(f'{weights} holds no training config (meta.cfg): name one')
        elif not isinstance(model, Config):
            model = load_config(str(model))
        with using_safe_io():
            super().__init__(model=mmseg_compatible(model), weights=weights, **kwargs)
