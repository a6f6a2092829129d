"""mmdet's ``LoadPanopticAnnotations`` without panopticapi (not on PyPI). The PNG's segment ids
are compared with its JSON entry by ``CheckSampleFiles`` (``file_checks.check_panoptic``), the
first time the sample is read, before this loader."""

import numpy as np
from mmdet.datasets.transforms import LoadAnnotations, LoadPanopticAnnotations
from mmdet.registry import TRANSFORMS
from mmdet.structures.mask import BitmapMasks

from vitspec.errors import DataFileError
from vitspec.fileio.panoptic_png import read_panoptic_png, rgb2id


@TRANSFORMS.register_module()
class LoadPanopticPNG(LoadPanopticAnnotations):
    """mmdet's ``LoadPanopticAnnotations`` without panopticapi. Gives the
    thing masks (``gt_masks``: the segments marked ``is_thing``, crowd left out) and the
    semantic map (``gt_seg_map``: each segment's label; 255 on VOID and on segments of a
    category the config leaves out, whose ``category`` is None; a crowd region keeps its thing
    label, as in mmdet, and so lies in no training mask)."""

    def __init__(self, with_bbox=True, with_label=True, with_mask=True, with_seg=True, **kwargs):
        # LoadPanopticAnnotations.__init__ only imports panopticapi for rgb2id
        LoadAnnotations.__init__(
            self,
            with_bbox=with_bbox,
            with_label=with_label,
            with_mask=with_mask,
            with_seg=with_seg,
            with_keypoints=False,
            **kwargs,
        )
        self.rgb2id = rgb2id

    def _load_masks_and_semantic_segs(self, results: dict) -> None:
        path = results.get('seg_map_path')
        if path is None:
            return
        ids = read_panoptic_png(path, self.backend_args)
        segments = results['segments_info']
        height, width = results['ori_shape'][:2]
        if ids.shape != (height, width):
            raise DataFileError(
                f'panoptic PNG {path} is {ids.shape[1]}x{ids.shape[0]}, its image {width}x{height}'
            )
        gt_seg = np.full(ids.shape, 255, dtype=np.uint8)
        gt_masks = []
        for segment in segments:
            mask = ids == segment['id']
            if segment['category'] is not None:
                gt_seg[mask] = segment['category']
            if segment.get('is_thing'):
                gt_masks.append(mask.astype(np.uint8))
        if self.with_mask:
            results['gt_masks'] = BitmapMasks(gt_masks, height, width)
        if self.with_seg:
            results['gt_seg_map'] = gt_seg
