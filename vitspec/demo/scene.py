"""One random scene: "stuff" in the background (sky / building / trees above a road, or a wall
above a floor) and 2-5 standing "things" (rectangles, ellipses, triangles)."""

from dataclasses import dataclass

import numpy as np

from .boundaries import has_holes
from .painting import (
    empty_canvas,
    finish_image,
    paint_backdrop,
    paint_ground,
    paint_sky,
    paint_thing,
)
from .world import CLUTTER_PROBABILITY, THING_SHAPES


@dataclass
class Scene:
    image: np.ndarray  # H x W x 3 uint8
    semantic: np.ndarray  # H x W uint8, index into world.CLASS_NAMES
    instances: np.ndarray  # H x W int16, index into `things`, -1 where no thing is visible
    things: list  # class name of each instance
    depth: np.ndarray  # H x W float32 metres, inf for the sky


@dataclass
class Thing:
    name: str
    shape: str  # 'rect', 'ellipse' or 'triangle'
    centre_x: float
    foot_y: float  # the row where it stands on the ground
    width: float
    height: float
    depth: float


def generate_scene(rng, width, height, style, focal):
    """One random scene of `style` seen by a pinhole camera with `focal` pixels."""
    horizon = rng.uniform(*style.horizon) * height
    backdrop = rng.choice(style.backdrops)
    backdrop_depth = rng.uniform(*style.backdrop_depth_m)
    canvas = empty_canvas(width, height)
    if backdrop != 'wall':
        paint_sky(canvas, rng, horizon)
    paint_ground(canvas, rng, style, horizon, focal)
    paint_backdrop(canvas, rng, backdrop, backdrop_depth, style, horizon, focal)
    things = _sample_things(rng, style, width, height, horizon, focal, backdrop_depth)
    masks = _visible_masks_without_holes(things, width, height)
    for index, (thing, mask) in enumerate(zip(things, masks)):
        paint_thing(canvas, rng, thing, mask, index, style, focal)
    image = finish_image(canvas.colour, rng)
    return Scene(image, canvas.semantic, canvas.instances, [t.name for t in things], canvas.depth)


def _sample_things(rng, style, width, height, horizon, focal, backdrop_depth):
    """2-5 things standing on the ground, sorted far to near (the order they are painted in)."""
    lowest_visible_foot = focal * style.camera_height_m / (height - horizon)
    nearest = max(style.nearest_thing_m, lowest_visible_foot)
    farthest = max(min(style.farthest_thing_m, 0.9 * backdrop_depth), 1.2 * nearest)
    names = list(rng.choice(style.things, size=int(rng.integers(2, 6))))
    if rng.random() < CLUTTER_PROBABILITY:
        names.append('clutter')
    things = []
    for name in names:
        depth = 1.0 / rng.uniform(1.0 / farthest, 1.0 / nearest)  # uniform in image rows
        size = THING_SHAPES[name]
        scale = focal / depth * rng.uniform(0.85, 1.15)
        thing = Thing(
            name=str(name),
            shape=str(rng.choice(('rect', 'ellipse', 'triangle'))),
            centre_x=rng.uniform(-0.05, 1.05) * width,
            foot_y=horizon + focal * style.camera_height_m / depth,
            width=size.width_m * scale * rng.uniform(0.8, 1.25),
            height=size.height_m * scale,
            depth=depth,
        )
        if thing.height >= 4 and thing.width >= 3:
            things.append(thing)
    things.sort(key=lambda t: -t.depth)
    return things


def _silhouette(thing, width, height):
    # Every row of these shapes is an interval centred on the same vertical axis and the covered
    # rows are consecutive, so all rows hold the column nearest the axis: masks are 4-connected.
    xs = np.arange(width, dtype=np.float32)[None, :] + 0.5
    ys = np.arange(height, dtype=np.float32)[:, None] + 0.5
    dx = np.abs(xs - thing.centre_x) / (thing.width / 2)
    top = thing.foot_y - thing.height
    dy = (ys - top) / thing.height  # 0 at the top, 1 at the foot
    rows = (dy >= 0) & (dy <= 1)
    if thing.shape == 'rect':
        return rows & (dx <= 1)
    if thing.shape == 'triangle':
        return rows & (dx <= dy)
    return (dx**2 + (2 * dy - 1) ** 2) <= 1


def _visible_masks_without_holes(things, width, height):
    """Visible part of each thing; drops the nearest things while any visible part has a hole.

    COCO polygons cannot describe holes. A nearer thing stands lower in the image, so it almost
    never lies inside a farther one; the rare raster exceptions are removed here.
    """
    silhouettes = [_silhouette(t, width, height) for t in things]
    while True:
        visible = _visible_parts(silhouettes)
        if not any(has_holes(mask) for mask in visible):
            return visible
        things.pop()
        silhouettes.pop()


def _visible_parts(silhouettes):
    visible, covered = [], None
    for mask in reversed(silhouettes):  # nearest first
        visible.append(mask if covered is None else mask & ~covered)
        covered = mask if covered is None else covered | mask
    return visible[::-1]
