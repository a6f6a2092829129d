"""A model ready to predict, from a checkpoint alone or a checkpoint and a config.

The checkpoint and its config come from ``read_trained`` (checkpoints/trained.py: the saved
config, or a given one checked against it before any weight is loaded); the weights go in
through ``load_state_dict_strict`` (checkpoints/load.py), the loader of every model: a missing or
mis-shaped weight is an error, never a silently random layer.
"""

import copy
import logging
from typing import NamedTuple, Optional

import torch
from mmengine.config import Config
from mmengine.logging import print_log
from mmengine.model import revert_sync_batchnorm
from mmengine.registry import DefaultScope, init_default_scope

from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.checkpoints.mismatch import FEW
from vitspec.checkpoints.trained import read_trained

SEGMENTATION, DEPTH, DETECTION = 'segmentation', 'depth', 'detection'
PANOPTIC = 'panoptic'


class LoadedModel(NamedTuple):
    model: torch.nn.Module  # in eval mode, on its device
    cfg: Config  # the config that built it
    task: str  # SEGMENTATION, DEPTH, DETECTION or PANOPTIC
    dataset_meta: dict  # classes and palette (empty for depth)
    checkpoint: str


def load_model(
    checkpoint: str, config: Optional[str] = None, device: str = 'cpu', check_config: bool = True
) -> LoadedModel:
    """Build the model of ``checkpoint`` (its saved config, or ``config``) and load its weights.

    Raises ConfigError when neither names a config, CheckpointError for a checkpoint that does
    not fit the model, and the saved-config check's error for a config that builds another model.
    """
    ckpt, cfg = read_trained(checkpoint, config, check_config)
    model = build_model(cfg)
    weights = {k.removeprefix('module.'): v for k, v in ckpt.get('state_dict', ckpt).items()}
    target = f'the model of its config ({type(model).__name__})'
    load_state_dict_strict(model, weights, str(checkpoint), few=FEW, target=target)
    model.to(device).eval()
    meta = ckpt.get('meta') or {}
    task = task_of(model, cfg.get('default_scope', 'mmseg'))
    return LoadedModel(model, cfg, task, dataset_meta(cfg, meta), str(checkpoint))


def build_model(cfg: Config) -> torch.nn.Module:
    """The model of ``cfg`` for inference: no pretrained weights read, no training parts."""
    cfg = copy.deepcopy(cfg)
    cfg.model.pop('pretrained', None)
    cfg.model['train_cfg'] = None
    scope = cfg.get('default_scope', 'mmseg')
    init_default_scope(scope)
    registry = _models_registry(scope)
    with DefaultScope.overwrite_default_scope(scope):
        model = registry.build(cfg.model)
    return revert_sync_batchnorm(model)  # SyncBN needs a process group; BN does the same in eval


def _datasets_registry(cfg: Config):
    if cfg.get('default_scope') == 'mmdet':
        from mmdet.registry import DATASETS
    else:
        from mmseg.registry import DATASETS
    return DATASETS


def _models_registry(scope: str):
    if scope == 'mmdet':
        from mmdet.registry import MODELS
    else:
        from mmseg.registry import MODELS
    return MODELS


def task_of(model: torch.nn.Module, scope: str = 'mmseg') -> str:
    """PANOPTIC for a model of mmdet's scope that predicts panoptic segmentation (things and
    stuff classes, ``test_cfg.panoptic_on``: EoMTPanoptic), DETECTION for every other model of
    mmdet's scope (vitspec's own detectors included), DEPTH for mmseg's DepthEstimator, else
    SEGMENTATION."""
    from mmseg.models.segmentors import DepthEstimator

    if scope == 'mmdet':
        panoptic = (getattr(model, 'test_cfg', None) or {}).get('panoptic_on', False)
        if panoptic and hasattr(model, 'num_stuff_classes'):
            return PANOPTIC
        return DETECTION
    if isinstance(model, DepthEstimator):
        return DEPTH
    return SEGMENTATION


def dataset_meta(cfg: Config, meta: dict) -> dict:
    """Classes and palette: the checkpoint's (training saves the dataset's), else the test
    dataset's ``metainfo`` in the config, else its class's own METAINFO."""
    saved = meta.get('dataset_meta')
    if isinstance(saved, dict) and saved.get('classes'):
        return dict(saved)
    dataset = (cfg.get('test_dataloader') or {}).get('dataset', {})
    if (dataset.get('metainfo') or {}).get('classes'):
        return dict(dataset['metainfo'])
    try:
        found = _datasets_registry(cfg).get(dataset['type']) if dataset.get('type') else None
    except KeyError:
        found = None
    if found is None:
        print_log(
            'the checkpoint names no classes and the config no dataset: classes are numbered',
            logger='current',
            level=logging.WARNING,
        )
        return {}
    return dict(getattr(found, 'METAINFO', {}))
