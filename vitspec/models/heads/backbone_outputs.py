"""One backbone output as the heads receive it: a feature map, or a ``(map, cls)`` pair from a
backbone built with ``output_cls_token=True`` (mmseg's VisionTransformer convention)."""

from vitspec.errors import ConfigError


def split_cls(item, cls_needed_by: str = None) -> tuple:
    """``(map, cls)`` of one backbone output; ``cls`` is None for a bare map, an error when
    ``cls_needed_by`` names the setting that needs it."""
    fmap, cls = item if isinstance(item, (tuple, list)) else (item, None)
    if cls is None and cls_needed_by:
        raise ConfigError(
            f'{cls_needed_by} needs (map, cls) backbone outputs: set '
            'output_cls_token=True on the backbone'
        )
    return fmap, cls
