"""A released decode head (DINOv2's trained probes, DINOv3's Mask2Former segmentor) and the
backbone checkpoint its config names, combined into one checkpoint of the config's model: the
published head evaluated (tools/test.py) without training.

The model is built from the config; its backbone loads the config's pretrained checkpoint (or
``backbone``) as training would (SpecViT.init_weights; a ViTAdapter's is its ``vit``'s), its head
the converted released weights, both strictly; a released trained adapter (DINOv3's) fills the
ViTAdapter's own modules, strictly too, and one that holds its ViT (DINOv2's, ViT-Adapter's) the
ViT as well. The file holds the model's whole state dict.
"""

import os.path as osp

from mmengine.registry import MODELS, init_default_scope

from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.layouts.dinov3_m2f import FROZEN_VIT_PREFIX
from vitspec.checkpoints.layouts.head_formats import (
    ADAPTER_WITH_VIT,
    convert_adapter_state_dict,
    convert_head_state_dict,
)
from vitspec.config.load import load_config
from vitspec.errors import CheckpointError
from vitspec.fileio import atomic_torch_save, safe_torch_load

FILLED_PARTS = ('backbone.', 'decode_head.')


def head_state_dict(checkpoint) -> dict:
    """The tensors of a released head file: mmengine / mmcv's ``state_dict`` entry, or the
    file itself when it is a plain tensor dict."""
    if isinstance(checkpoint, dict) and isinstance(checkpoint.get('state_dict'), dict):
        checkpoint = checkpoint['state_dict']
    if not isinstance(checkpoint, dict):
        raise CheckpointError(f'a released head is a dict of tensors, not a {type(checkpoint)}')
    return {k[len('module.') :] if k.startswith('module.') else k: v for k, v in checkpoint.items()}


def set_pretrained_backbone(part, config: str, backbone: str = None) -> None:
    """Point the config dict ``part`` at ``backbone`` (when given) as its Pretrained checkpoint,
    and check that it names an existing one."""
    if backbone is not None:
        part.init_cfg = dict(type='Pretrained', checkpoint=backbone)
    init_cfg = part.get('init_cfg') or {}
    if init_cfg.get('type') != 'Pretrained':
        raise CheckpointError(f'{config}: the backbone names no Pretrained checkpoint; give one')
    if not osp.isfile(init_cfg['checkpoint']):
        raise FileNotFoundError(
            f'{init_cfg["checkpoint"]}: the backbone checkpoint of {config} (convert the '
            'released backbone first: the ledger row\'s "convert" command)'
        )


def pretrained_part(backbone_cfg):
    """The config dict that names the pretrained checkpoint: a ViTAdapter's ``vit``, else the
    backbone itself."""
    return backbone_cfg.vit if backbone_cfg.get('type') == 'ViTAdapter' else backbone_cfg


def build_model_with_backbone(config: str, backbone: str = None):
    """(the config's model with its backbone's pretrained weights loaded, the config)."""
    cfg = load_config(config)
    set_pretrained_backbone(pretrained_part(cfg.model.backbone), config, backbone)
    init_default_scope(cfg.get('default_scope', 'mmseg'))
    model = MODELS.build(cfg.model)
    unfilled = sorted(
        {k.split('.')[0] for k in model.state_dict() if not k.startswith(FILLED_PARTS)}
    )
    if unfilled:
        raise CheckpointError(f'{config}: a released head fills no {", ".join(unfilled)}')
    model.backbone.init_weights()
    return model, cfg


def convert_head_file(
    config: str,
    src: str,
    dst: str,
    fmt: str = 'dinov2',
    backbone: str = None,
    trust_pickle: bool = False,
) -> dict:
    """Write ``dst``: the model of ``config`` with the released head ``src`` (``fmt`` layout) and
    the backbone checkpoint (``backbone``, default the config's). Returns the file's meta."""
    model, cfg = build_model_with_backbone(config, backbone)
    head_type = type(model.decode_head).__name__
    sd = head_state_dict(safe_torch_load(src, trust_pickle=trust_pickle))
    head, others = convert_head_state_dict(sd, fmt, head_type)
    load_state_dict_strict(model.decode_head, head, source=src)
    backbone_type = type(model.backbone).__name__
    adapter = convert_adapter_state_dict(sd, fmt, backbone_type, model.backbone.state_dict())
    if adapter is not None:
        load_state_dict_strict(model.backbone, adapter, source=src)
        if fmt in ADAPTER_WITH_VIT:  # its ViT too: the file's backbone is all used
            others = [k for k in others if not k.startswith('backbone.')]
        else:
            others = [k for k in others if k.startswith(FROZEN_VIT_PREFIX)]
    meta = dict(
        head_source=osp.basename(src),
        head_format=fmt,
        head_type=head_type,
        backbone_checkpoint=pretrained_part(cfg.model.backbone).init_cfg['checkpoint'],
        adapter=adapter is not None,
        config=osp.basename(config),
        ignored_source_keys=len(others),  # a whole segmentor / depther: its backbone copy
    )
    atomic_torch_save(dict(meta=meta, state_dict=model.state_dict()), dst)
    return meta
