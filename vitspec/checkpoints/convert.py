"""Converting a checkpoint file into SpecViT's layout, with the architecture in its meta."""
import io
import os.path as osp

import torch

from vitspec.engine.atomic_io import atomic_write_bytes
from vitspec.engine.safe_load import safe_torch_load
from .architecture import infer_backbone_cfg
from .formats import convert_state_dict
from .load import unwrap_state_dict


def convert_checkpoint(checkpoint: dict, fmt: str, num_heads: int = None):
    """(state dict in SpecViT names, SpecViT kwargs that rebuild the source architecture)."""
    sd = convert_state_dict(unwrap_state_dict(checkpoint), fmt)
    return sd, infer_backbone_cfg(sd, fmt, num_heads)


def atomic_torch_save(obj, path: str):
    """torch.save that never leaves a half-written file under ``path``."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    atomic_write_bytes(buffer.getvalue(), path)


def convert_file(src: str, dst: str, fmt: str, num_heads: int = None) -> dict:
    """Convert ``src`` to ``dst``; returns the backbone_cfg stored in ``dst``'s meta."""
    sd, backbone_cfg = convert_checkpoint(safe_torch_load(src), fmt, num_heads)
    _check_builds(sd, backbone_cfg, src)
    meta = dict(backbone_cfg=backbone_cfg, source=osp.basename(src), format=fmt)
    atomic_torch_save(dict(meta=meta, state_dict=sd), dst)
    return backbone_cfg


def _check_builds(sd, backbone_cfg, src):
    """Fail before writing anything if the converted weights do not load into SpecViT."""
    from vitspec.models.backbones.spec_vit import SpecViT
    from .load import load_state_dict_strict
    with torch.device('meta'):
        model = SpecViT(**backbone_cfg)
    load_state_dict_strict(model, {k: v.to('meta') for k, v in sd.items()}, source=src,
                           assign=True)
