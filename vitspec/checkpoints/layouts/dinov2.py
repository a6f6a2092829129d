"""facebookresearch/dinov2's backbones (hub and training checkpoints, with or without
registers), mapped to SpecViT's names."""

from .rename import KEEP, rename_keys

# block_chunks > 0 stores blocks as blocks.<chunk>.<index>; the index is global
UNCHUNKED = [(r'^blocks\.\d+\.(\d+)\.', r'blocks.\1.'), KEEP]
RULES = [
    (r'\.mlp\.w12\.', '.mlp.fc1.'),
    (r'\.mlp\.w3\.', '.mlp.fc2.'),
    (r'^register_tokens$', 'reg_token'),
    KEEP,
]


def from_dinov2(sd: dict) -> dict:
    """DINOv2 -> SpecViT. ViT-g's SwiGLU MLP stores ``mlp.w12`` (gate and value packed, gate
    first) and ``mlp.w3``: SpecViT's SwiGLU ``mlp.fc1`` / ``mlp.fc2``, the same tensors (as timm
    maps them)."""
    return rename_keys(rename_keys(sd, UNCHUNKED, 'DINOv2'), RULES, 'DINOv2')
