"""Converting a checkpoint into SpecViT's layout, with the architecture that rebuilds it."""

from .architecture import infer_backbone_cfg
from .formats import convert_state_dict
from .load import unwrap_state_dict


def convert_checkpoint(checkpoint: dict, fmt: str, num_heads: int = None):
    """(state dict in SpecViT names, SpecViT kwargs that rebuild the source architecture)."""
    sd = convert_state_dict(unwrap_state_dict(checkpoint), fmt)
    return sd, infer_backbone_cfg(sd, fmt, num_heads)
