"""How many classes a detector predicts, whichever head it reads them from."""

from torch import nn

from vitspec.errors import ConfigError


def detector_classes(model: nn.Module) -> int:
    """Classes of a detector's box head: two-stage, the RoI head's (a cascade's last stage);
    one-stage, its own ``bbox_head``; else the detector's own ``num_classes`` (PlainDETR)."""
    head = getattr(getattr(model, 'roi_head', None), 'bbox_head', None)
    if isinstance(head, nn.ModuleList):
        head = head[-1]
    head = head or getattr(model, 'bbox_head', None) or model
    if not isinstance(getattr(head, 'num_classes', None), int):
        raise ConfigError(f'{type(model).__name__}: no box head to read the number of classes')
    return head.num_classes
