"""Converting a released EoMT checkpoint (tue-mps/eomt) into a checkpoint of our EoMT segmentor,
checked against EoMTNetwork before writing."""

import os.path as osp

from vitspec.checkpoints.layouts.eomt import convert_eomt_checkpoint
from vitspec.conversion.checkpoint import check_loads_on_meta
from vitspec.fileio import atomic_torch_save, safe_torch_load
from vitspec.models.backbones.spec_vit import SpecViT
from vitspec.models.eomt.network import EoMTNetwork

# where the segmentor EoMT holds its EoMTNetwork: the converted keys live under it
SEGMENTOR_PREFIX = 'network.'


def convert_eomt_file(src: str, dst: str, num_heads: int = None, trust_pickle=False) -> dict:
    """Convert ``src`` to ``dst`` (``state_dict`` under ``network.``, ``meta['backbone_cfg']``
    and ``meta['eomt_cfg']``); returns the meta."""
    checkpoint = safe_torch_load(src, trust_pickle=trust_pickle)
    sd, backbone_cfg, eomt_cfg = convert_eomt_checkpoint(checkpoint, num_heads)
    check_network_builds(sd, backbone_cfg, eomt_cfg, src)
    meta = dict(
        backbone_cfg=backbone_cfg, eomt_cfg=eomt_cfg, source=osp.basename(src), format='eomt'
    )
    state_dict = {SEGMENTOR_PREFIX + k: v for k, v in sd.items()}
    atomic_torch_save(dict(meta=meta, state_dict=state_dict), dst)
    return meta


def check_network_builds(sd: dict, backbone_cfg: dict, eomt_cfg: dict, source: str) -> None:
    """Fail before writing if the weights do not load strictly into the EoMTNetwork they
    describe."""
    check_loads_on_meta(lambda: EoMTNetwork(SpecViT(**backbone_cfg), **eomt_cfg), sd, source)
