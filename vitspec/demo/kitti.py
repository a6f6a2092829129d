"""The demo scenes in KITTI's raw + annotated-depth layout, with Eigen-split file lists."""

import numpy as np

from .catalog import KITTI_FOCAL, iter_scenes
from .files import save_image

KITTI_DATES = {'train': '2011_09_26', 'val': '2011_09_28'}
KITTI_FRAMES_PER_DRIVE = 25
KITTI_MAX_DEPTH_M = 80.0
KITTI_LIDAR_KEEP = 0.3


def kitti_depth_png(scene, rng):
    """LiDAR-like sparse depth (uint16 = metres * 256, 0 = no return) in the lower two thirds."""
    depth = scene.depth
    height = depth.shape[0]
    returns = rng.random(depth.shape) < KITTI_LIDAR_KEEP
    returns[: height // 3] = False
    returns &= np.isfinite(depth) & (depth <= KITTI_MAX_DEPTH_M)
    return np.where(returns, np.rint(np.where(returns, depth, 0) * 256), 0).astype(np.uint16)


def write_kitti(root, counts, seed, progress):
    for split, list_name in (('train', 'eigen_train_files.txt'), ('val', 'eigen_test_files.txt')):
        date, lines = KITTI_DATES[split], []
        for index, scene, rng in iter_scenes('kitti', split, counts[split], seed, progress):
            drive = f'{date}_drive_{index // KITTI_FRAMES_PER_DRIVE + 1:04d}_sync'
            frame = f'{index % KITTI_FRAMES_PER_DRIVE:010d}.png'
            image = f'{date}/{drive}/image_02/data/{frame}'
            depth = f'{split}/{drive}/proj_depth/groundtruth/image_02/{frame}'
            save_image(scene.image, root / 'raw' / image)
            save_image(kitti_depth_png(scene, rng), root / 'data_depth_annotated' / depth)
            lines.append(f'{image} {depth} {KITTI_FOCAL}\n')
        (root / list_name).write_text(''.join(lines))
