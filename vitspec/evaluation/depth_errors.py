"""Per-image depth errors with BTS semantics, and the standard evaluation crops (plain numpy)."""
from typing import Optional, Tuple

import numpy as np

DEPTH_METRICS = ('abs_rel', 'sq_rel', 'rmse', 'rmse_log', 'log10', 'delta1', 'delta2',
                 'delta3', 'silog')
# Eigen et al.'s NYU box, published for 480x640 images (rows 45:471, cols 41:601).
NYU_EIGEN_BOX = (45, 471, 41, 601)
NYU_SIZE = (480, 640)
# Fractions of the evaluated KITTI ground truth's height and width; the reference evaluation
# (zhyever/Monocular-Depth-Estimation-Toolbox depth/datasets/kitti.py, eval_kb_crop then
# eval_mask), which DINOv2's depth evaluation uses, applies them to the KB-cropped 352x1216 map.
GARG_FRACTIONS = (0.40810811, 0.99189189, 0.03594771, 0.96405229)
KITTI_EIGEN_FRACTIONS = (0.3324324, 0.91351351, 0.0359477, 0.96405229)
CROPS = ('nyu_eigen', 'garg', 'kitti_eigen')


def scale_box(box: Tuple[int, int, int, int], size: Tuple[int, int], height: int,
              width: int) -> Tuple[int, int, int, int]:
    """A pixel box published for images of ``size`` (H, W), scaled to height x width."""
    if (height, width) == tuple(size):
        return tuple(box)
    t, b, l, r = box
    sy, sx = height / size[0], width / size[1]
    return int(t * sy), int(b * sy), int(l * sx), int(r * sx)


def crop_box(crop: str, height: int, width: int) -> Tuple[int, int, int, int]:
    """(top, bottom, left, right) of the evaluation region of an image of the given size.

    'nyu_eigen' is the published pixel box on 480x640 images and scales with other sizes;
    'garg' and 'kitti_eigen' are fractions of the image, truncated with int() as the reference.
    """
    if crop == 'nyu_eigen':
        return scale_box(NYU_EIGEN_BOX, NYU_SIZE, height, width)
    if crop in ('garg', 'kitti_eigen'):
        t, b, l, r = GARG_FRACTIONS if crop == 'garg' else KITTI_EIGEN_FRACTIONS
        return int(t * height), int(b * height), int(l * width), int(r * width)
    raise ValueError(f'unknown depth evaluation crop {crop!r}; use one of {CROPS} or None')


def valid_mask(gt: np.ndarray, min_depth: float, max_depth: float,
               crop: Optional[str] = None) -> np.ndarray:
    """Pixels that count: min_depth < gt < max_depth (0 = no measurement is excluded), inside
    the crop box of ``gt`` as it is evaluated (KITTI: the KB-cropped map, as the reference)."""
    mask = (gt > min_depth) & (gt < max_depth)
    if crop is None:
        return mask
    t, b, l, r = crop_box(crop, *gt.shape)
    region = np.zeros(gt.shape, bool)
    region[t:b, l:r] = True
    return mask & region


def clip_prediction(pred: np.ndarray, min_depth: float, max_depth: float) -> np.ndarray:
    """NaN -> min_depth, +-inf -> max_depth (as BTS), then clip to [min_depth, max_depth]."""
    pred = np.nan_to_num(pred.astype(np.float64), nan=min_depth, posinf=max_depth,
                         neginf=max_depth)
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
        rmse_log=np.sqrt(np.mean(err_log ** 2)),
        log10=np.mean(np.abs(np.log10(pred) - np.log10(gt))),
        delta1=np.mean(ratio < 1.25),
        delta2=np.mean(ratio < 1.25 ** 2),
        delta3=np.mean(ratio < 1.25 ** 3),
        silog=100 * np.sqrt(max(np.mean(err_log ** 2) - np.mean(err_log) ** 2, 0.0)),  # rounding
    )


def image_errors(pred: np.ndarray, gt: np.ndarray, min_depth: float, max_depth: float,
                 crop: Optional[str] = None) -> Optional[dict]:
    """Errors of one (H, W) prediction against its ground truth; None if no pixel is valid."""
    if pred.shape != gt.shape:
        raise ValueError(f'prediction {pred.shape} and ground truth {gt.shape} differ in size')
    mask = valid_mask(gt, min_depth, max_depth, crop)
    if not mask.any():
        return None
    return depth_errors(clip_prediction(pred, min_depth, max_depth)[mask], gt[mask])
