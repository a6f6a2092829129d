"""The demo scenes in ADE20K's layout (ADEChallengeData2016) with ADE20K-150 labels."""

from .catalog import iter_scenes
from .files import save_image, save_jpeg
from .world import lookup_table

# ADE20K-150 ids (objectInfo150); 0 = "other", ignored with reduce_zero_label=True.
ADE20K_IDS = {
    'wall': 1,
    'building': 2,
    'sky': 3,
    'floor': 4,
    'tree': 5,
    'road': 7,
    'person': 13,
    'table': 16,
    'chair': 20,
    'car': 21,
    'bicycle': 128,
}


def write_ade20k(root, counts, seed, progress):
    base = root / 'ADEChallengeData2016'
    to_ade = lookup_table(ADE20K_IDS, 0)
    for split, folder, prefix in (
        ('train', 'training', 'ADE_train'),
        ('val', 'validation', 'ADE_val'),
    ):
        for index, scene, _ in iter_scenes('ade20k', split, counts[split], seed, progress):
            name = f'{prefix}_{index + 1:08d}'
            save_jpeg(scene.image, base / 'images' / folder / f'{name}.jpg')
            save_image(to_ade[scene.semantic], base / 'annotations' / folder / f'{name}.png')
