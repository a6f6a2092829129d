"""Loading a checkpoint into a model: strict, with named exceptions. What fits the checkpoint to
the model is the model's own filter (``filter_checkpoint``); this module reads the file, converts
formats and loads.

``load_state_dict_strict`` is the one function that puts a checkpoint's weights into a model:
a pretrained backbone (``init_cfg``, here), a Runner's ``load_from`` and resume
(engine/checkpointing/strict_load.py) and a trained model for inference, export and the
analysis tools (inference/model_loading.py) all load through it.
"""

from collections import OrderedDict
from typing import NamedTuple

import timm
from mmengine.logging import print_log

from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load

from .containers import unwrap_state_dict
from .filtered import FilteredCheckpoint
from .layouts.backbone_formats import SOURCE_ONLY_KEYS, convert_state_dict
from .mismatch import MAY_MISS, check_fits


def load_state_dict_strict(
    model, sd: dict, source: str = 'checkpoint', assign: bool = False, few: int = None, target=None
) -> list:
    """Load ``sd`` into ``model``, raising CheckpointError listing every missing / unexpected /
    mis-shaped key ('``source`` does not fit ``target``:', ``target`` by default the model's
    class name; ``few``: see mismatch.describe_mismatch). Returns the keys the model filled
    itself.

    Source-only keys (layouts/backbone_formats.py) the model lacks are dropped and reported; then
    the model's own checkpoint filter, ``model.filter_checkpoint(sd)`` -> `FilteredCheckpoint`
    (timm's ``checkpoint_filter_fn``), adapts the rest to it (SpecViT: resampled position table,
    CLS copies of specialized weights filled from the shared ones, ...); a model without one
    gets ``sd`` as it is. The only other keys the model may fill itself are BatchNorm's
    ``num_batches_tracked`` counters (mismatch.MAY_MISS), which older checkpoints lack: they
    keep the model's value, as in mmengine's loader.
    """
    own = model.state_dict()
    metadata = getattr(sd, '_metadata', None)  # module versions: BatchNorm reads them
    dropped = sorted(k for k in sd if k not in own and SOURCE_ONLY_KEYS.match(k))
    sd = {k: v for k, v in sd.items() if k not in dropped}
    model_filter = getattr(model, 'filter_checkpoint', None)
    filtered = model_filter(sd) if model_filter else FilteredCheckpoint(sd, [], [])
    heading = f'{source} does not fit {target or type(model).__name__}:'
    check_fits(own, filtered.state_dict, heading, MAY_MISS, few)
    kept = [k for k in own if k not in filtered.state_dict and k.endswith(MAY_MISS)]
    state_dict = OrderedDict(filtered.state_dict)
    state_dict.update((k, own[k]) for k in kept)
    if metadata is not None:
        state_dict._metadata = metadata
    model.load_state_dict(state_dict, strict=True, assign=assign)
    if dropped:
        print_log(f'{source}: ignored source keys: {", ".join(dropped)}', logger='current')
    for note in filtered.notes:
        print_log(f'{source}: {note}', logger='current')
    return [*filtered.filled, *kept]


class Loaded(NamedTuple):
    filled: list  # keys the model filled itself (see load_state_dict_strict)
    backbone_cfg: dict  # the source architecture (meta['backbone_cfg']), None if unknown


def load_pretrained(model, filename: str) -> Loaded:
    """Load a SpecViT-layout checkpoint (see tools/convert_checkpoint.py) into ``model``.

    ``timm:<model name>`` fetches the weights through timm's own pretrained loader (online).
    """
    if filename.startswith('timm:'):
        sd = _timm_state_dict(filename[len('timm:') :])
        filled = load_state_dict_strict(model, sd, source=filename)
        print_log(f'loaded pretrained weights from {filename}', logger='current')
        return Loaded(filled, None)
    return load_read_checkpoint(model, safe_torch_load(filename), filename)


def load_read_checkpoint(model, checkpoint, filename: str) -> Loaded:
    """``load_pretrained`` of a file already read (``checkpoint``, its contents)."""
    meta = checkpoint.get('meta') if isinstance(checkpoint, dict) else None
    backbone_cfg = meta.get('backbone_cfg') if isinstance(meta, dict) else None
    filled = load_state_dict_strict(model, unwrap_state_dict(checkpoint), source=filename)
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
