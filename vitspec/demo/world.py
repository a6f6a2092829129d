"""What the procedural scenes are made of: the classes' looks and sizes, and the scene styles."""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ClassLook:
    colour: tuple
    pattern: str  # see texture.texture()
    period_m: float  # texture period on the object's surface, in metres
    contrast: float


@dataclass(frozen=True)
class ThingShape:
    height_m: float
    width_m: float


LOOKS = {
    # stuff
    'sky': ClassLook((120, 165, 225), 'blotches', 40.0, 0.05),  # only its colour is used
    'wall': ClassLook((196, 186, 164), 'stripes_v', 0.5, 0.12),
    'floor': ClassLook((150, 105, 70), 'stripes_v', 0.2, 0.2),
    'road': ClassLook((95, 95, 100), 'blotches', 1.5, 0.15),
    'building': ClassLook((165, 120, 95), 'checker', 3.0, 0.25),
    'tree': ClassLook((55, 120, 50), 'blotches', 1.0, 0.35),
    # things
    'person': ClassLook((205, 85, 80), 'dots', 0.18, 0.3),
    'car': ClassLook((55, 90, 200), 'stripes_h', 0.35, 0.25),
    'bicycle': ClassLook((225, 200, 50), 'diagonal', 0.15, 0.3),
    'chair': ClassLook((140, 65, 160), 'checker', 0.12, 0.3),
    'table': ClassLook((90, 190, 185), 'stripes_v', 0.08, 0.25),
    'clutter': ClassLook((128, 128, 128), 'blotches', 0.3, 0.3),  # unlabelled objects
}
CLASS_NAMES = tuple(LOOKS)
CLASS_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}

THING_SHAPES = {
    'person': ThingShape(1.7, 0.6),
    'car': ThingShape(1.5, 3.2),
    'bicycle': ThingShape(1.1, 1.7),
    'chair': ThingShape(0.9, 0.5),
    'table': ThingShape(0.75, 1.2),
    'clutter': ThingShape(0.8, 0.8),
}
CLUTTER_PROBABILITY = 0.3


@dataclass(frozen=True)
class SceneStyle:
    ground: str
    backdrops: tuple  # what stands behind the things: 'sky', 'building', 'tree' or 'wall'
    things: tuple
    camera_height_m: float
    horizon: tuple  # range of the horizon row, as a fraction of the image height
    backdrop_depth_m: tuple
    nearest_thing_m: float
    farthest_thing_m: float
    haze: tuple  # the colour surfaces fade to with distance
    visibility_m: float


STYLES = {
    'outdoor': SceneStyle(
        'road',
        ('sky', 'building', 'tree'),
        ('person', 'car', 'bicycle'),
        1.6,
        (0.38, 0.5),
        (45.0, 75.0),
        3.0,
        40.0,
        (200, 210, 225),
        90.0,
    ),
    'indoor': SceneStyle(
        'floor',
        ('wall',),
        ('person', 'chair', 'table'),
        1.2,
        (0.3, 0.45),
        (3.5, 9.0),
        0.8,
        9.0,
        (35, 32, 30),
        6.0,
    ),
}


def lookup_table(ids, default):
    """A dataset's label id for every class index (`default` for classes it does not have)."""
    return np.array([ids.get(name, default) for name in CLASS_NAMES], np.uint8)
