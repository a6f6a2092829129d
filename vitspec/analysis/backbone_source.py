"""A SpecViT to analyse, from a config, a config plus weights, or a converted checkpoint
(tools/convert_checkpoint.py stores the architecture in meta['backbone_cfg']); the analysis
tools (model_info, visualize_features) name their backbones this way.

    configs/x.py              the config's backbone; its init_cfg checkpoint if the file exists,
                              else random weights (seeded)
    configs/x.py=run.pth      the config's backbone with the backbone weights of run.pth
                              (a training checkpoint of the whole model is fine; the config is
                              checked against the one it was trained with, as every tool does)
    converted.pth             SpecViT(**meta['backbone_cfg']) with its weights
"""

import copy
import inspect
import os
import os.path as osp

import torch
from mmengine.config import Config
from mmengine.logging import MMLogger

from vitspec.checkpoints.load import load_read_checkpoint
from vitspec.checkpoints.trained import read_trained
from vitspec.config.chain import base_names, inherited_text
from vitspec.config.location import config_dir
from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load
from vitspec.models.backbones.spec_vit import SpecViT

TECHNIQUES = osp.join('_base_', 'models', 'techniques')  # below config_dir()


def technique_keys(config_path: str = None) -> set:
    """SpecViT arguments set by the technique fragment(s) a config inherits
    (``_base_/models/techniques/<name>.py``); with none, or no config, those of every fragment."""
    names = []
    if config_path is not None:
        names = base_names(inherited_text(config_path), 'techniques')
    techniques = config_dir() / TECHNIQUES
    if not names:
        names = [n[:-3] for n in sorted(os.listdir(techniques)) if n.endswith('.py')]
    keys = set()
    for name in names:
        keys |= set(Config.fromfile(techniques / f'{name}.py').technique)
    return keys


def plain_backbone_cfg(backbone: dict, keys: set) -> dict:
    """``backbone`` with the technique arguments ``keys`` back at SpecViT's defaults."""
    defaults = {n: p.default for n, p in inspect.signature(SpecViT.__init__).parameters.items()}
    plain = dict(backbone)
    for key in keys:
        plain[key] = defaults[key]
    return plain


def model_files(sources) -> list:
    """The files the model sources name (configs and checkpoints): inputs no output may replace."""
    return [part for source in sources for part in source.split('=') if part]


def load_backbone(source: str, seed: int = 0, **overrides):
    """(SpecViT in eval mode, a short label) from a source as described in the module doc.
    A config with weights goes through ``read_trained``: SavedConfigMismatch when the weights
    were trained as another model."""
    config, _, weights = source.partition('=')
    checkpoint = None
    if config.endswith('.py'):
        full = Config.fromfile(config)
        cfg = copy.deepcopy(full.model.backbone.to_dict())
        init = cfg.pop('init_cfg', None) or {}
        if not weights and init.get('type') == 'Pretrained' and osp.isfile(init['checkpoint']):
            weights = init['checkpoint']
        if weights:
            checkpoint = read_trained(weights, full).checkpoint
        label = osp.splitext(osp.basename(config))[0]
    else:
        checkpoint = safe_torch_load(config)
        meta = checkpoint.get('meta') or {}
        if 'backbone_cfg' not in meta:
            raise CheckpointError(
                f"{config}: no meta['backbone_cfg']; convert it with "
                'tools/convert_checkpoint.py or pass CONFIG=CHECKPOINT'
            )
        cfg, weights = dict(type='SpecViT', **meta['backbone_cfg']), config
        label = osp.splitext(osp.basename(config))[0]
    cfg.pop('type', None)
    cfg.update(overrides)
    MMLogger.get_instance('vitspec-tools', log_level='WARNING')  # quiet init_weights report
    torch.manual_seed(seed)
    model = SpecViT(**cfg)
    if weights:
        load_read_checkpoint(model, checkpoint, weights)
    else:
        model.init_weights()
        label += ' (random)'
    return model.eval(), label
