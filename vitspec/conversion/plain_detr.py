"""DINOv3's released COCO detector head (``dinov3_vit7b16_coco2017_detr_head-*.pth``) and the
backbone checkpoint its config names, combined into one checkpoint of the config's PlainDETR,
loaded strictly before writing, so that tools/test.py evaluates the published detector."""

import os.path as osp

from mmengine.registry import MODELS, init_default_scope

from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.layouts.dinov3_detr import detector_state_dict, from_dinov3_detector
from vitspec.config.load import load_config
from vitspec.conversion.head_with_backbone import set_pretrained_backbone
from vitspec.errors import CheckpointError
from vitspec.fileio import atomic_torch_save, safe_torch_load

BACKBONE_PREFIX = 'features.backbone.'


def build_detector(config: str, backbone: str = None):
    """(the config's PlainDETR with its backbone's pretrained weights loaded, the config)."""
    cfg = load_config(config)
    if cfg.model.get('type') != 'PlainDETR':
        raise CheckpointError(f'{config}: a DINOv3 detector head converts into a PlainDETR config')
    set_pretrained_backbone(cfg.model.backbone, config, backbone)
    init_default_scope(cfg.get('default_scope', 'mmdet'))
    model = MODELS.build(cfg.model)
    model.backbone.init_weights()
    return model, cfg


def convert_detr_head_file(
    config: str, src: str, dst: str, backbone: str = None, trust_pickle: bool = False
) -> dict:
    """Write ``dst``: the PlainDETR of ``config`` with the released head ``src`` and the backbone
    checkpoint (``backbone``, default the config's). Returns the file's meta."""
    model, cfg = build_detector(config, backbone)
    head, frozen = from_dinov3_detector(
        detector_state_dict(safe_torch_load(src, trust_pickle=trust_pickle))
    )
    own = model.state_dict()
    whole = {k: v for k, v in own.items() if k.startswith(BACKBONE_PREFIX)} | head
    load_state_dict_strict(model, whole, source=src)
    meta = dict(
        head_source=osp.basename(src),
        head_format='dinov3-detr',
        backbone_checkpoint=cfg.model.backbone.init_cfg['checkpoint'],
        config=osp.basename(config),
        ignored_source_keys=len(frozen),  # a file holding the frozen ViT: the backbone's instead
    )
    atomic_torch_save(dict(meta=meta, state_dict=model.state_dict()), dst)
    return meta
