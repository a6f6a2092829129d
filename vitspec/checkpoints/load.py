"""Loading a (converted) checkpoint into SpecViT: strict, with named exceptions."""

import math
from typing import NamedTuple

import timm
from mmengine.logging import print_log

from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load
from vitspec.layers import resample_pos_embed

from .containers import unwrap_state_dict
from .formats import SOURCE_ONLY_KEYS, convert_state_dict
from .mismatch import describe_mismatch, find_mismatch


def drop_cls(model, sd: dict) -> list:
    """A backbone built without CLS token (ViTDet) drops a checkpoint's ``cls_token`` and the
    CLS slot of its pos_embed (as ViTDet's ``pretrain_use_cls_token``); returns what it dropped."""
    if getattr(model, 'cls_token', None) is not None or model.pos_embed_cls:
        return []
    dropped = [key for key in ('cls_token',) if sd.pop(key, None) is not None]
    pos = sd.get('pos_embed')
    if pos is not None and not _square(pos.shape[1]) and _square(pos.shape[1] - 1):
        sd['pos_embed'] = pos[:, 1:]
        dropped.append('pos_embed[:, 0] (CLS slot)')
    return dropped


def _square(n: int) -> bool:
    return math.isqrt(n) ** 2 == n


def fit_pos_embed(model, sd: dict) -> dict:
    """Resample a checkpoint's pos_embed (square grid assumed) to the model's grid."""
    pos = sd.get('pos_embed')
    if pos is None or model.pos_embed is None or pos.shape == model.pos_embed.shape:
        return sd  # a model without a table: the strict check names pos_embed as unexpected
    num_prefix = int(model.pos_embed_cls)
    side = math.isqrt(pos.shape[1] - num_prefix)
    if side * side != pos.shape[1] - num_prefix or pos.shape[-1] != model.pos_embed.shape[-1]:
        raise CheckpointError(
            f'pos_embed of shape {tuple(pos.shape)} does not fit the model '
            f'({tuple(model.pos_embed.shape)})'
        )
    sd['pos_embed'] = resample_pos_embed(
        pos, model.grid_size, (side, side), num_prefix, model.pos_embed_interp
    )
    return sd


def load_state_dict_strict(model, sd: dict, source: str = 'checkpoint', assign: bool = False):
    """Load, raising CheckpointError listing every missing / unexpected / mis-shaped key.

    Keys the model can fill itself (``model.fill_missing(sd, missing)`` adds them to ``sd`` and
    returns their names, e.g. CLS copies of specialized weights) may be missing and are
    reported; source-only keys (formats.SOURCE_ONLY_KEYS) the model lacks are dropped and
    reported.
    """
    own = model.state_dict()
    dropped = sorted(k for k in sd if k not in own and SOURCE_ONLY_KEYS.match(k))
    sd = {k: v for k, v in sd.items() if k not in dropped}
    mismatch = find_mismatch(own, sd)
    filled = getattr(model, 'fill_missing', lambda sd, missing: [])(sd, mismatch.missing)
    mismatch = mismatch._replace(missing=[k for k in mismatch.missing if k not in filled])
    if mismatch:
        lines = [f'{source} does not fit {type(model).__name__}:', *describe_mismatch(mismatch)]
        raise CheckpointError('\n'.join(lines))
    model.load_state_dict(sd, strict=True, assign=assign)
    for title, keys in (
        ('ignored source keys', dropped),
        (
            'not in the checkpoint, initialized from shared weights (CLS copies) '
            'or at their own init (LoRA B, relative position biases)',
            filled,
        ),
    ):
        if keys:
            print_log(f'{source}: {title}: {", ".join(keys)}', logger='current')
    return filled


class Loaded(NamedTuple):
    filled: list  # keys the model filled itself (see load_state_dict_strict)
    backbone_cfg: dict  # the source architecture (meta['backbone_cfg']), None if unknown


def load_pretrained(model, filename: str) -> Loaded:
    """Load a SpecViT-layout checkpoint (see tools/convert_checkpoint.py) into ``model``.

    ``timm:<model name>`` fetches the weights through timm's own pretrained loader (online).
    """
    backbone_cfg = None
    if filename.startswith('timm:'):
        sd = _timm_state_dict(filename[len('timm:') :])
    else:
        checkpoint = safe_torch_load(filename)
        meta = checkpoint.get('meta') if isinstance(checkpoint, dict) else None
        backbone_cfg = meta.get('backbone_cfg') if isinstance(meta, dict) else None
        sd = unwrap_state_dict(checkpoint)
    sd = dict(sd)
    dropped = drop_cls(model, sd)
    if dropped:
        print_log(
            f'{filename}: dropped for a backbone without CLS token: {", ".join(dropped)}',
            logger='current',
        )
    sd = fit_pos_embed(model, sd)
    filled = load_state_dict_strict(model, sd, source=filename)
    print_log(f'loaded pretrained weights from {filename}', logger='current')
    return Loaded(filled, backbone_cfg)


def _timm_state_dict(name: str) -> dict:
    try:
        source = timm.create_model(name, pretrained=True, num_classes=0)
    except Exception as exc:  # offline, unknown name, hub errors: all end the same way
        raise CheckpointError(
            f'could not fetch pretrained timm weights {name!r} '
            f'(is this machine online?): {type(exc).__name__}: {exc}'
        ) from None
    fmt = 'cait' if name.startswith('cait') else 'timm'
    return convert_state_dict(source.state_dict(), fmt)
