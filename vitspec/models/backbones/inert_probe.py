"""Refusing a frozen probe whose technique cannot change what it measures.

A frozen backbone keeps every parameter as loaded. When all CLS copies of its specialized layers
come from a plain checkpoint's shared weights (LoRA factors at their init, B = 0), its features are
the plain backbone's to the last bit; Token Graying on a backbone that was never trained with it
only feeds the frozen weights inputs they never saw. Either way the probe measures nothing.
"""

from vitspec.errors import InertProbeError
from vitspec.layers.specialized import is_cls_key


def refuse_inert_probe(backbone, filled, source_cfg, source: str):
    """Raise InertProbeError if ``backbone`` is frozen and a technique it carries is inert.

    ``filled``: keys the loader filled from the model itself (CLS copies); ``source_cfg``: the
    checkpoint's meta['backbone_cfg'] (None when the file does not record it).
    """
    if backbone.frozen_stages < backbone.num_layers:
        return
    cls_keys = {k for k, _ in backbone.named_parameters() if is_cls_key(k)}
    if cls_keys and cls_keys <= set(filled):
        raise InertProbeError(
            f'{source} has no CLS/patch-specialized weights: all {len(cls_keys)} CLS copies of '
            f'this specialized backbone start from the shared ones, and a frozen backbone keeps '
            f"them so, which gives exactly the plain backbone's features. Probe a checkpoint "
            f'pretrained with specialization, or fine-tune (frozen_stages=-1) so the copies train.'
        )
    if backbone.token_graying is not None and not (source_cfg or {}).get('token_graying'):
        raise InertProbeError(
            f'{source} does not record pretraining with Token Graying (meta["backbone_cfg"] '
            f'has no token_graying): a frozen backbone would see graying-conditioned inputs its '
            f'weights never learned. Probe a checkpoint pretrained with Token Graying, or '
            f'fine-tune (frozen_stages=-1) with it.'
        )
