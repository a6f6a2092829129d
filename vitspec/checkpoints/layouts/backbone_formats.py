"""The backbone layouts ``--format`` / ``convert_state_dict`` know, by name, and the source-only
keys that conversion drops. Each converter takes the unwrapped tensor dict of one source layout
and returns a dict in SpecViT's (timm's) names."""

import re

from vitspec.errors import ConfigError

from .deit import from_cait, from_deit3
from .dinov2 import from_dinov2
from .dinov3 import from_dinov3
from .mae import from_mae
from .timm import from_timm

# Source-only parts a dense backbone never uses, in SpecViT's (timm's) names: classifier heads
# (DeiT's distillation head and token), the classifier's pooled-feature norm ``fc_norm`` (MAE
# fine-tuned with global pooling has no final ``norm``: from_mae makes its fc_norm the norm
# first), DINOv2's and MAE's ``mask_token``, MAE's pre-training decoder and DINOv3's norm of
# the local crops' CLS token (``local_cls_norm``, pretraining only). Conversion drops them;
# loading drops those the model does not have, so an unconverted checkpoint loads too.
SOURCE_ONLY_KEYS = re.compile(
    r'^(head\.|head_dist\.|fc_norm\.|decoder_|decoder\.|mask_token$|dist_token$|local_cls_norm\.)'
)

FORMATS = dict(
    timm=from_timm,
    dinov2=from_dinov2,
    deit3=from_deit3,
    cait=from_cait,
    mae=from_mae,
    dinov3=from_dinov3,
)


def convert_state_dict(sd: dict, fmt: str) -> dict:
    """``sd`` in ``fmt``'s layout -> SpecViT's names, the source-only keys dropped."""
    if fmt not in FORMATS:
        raise ConfigError(f'unknown checkpoint format {fmt!r}; choose from {", ".join(FORMATS)}')
    return {k: v for k, v in FORMATS[fmt](sd).items() if not SOURCE_ONLY_KEYS.match(k)}
