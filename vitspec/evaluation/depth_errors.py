"""Per-image depth errors with BTS semantics, inside the standard evaluation crops (numpy)."""

from typing import Optional

import numpy as np

from vitspec.depth_crops import crop_box
from vitspec.errors import InputShapeError

DEPTH_METRICS = (
    'abs_rel',
    'sq_rel',
    'rmse',
    'rmse_log',
    'log10',
    'delta1',
    'delta2',
    'delta3',
    'silog',
)
# The columns a depth table leads with, as depth papers (BTS, DINOv2) report them.
HEADLINE_METRICS = ('rmse', 'abs_rel', 'delta1')


def valid_mask(
    gt: np.ndarray, min_depth: float, max_depth: float, crop: Optional[str] = None
) -> np.ndarray:
    """Pixels that count: min_depth < gt < max_depth (0 = no measurement is excluded), inside
    the crop box of ``gt`` as it is evaluated (KITTI: the KB-cropped map, as the reference)."""
    mask = (gt > min_depth) & (gt < max_depth)
    if crop is None:
        return mask
    top, bottom, left, right = crop_box(crop, *gt.shape)
    region = np.zeros(gt.shape, bool)
    region[top:bottom, left:right] = True
    return mask & region


def clip_prediction(pred: np.ndarray, min_depth: float, max_depth: float) -> np.ndarray:
    """NaN -> min_depth, +-inf -> max_depth (as BTS), then clip to [min_depth, max_depth]."""
    pred = np.nan_to_num(pred.astype(np.float64), nan=min_depth, posinf=max_depth, neginf=max_depth)
    return np.clip(pred, min_depth, max_depth)


def depth_errors(pred: np.ndarray, gt: np.ndarray) -> dict:
    """All DEPTH_METRICS over paired 1-D arrays of valid predicted and true depths."""
    pred, gt = pred.astype(np.float64), gt.astype(np.float64)
    ratio = np.maximum(pred / gt, gt / pred)
    err_log = np.log(pred) - np.log(gt)
    return dict(
        abs_rel=np.mean(np.abs(gt - pred) / gt),
        sq_rel=np.mean((gt - pred) ** 2 / gt),
        rmse=np.sqrt(np.mean((gt - pred) ** 2)),
        rmse_log=np.sqrt(np.mean(err_log**2)),
        log10=np.mean(np.abs(np.log10(pred) - np.log10(gt))),
        delta1=np.mean(ratio < 1.25),
        delta2=np.mean(ratio < 1.25**2),
        delta3=np.mean(ratio < 1.25**3),
        silog=100 * np.sqrt(max(np.mean(err_log**2) - np.mean(err_log) ** 2, 0.0)),  # rounding
    )


def image_errors(
    pred: np.ndarray, gt: np.ndarray, min_depth: float, max_depth: float, crop: Optional[str] = None
) -> Optional[dict]:
    """Errors of one (H, W) prediction against its ground truth; None if no pixel is valid."""
    if pred.shape != gt.shape:
        raise InputShapeError(f'prediction {pred.shape} and ground truth {gt.shape} differ in size')
    mask = valid_mask(gt, min_depth, max_depth, crop)
    if not mask.any():
        return None
    return depth_errors(clip_prediction(pred, min_depth, max_depth)[mask], gt[mask])
