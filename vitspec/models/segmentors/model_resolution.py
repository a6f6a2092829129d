"""A batch item's class scores with the batch padding removed and a test-time flip undone,
as mmseg's ``BaseSegmentor.postprocess_result`` prepares them before resizing."""

from torch import Tensor

from vitspec.errors import ConfigError


def unpadded_unflipped(scores: Tensor, meta: dict) -> Tensor:
    """``scores`` (C, H, W) of one image, cropped to the image (``img_padding_size`` or
    ``padding_size``: left, right, top, bottom) and flipped back where ``meta['flip']``."""
    left, right, top, bottom = meta.get('img_padding_size', meta.get('padding_size', [0] * 4))
    height, width = scores.shape[-2:]
    scores = scores[:, top : height - bottom, left : width - right]
    if meta.get('flip'):
        direction = meta.get('flip_direction')
        if direction not in ('horizontal', 'vertical'):
            raise ConfigError(f'flip_direction {direction!r}: expected horizontal or vertical')
        scores = scores.flip(dims=(2,) if direction == 'horizontal' else (1,))
    return scores
