"""The demo scenes in mmseg's NYU-Depth v2 layout: images and 16-bit depth in millimetres."""

import numpy as np

from .catalog import iter_scenes
from .files import save_image, save_jpeg

# Scene categories of mmseg's NYUDataset; it reads them from the file name up to the first digit.
NYU_SCENES = (
    'bedroom',
    'kitchen',
    'living_room',
    'bathroom',
    'office',
    'classroom',
    'dining_room',
    'bookstore',
)
NYU_FRAMES_PER_SCENE = 10
NYU_MAX_DEPTH_MM = 10000


def nyu_depth_mm(scene, rng):
    """Depth in millimetres with Kinect-like holes (0): random blobs and shadows left of things."""
    depth = np.rint(np.minimum(scene.depth, NYU_MAX_DEPTH_MM / 1000) * 1000).astype(np.uint16)
    invalid = np.zeros(depth.shape, bool)
    things = scene.instances >= 0
    for shift in range(1, int(rng.integers(2, 4))):
        invalid[:, :-shift] |= things[:, shift:] & ~things[:, :-shift]
    height, width = depth.shape
    ys, xs = np.mgrid[:height, :width]
    for _ in range(int(rng.integers(3, 9))):
        cy, cx = rng.uniform(0, height), rng.uniform(0, width)
        ry, rx = rng.uniform(2, 8, 2)
        invalid |= ((ys - cy) / ry) ** 2 + ((xs - cx) / rx) ** 2 <= 1
    depth[invalid] = 0
    return depth


def write_nyu(root, counts, seed, progress):
    for split, folder in (('train', 'train'), ('val', 'test')):
        first_scene = {'train': 1, 'val': 500}[split]  # train and test rooms differ, as in NYU
        for index, scene, rng in iter_scenes('nyu', split, counts[split], seed, progress):
            room = index // NYU_FRAMES_PER_SCENE
            name = (
                f'{NYU_SCENES[room % len(NYU_SCENES)]}_{first_scene + room:04d}'
                f'_{index % NYU_FRAMES_PER_SCENE + 1:05d}'
            )
            save_jpeg(scene.image, root / 'images' / folder / f'{name}.jpg')
            save_image(nyu_depth_mm(scene, rng), root / 'annotations' / folder / f'{name}.png')
