"""Export a trained checkpoint: the model from its saved config (or a config checked against
it), loaded strictly by vitspec.inference, then `export_model`."""

from typing import NamedTuple, Optional, Sequence

from torch import nn

from vitspec.errors import ConfigError
from vitspec.inference.model_loading import load_model

from .model_export import Exported, export_model, spec_vit_of


class CheckpointExport(NamedTuple):
    exported: Exported
    model: nn.Module  # what was exported (the model, or its backbone), eval mode


def default_size(model: nn.Module) -> tuple:
    """The size the SpecViT was built for (its ``img_size``, the position embedding's grid)."""
    vit = spec_vit_of(model)
    if vit is None:
        raise ConfigError('no SpecViT in this model to take a size from: give --shape H W')
    return tuple(g * vit.patch_size for g in vit.grid_size)


def export_checkpoint(
    checkpoint: str,
    out: str,
    config: Optional[str] = None,
    size: Optional[Sequence[int]] = None,
    dynamic: bool = False,
    backbone_only: bool = False,
    check_config: bool = True,
    whole: bool = False,
) -> CheckpointExport:
    """Write the model of ``checkpoint`` (segmentation or depth end to end, or with
    ``backbone_only`` its backbone) to ``out`` as ONNX; ``size`` (h, w), default the backbone's
    img_size. ``whole``: a config that tests in sliding windows is exported for the
    whole-image test instead."""
    loaded = load_model(checkpoint, config, device='cpu', check_config=check_config)
    if whole and getattr(loaded.model, 'test_cfg', None):
        loaded.model.test_cfg['mode'] = 'whole'
    model = loaded.model.backbone if backbone_only else loaded.model
    size = tuple(size) if size else default_size(model)
    meta = dict(checkpoint=str(checkpoint), task_of_model=loaded.task)
    classes = loaded.dataset_meta.get('classes')
    if classes and not backbone_only:
        meta['classes'] = list(classes)
    exported = export_model(model, out, size, dynamic=dynamic, metadata=meta)
    return CheckpointExport(exported, model.eval())
