"""Visualization hooks that draw prediction pictures on the pixels the model saw, in their stored
order (the pictures of ``tools/test.py --show-dir``).

Images are loaded in their stored pixel order, an EXIF orientation tag ignored
(datasets/image_orientation.py), so predictions are in that order too. mmseg's and mmdet's
visualization hooks read the image again with ``mmcv.imfrombytes(bytes, channel_order='rgb')``,
whose 'color' flag applies the tag: a photo tagged "rotate 90" is drawn turned against its
prediction, and mmseg's visualizer fails with an IndexError (a 180-degree tag gives a picture
whose prediction is upside down, without an error). These hooks run the parents' own code with
that decode mapped to the stored-order flag while they draw.
"""

from contextlib import contextmanager

import mmcv
from mmdet.engine.hooks import DetVisualizationHook
from mmengine.registry import HOOKS
from mmseg.engine.hooks import SegVisualizationHook

from vitspec.datasets.image_orientation import stored_order_flag


@contextmanager
def decoding_in_stored_order():
    """``mmcv.imfrombytes`` decodes in the stored pixel order inside (the hooks call it through
    the ``mmcv`` package; only the main process draws, between iterations)."""
    original = mmcv.imfrombytes

    def imfrombytes(content, flag='color', channel_order='bgr', backend=None):
        return original(content, stored_order_flag(flag, backend), channel_order, backend)

    mmcv.imfrombytes = imfrombytes
    try:
        yield
    finally:
        mmcv.imfrombytes = original


@HOOKS.register_module()
class StoredOrderSegVisualizationHook(SegVisualizationHook):
    """mmseg's SegVisualizationHook, drawing on the image in its stored pixel order."""

    def _after_iter(self, *args, **kwargs) -> None:
        with decoding_in_stored_order():
            super()._after_iter(*args, **kwargs)


@HOOKS.register_module()
class StoredOrderDetVisualizationHook(DetVisualizationHook):
    """mmdet's DetVisualizationHook, drawing on the image in its stored pixel order."""

    def after_val_iter(self, *args, **kwargs) -> None:
        with decoding_in_stored_order():
            super().after_val_iter(*args, **kwargs)

    def after_test_iter(self, *args, **kwargs) -> None:
        with decoding_in_stored_order():
            super().after_test_iter(*args, **kwargs)
