"""Converting a checkpoint into SpecViT's layout, with the architecture that rebuilds it."""

from vitspec.layers.rope import rope_periods

from .architecture import infer_backbone_cfg
from .containers import unwrap_state_dict
from .layouts.backbone_formats import convert_state_dict


def convert_checkpoint(checkpoint: dict, fmt: str, num_heads: int = None, **pick):
    """(state dict in SpecViT names, SpecViT kwargs that rebuild the source architecture).

    ``pick``: which weights of a training checkpoint (containers.pick_weights: ``use_ema``,
    ``branch``)."""
    sd = convert_state_dict(unwrap_state_dict(checkpoint, **pick), fmt)
    cfg = infer_backbone_cfg(sd, fmt, num_heads)
    rope = cfg.get('rope')
    if rope and 'rope.periods' not in sd:  # timm's port computes its periods: write them down
        head_dim = cfg['embed_dims'] // cfg['num_heads']
        sd['rope.periods'] = rope_periods(
            head_dim, rope['base'], rope.get('min_period'), rope.get('max_period')
        )
    return sd, cfg
