"""SpecViT's checkpoint filter, as timm's ``checkpoint_filter_fn(state_dict, model)`` adapts a
checkpoint to the model it is loaded into: a converted (SpecViT-layout) state dict loses the CLS
token a backbone without one has no place for, has its position table resampled to the model's
grid, and gets the parameters the model starts itself (`fill_missing_keys`)."""

import math

from vitspec.checkpoints.filtered import FilteredCheckpoint
from vitspec.errors import CheckpointError
from vitspec.layers.pos_embed import resample_pos_embed

from .missing_keys import fill_missing_keys


def filter_checkpoint(model, state_dict: dict) -> FilteredCheckpoint:
    """``state_dict`` (not changed) adapted to the SpecViT ``model``."""
    sd = dict(state_dict)
    notes = []
    dropped = _drop_cls(model, sd)
    if dropped:
        notes.append(f'dropped for a backbone without CLS token: {", ".join(dropped)}')
    _fit_pos_embed(model, sd)
    own = model.state_dict()
    missing = [k for k in own if k not in sd]
    filled = fill_missing_keys(own, sd, missing, model.layer_scale_init == 1.0)
    if filled:
        notes.append(
            'not in the checkpoint, initialized from shared weights (CLS / query copies) or at '
            f'their own init (LoRA B, relative position biases, rope periods): {", ".join(filled)}'
        )
    return FilteredCheckpoint(sd, filled, notes)


def _drop_cls(model, sd: dict) -> list:
    """A backbone built without CLS token (ViTDet) drops a checkpoint's ``cls_token`` and the
    CLS slot of its pos_embed (as ViTDet's ``pretrain_use_cls_token``); returns what it dropped."""
    if model.cls_token is not None or model.pos_embed_cls:
        return []
    dropped = [key for key in ('cls_token',) if sd.pop(key, None) is not None]
    pos = sd.get('pos_embed')
    if pos is not None and not _square(pos.shape[1]) and _square(pos.shape[1] - 1):
        sd['pos_embed'] = pos[:, 1:]
        dropped.append('pos_embed[:, 0] (CLS slot)')
    return dropped


def _square(n: int) -> bool:
    return math.isqrt(n) ** 2 == n


def _fit_pos_embed(model, sd: dict) -> None:
    """Resample a checkpoint's pos_embed (square grid assumed) to the model's grid."""
    pos = sd.get('pos_embed')
    if pos is None or model.pos_embed is None or pos.shape == model.pos_embed.shape:
        return  # a model without a table: the strict check names pos_embed as unexpected
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
