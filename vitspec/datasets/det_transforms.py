"""Fixed-size padding for detection that leaves ``img_shape`` the real image size."""

from mmdet.datasets.transforms import Pad
from mmdet.registry import TRANSFORMS


@TRANSFORMS.register_module()
class FixedSizePad(Pad):
    """mmdet's Pad to ``size`` = (width, height), keeping ``img_shape`` at the unpadded size as
    the data preprocessor's own padding does. mmcv's Pad sets it to the padded size; the heads
    then keep boxes that lie in the padding, and on CPU the mask pasting of such a box fails
    (its bounds fall outside the original image)."""

    def __init__(self, size, pad_val=dict(img=(114, 114, 114))):
        super().__init__(size=size, pad_val=pad_val)

    def transform(self, results: dict) -> dict:
        img_shape = results['img'].shape[:2]
        results = super().transform(results)
        results['img_shape'] = img_shape
        return results
