"""Converting a checkpoint file into SpecViT's layout, checked against SpecViT before writing.

The conversion itself (vitspec.checkpoints) knows state dicts only; building the SpecViT that
proves the converted weights fit happens here, above both checkpoints and models.
"""

import os.path as osp

import torch

from vitspec.checkpoints import load_state_dict_strict
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.fileio import atomic_torch_save, safe_torch_load
from vitspec.models.backbones.spec_vit import SpecViT


def convert_file(
    src: str, dst: str, fmt: str, num_heads: int = None, trust_pickle: bool = False, **pick
) -> dict:
    """Convert ``src`` to ``dst``; returns the backbone_cfg stored in ``dst``'s meta.

    ``pick`` chooses the weights of a training checkpoint (``use_ema``, ``branch``: see
    vitspec.checkpoints.containers); ``trust_pickle`` unpickles a file the allow-list refuses
    (safe_torch_load), for a file the user made themselves."""
    checkpoint = safe_torch_load(src, trust_pickle=trust_pickle)
    sd, backbone_cfg = convert_checkpoint(checkpoint, fmt, num_heads, **pick)
    check_builds(sd, backbone_cfg, src)
    meta = dict(backbone_cfg=backbone_cfg, source=osp.basename(src), format=fmt)
    atomic_torch_save(dict(meta=meta, state_dict=sd), dst)
    return backbone_cfg


def check_builds(sd: dict, backbone_cfg: dict, source: str) -> None:
    """Fail before writing anything if the converted weights do not load strictly into the
    SpecViT that ``backbone_cfg`` describes."""
    check_loads_on_meta(lambda: SpecViT(**backbone_cfg), sd, source)


def check_loads_on_meta(build, sd: dict, source: str) -> None:
    """Fail before writing anything if ``sd`` does not load strictly into the model that
    ``build()`` returns, built on the meta device (no memory, no init)."""
    with torch.device('meta'):
        model = build()
    load_state_dict_strict(
        model, {k: v.to('meta') for k, v in sd.items()}, source=source, assign=True
    )
