"""The fixed crops of the depth benchmarks (plain Python): where the evaluation regions of NYU
and KITTI lie, for the metric that scores inside them and the transforms that train on them."""

from typing import Tuple

# Eigen et al.'s NYU box, published for 480x640 images (rows 45:471, cols 41:601).
NYU_EIGEN_BOX = (45, 471, 41, 601)
NYU_SIZE = (480, 640)
# Fractions of the evaluated KITTI ground truth's height and width; the reference evaluation
# (zhyever/Monocular-Depth-Estimation-Toolbox depth/datasets/kitti.py, eval_kb_crop then
# eval_mask), which DINOv2's depth evaluation uses, applies them to the KB-cropped 352x1216 map.
GARG_FRACTIONS = (0.40810811, 0.99189189, 0.03594771, 0.96405229)
KITTI_EIGEN_FRACTIONS = (0.3324324, 0.91351351, 0.0359477, 0.96405229)
CROPS = ('nyu_eigen', 'garg', 'kitti_eigen')


def scale_box(
    box: Tuple[int, int, int, int], size: Tuple[int, int], height: int, width: int
) -> Tuple[int, int, int, int]:
    """A pixel box published for images of ``size`` (H, W), scaled to height x width."""
    if (height, width) == tuple(size):
        return tuple(box)
    top, bottom, left, right = box
    sy, sx = height / size[0], width / size[1]
    return int(top * sy), int(bottom * sy), int(left * sx), int(right * sx)


def crop_box(crop: str, height: int, width: int) -> Tuple[int, int, int, int]:
    """(top, bottom, left, right) of the evaluation region of an image of the given size.

    'nyu_eigen' is the published pixel box on 480x640 images and scales with other sizes;
    'garg' and 'kitti_eigen' are fractions of the image, truncated with int() as the reference.
    """
    if crop == 'nyu_eigen':
        return scale_box(NYU_EIGEN_BOX, NYU_SIZE, height, width)
    if crop in ('garg', 'kitti_eigen'):
        top, bottom, left, right = GARG_FRACTIONS if crop == 'garg' else KITTI_EIGEN_FRACTIONS
        return int(top * height), int(bottom * height), int(left * width), int(right * width)
    raise ValueError(f'unknown depth evaluation crop {crop!r}; use one of {CROPS} or None')
