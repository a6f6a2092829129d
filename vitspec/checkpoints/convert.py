"""Converting a checkpoint file into SpecViT's layout, with the architecture in its meta."""
import os
import os.path as osp
import tempfile

import torch

from vitspec.engine.safe_load import CheckpointError, safe_torch_load
from .architecture import infer_backbone_cfg
from .formats import convert_state_dict
from .load import unwrap_state_dict


def convert_checkpoint(checkpoint: dict, fmt: str, num_heads: int = None):
    """(state dict in SpecViT names, SpecViT kwargs that rebuild the source architecture)."""
    sd = convert_state_dict(unwrap_state_dict(checkpoint), fmt)
    return sd, infer_backbone_cfg(sd, fmt, num_heads)


def atomic_torch_save(obj, path: str):
    """Write to a temporary file beside ``path`` and rename: never a half-written file."""
    directory = osp.dirname(osp.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.' + osp.basename(path), suffix='.tmp')
    try:
        with os.fdopen(fd, 'wb') as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if osp.exists(tmp):
            os.remove(tmp)
        raise


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
