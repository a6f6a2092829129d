#!/usr/bin/env python
"""Write a small procedural dataset in the native layouts of ADE20K, Cityscapes, COCO,
NYU-Depth v2 and KITTI, so that the unchanged dataset classes of mmseg / mmdet (and a KITTI
Eigen-split loader) can train and evaluate on it in seconds.

Every image comes from one scene generator: "stuff" in the background (sky / building / trees
above a road, or a wall above a floor) and 2-5 standing "things" (rectangles, ellipses,
triangles). Each class has its own colour and texture; texture and brightness follow the
per-pixel depth of a pinhole camera over a ground plane, so depth is learnable from the image.
Output is deterministic for a given --seed (and Pillow / zlib version).

    python tools/make_demo_data.py                      # all five into data/demo/
    python tools/make_demo_data.py --datasets coco nyu --num-train 20 --num-val 5 --out /tmp/demo

A dataset is written into a hidden temporary folder and renamed into place with a `.complete`
marker (seed, counts, generator version); a run that finds a matching marker skips that dataset.
"""
import argparse
import json
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

GENERATOR_VERSION = 1
MARKER = '.complete'
DEFAULT_OUT = Path(__file__).resolve().parents[1] / 'data' / 'demo'

# --------------------------------------------------------------------------- classes


@dataclass(frozen=True)
class ClassLook:
    colour: tuple
    pattern: str  # see texture()
    period_m: float  # texture period on the object's surface, in metres
    contrast: float


@dataclass(frozen=True)
class ThingShape:
    height_m: float
    width_m: float


LOOKS = {
    # stuff
    'sky': ClassLook((120, 165, 225), 'blotches', 40.0, 0.05),
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
    'outdoor': SceneStyle('road', ('sky', 'building', 'tree'), ('person', 'car', 'bicycle'),
                          1.6, (0.38, 0.5), (45.0, 75.0), 3.0, 40.0, (200, 210, 225), 90.0),
    'indoor': SceneStyle('floor', ('wall',), ('person', 'chair', 'table'),
                         1.2, (0.3, 0.45), (3.5, 9.0), 0.8, 9.0, (35, 32, 30), 9.0),
}

# ------------------------------------------------------------------ label vocabularies

# ADE20K-150 ids (objectInfo150); 0 = "other", ignored with reduce_zero_label=True.
ADE20K_IDS = {'wall': 1, 'building': 2, 'sky': 3, 'floor': 4, 'tree': 5, 'road': 7,
              'person': 13, 'table': 16, 'chair': 20, 'car': 21, 'bicycle': 128}

# Cityscapes label ids; 'dynamic' (5) stands for unlabelled movable objects.
CITYSCAPES_IDS = {'road': 7, 'building': 11, 'tree': 21, 'sky': 23, 'person': 24, 'car': 26,
                  'bicycle': 33, 'clutter': 5}
# The official labelId -> trainId table (cityscapesscripts/helpers/labels.py), ids 0..33.
CITYSCAPES_TRAIN_IDS = (255, 255, 255, 255, 255, 255, 255, 0, 1, 255, 255, 2, 3, 4, 255, 255,
                        255, 5, 255, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255, 255, 16, 17, 18)
CITYSCAPES_FIRST_INSTANCE_ID = 24  # person .. bicycle (24..33) have instance ids
CITYSCAPES_CITIES = {'train': ('aachen', 'bremen', 'zurich'), 'val': ('frankfurt', 'lindau')}

COCO_CATEGORIES = (
    {'supercategory': 'person', 'id': 1, 'name': 'person'},
    {'supercategory': 'vehicle', 'id': 2, 'name': 'bicycle'},
    {'supercategory': 'vehicle', 'id': 3, 'name': 'car'},
    {'supercategory': 'furniture', 'id': 62, 'name': 'chair'},
    {'supercategory': 'furniture', 'id': 67, 'name': 'dining table'},
)
COCO_IDS = {'person': 1, 'bicycle': 2, 'car': 3, 'chair': 62, 'table': 67}
COCO_MIN_VISIBLE_AREA = 20  # pixels

# Scene categories of mmseg's NYUDataset; it reads them from the file name up to the first digit.
NYU_SCENES = ('bedroom', 'kitchen', 'living_room', 'bathroom', 'office', 'classroom',
              'dining_room', 'bookstore')
NYU_FRAMES_PER_SCENE = 10
NYU_MAX_DEPTH_MM = 10000

KITTI_DATES = {'train': '2011_09_26', 'val': '2011_09_28'}
KITTI_FRAMES_PER_DRIVE = 25
KITTI_FOCAL = 721.5377  # the value BTS-style split files carry (KITTI's P_rect_02 focal)
KITTI_MAX_DEPTH_M = 80.0
KITTI_LIDAR_KEEP = 0.3

# ------------------------------------------------------------------------ the scene


@dataclass
class Scene:
    image: np.ndarray  # H x W x 3 uint8
    semantic: np.ndarray  # H x W uint8, index into CLASS_NAMES
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


@dataclass
class Canvas:
    colour: np.ndarray
    semantic: np.ndarray
    instances: np.ndarray
    depth: np.ndarray
    xs: np.ndarray = field(repr=False)  # pixel-centre coordinates, broadcastable
    ys: np.ndarray = field(repr=False)


def generate_scene(rng, width, height, style, focal):
    """One random scene of `style` seen by a pinhole camera with `focal` pixels."""
    horizon = rng.uniform(*style.horizon) * height
    backdrop = rng.choice(style.backdrops)
    backdrop_depth = rng.uniform(*style.backdrop_depth_m)
    canvas = _empty_canvas(width, height)
    if backdrop != 'wall':
        _paint_sky(canvas, rng, horizon)
    _paint_ground(canvas, rng, style, horizon, focal)
    _paint_backdrop(canvas, rng, backdrop, backdrop_depth, style, horizon, focal)
    things = _sample_things(rng, style, width, height, horizon, focal, backdrop_depth)
    masks = _visible_masks_without_holes(things, width, height)
    for index, (thing, mask) in enumerate(zip(things, masks)):
        _paint_thing(canvas, rng, thing, mask, index, style, focal)
    image = _finish_image(canvas.colour, rng)
    return Scene(image, canvas.semantic, canvas.instances, [t.name for t in things],
                 canvas.depth)


def _empty_canvas(width, height):
    return Canvas(colour=np.zeros((height, width, 3), np.float32),
                  semantic=np.zeros((height, width), np.uint8),
                  instances=np.full((height, width), -1, np.int16),
                  depth=np.full((height, width), np.inf, np.float32),
                  xs=np.arange(width, dtype=np.float32)[None, :] + 0.5,
                  ys=np.arange(height, dtype=np.float32)[:, None] + 0.5)


def _ground_depth(ys, horizon, focal, camera_height):
    """Depth of a flat ground plane at image rows `ys`: inverse depth grows linearly below the horizon."""
    below = np.maximum(ys - horizon, 1e-6)
    return np.where(ys > horizon, focal * camera_height / below, np.inf)


def _paint_sky(canvas, rng, horizon):
    height = canvas.colour.shape[0]
    zenith = np.array(LOOKS['sky'].colour, np.float32) + rng.normal(0, 10, 3)
    near_horizon = np.array((200, 215, 235), np.float32)
    mix = np.clip(canvas.ys / max(horizon, 1.0), 0, 1)[..., None]
    clouds = texture('blotches', canvas.xs / 40.0 + rng.uniform(0, 9), canvas.ys / 25.0)
    sky = zenith * (1 - mix) + near_horizon * mix + 8 * clouds[..., None]
    canvas.colour[:] = np.broadcast_to(sky, canvas.colour.shape)
    canvas.semantic[:] = CLASS_INDEX['sky']
    canvas.depth[:] = np.inf
    del height


def _paint_ground(canvas, rng, style, horizon, focal):
    height, width = canvas.semantic.shape
    depth = np.broadcast_to(_ground_depth(canvas.ys, horizon, focal, style.camera_height_m),
                            (height, width))
    mask = np.isfinite(depth)
    across = (canvas.xs - width / 2) * depth / focal  # metres across the ground
    _fill(canvas, rng, style.ground, mask, depth, across, depth, style, focal)


def _paint_backdrop(canvas, rng, name, depth, style, horizon, focal):
    """A frontal surface at `depth` that hides the ground beyond it (wall, facades, tree line)."""
    height, width = canvas.semantic.shape
    base = horizon + focal * style.camera_height_m / depth
    if name == 'sky':
        return
    if name == 'wall':
        top = np.full(width, -np.inf, np.float32)
    elif name == 'building':
        top = base - _skyline(rng, width, 8.0, 25.0) * focal / depth
    else:  # a tree line with a wavy top
        phase = rng.uniform(0, 2 * math.pi, 2)
        x = canvas.xs[0] / width
        metres = 9 + 2.5 * np.sin(9 * x + phase[0]) + 1.5 * np.sin(23 * x + phase[1])
        top = base - metres * focal / depth
    mask = (canvas.ys <= base) & (canvas.ys >= top[None, :])
    across = (canvas.xs - width / 2) * depth / focal
    up = (horizon - canvas.ys) * depth / focal
    _fill(canvas, rng, name, mask, np.full(mask.shape, depth, np.float32), across, up, style, focal)


def _skyline(rng, width, low_m, high_m):
    heights = np.empty(width, np.float32)
    x = 0
    while x < width:
        step = int(rng.integers(max(2, width // 12), max(3, width // 4)))
        heights[x:x + step] = rng.uniform(low_m, high_m)
        x += step
    return heights


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
        thing = Thing(name=str(name), shape=str(rng.choice(('rect', 'ellipse', 'triangle'))),
                      centre_x=rng.uniform(-0.05, 1.05) * width,
                      foot_y=horizon + focal * style.camera_height_m / depth,
                      width=size.width_m * scale * rng.uniform(0.8, 1.25),
                      height=size.height_m * scale, depth=depth)
        if thing.height >= 4 and thing.width >= 3:
            things.append(thing)
    things.sort(key=lambda t: -t.depth)
    return things


def _silhouette(thing, width, height):
    # Each shape is symmetric about a vertical axis and widens or stays constant row by row from
    # its top, so every row it covers holds the same central column: the mask is 4-connected.
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
    return (dx ** 2 + (2 * dy - 1) ** 2) <= 1


def _visible_masks_without_holes(things, width, height):
    """Visible part of each thing; drops the nearest things while any visible part has a hole.

    COCO polygons cannot describe holes. A nearer thing stands lower in the image, so it almost
    never lies inside a farther one; the rare raster exceptions are removed here.
    """
    silhouettes = [_silhouette(t, width, height) for t in things]
    while True:
        visible = _visible_parts(silhouettes)
        if not any(_has_holes(mask) for mask in visible):
            return visible
        things.pop()
        silhouettes.pop()


def _visible_parts(silhouettes):
    covered = np.zeros_like(silhouettes[0]) if silhouettes else None
    visible = []
    for mask in reversed(silhouettes):  # nearest first
        visible.append(mask & ~covered)
        covered |= mask
    return visible[::-1]


def _paint_thing(canvas, rng, thing, mask, index, style, focal):
    xs, ys = canvas.xs, canvas.ys
    depth = np.full(mask.shape, thing.depth, np.float32)
    if thing.shape == 'ellipse':  # a rounded front: up to 4% nearer in the middle
        r2 = ((xs - thing.centre_x) / (thing.width / 2)) ** 2 + \
             ((ys - (thing.foot_y - thing.height / 2)) / (thing.height / 2)) ** 2
        depth = thing.depth * (1 - 0.04 * np.clip(1 - r2, 0, 1)).astype(np.float32)
    across = (xs - thing.centre_x) * thing.depth / focal + rng.uniform(0, 5)
    up = (thing.foot_y - ys) * thing.depth / focal + rng.uniform(0, 5)
    _fill(canvas, rng, thing.name, mask, depth, across, up, style, focal)
    canvas.instances[mask] = index


def texture(pattern, u, v):
    """A periodic pattern in [-1, 1]; u, v are surface coordinates in periods."""
    tau = 2 * math.pi
    if pattern == 'stripes_h':
        return np.sin(tau * v)
    if pattern == 'stripes_v':
        return np.sin(tau * u)
    if pattern == 'diagonal':
        return np.sin(tau * (u + v) / math.sqrt(2))
    if pattern == 'checker':
        return np.tanh(4 * np.sin(tau * u) * np.sin(tau * v))
    if pattern == 'dots':
        return np.where(np.cos(tau * u) * np.cos(tau * v) > 0.4, 1.0, -0.4)
    if pattern == 'blotches':
        return np.sin(tau * u + 1.9 * np.sin(tau * 0.73 * v)) * np.cos(tau * v + 1.3 * np.sin(tau * 0.61 * u))
    raise ValueError(f'unknown pattern {pattern!r}')


def _fill(canvas, rng, name, mask, depth, across_m, up_m, style, focal):
    """Paint class `name` on `mask`: textured base colour, faded towards the haze with depth."""
    look = LOOKS[name]
    base = np.array(look.colour, np.float32) + rng.normal(0, 12, 3)
    if name == 'clutter':
        base = rng.uniform(60, 200) + rng.normal(0, 20, 3)
    depth = np.broadcast_to(depth, mask.shape)
    pattern = texture(look.pattern, across_m / look.period_m, up_m / look.period_m)
    # A pattern finer than ~2 pixels would only alias: fade it out, like real texture at a distance.
    period_px = look.period_m * focal / np.maximum(depth, 1e-3)
    contrast = look.contrast * np.clip((period_px - 1.5) / 3.0, 0, 1)
    shaded = base * (1 + contrast * pattern)[..., None]
    fade = np.exp(-depth / style.visibility_m)[..., None]
    colour = np.array(style.haze, np.float32) + (shaded - np.array(style.haze, np.float32)) * fade
    canvas.colour[mask] = colour[mask]
    canvas.semantic[mask] = CLASS_INDEX[name]
    canvas.depth[mask] = depth[mask]
    canvas.instances[mask] = -1


def _finish_image(colour, rng):
    gain = rng.uniform(0.85, 1.15)
    noisy = colour * gain + rng.normal(0, 4, colour.shape)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)

# ---------------------------------------------------------------- mask boundaries


def trace_boundaries(mask):
    """Closed boundaries of a binary mask along pixel edges, as (N x 2 corner coordinates, signed area).

    Each boundary keeps the mask on its right (image coordinates, y down): outer boundaries have a
    positive area, holes a negative one. Where two pixels touch only at a corner, the walk turns
    right, so diagonal neighbours belong to separate boundaries (4-connectivity).
    """
    padded = np.pad(np.asarray(mask, bool), 1)
    inside = padded[1:-1, 1:-1]
    outgoing = {}

    def add(select, start, end):
        ys, xs = np.nonzero(inside & ~select)
        for x, y in zip(xs.tolist(), ys.tolist()):
            outgoing.setdefault((x + start[0], y + start[1]), []).append((x + end[0], y + end[1]))

    add(padded[:-2, 1:-1], (0, 0), (1, 0))  # top edges, walked left to right
    add(padded[1:-1, 2:], (1, 0), (1, 1))  # right edges, downwards
    add(padded[2:, 1:-1], (1, 1), (0, 1))  # bottom edges, right to left
    add(padded[1:-1, :-2], (0, 1), (0, 0))  # left edges, upwards

    boundaries = []
    while outgoing:
        start = next(iter(outgoing))
        corners = _walk_boundary(outgoing, start)
        boundaries.append((corners, _signed_area(corners)))
    return boundaries


def _walk_boundary(outgoing, start):
    corners, point, direction = [], start, None
    while True:
        ends = outgoing.get(point)
        if not ends:
            break
        end = _next_corner(point, ends, direction)
        ends.remove(end)
        if not ends:
            del outgoing[point]
        new_direction = (end[0] - point[0], end[1] - point[1])
        if new_direction != direction:
            corners.append(point)
        point, direction = end, new_direction
    if corners[0] != start or _direction_into(corners, start) == direction:
        pass
    # the walk started mid-edge if the first and last segments are collinear
    if len(corners) > 2 and _collinear(corners[-1], corners[0], corners[1]):
        corners = corners[1:]
    return np.array(corners, np.int64)


def _direction_into(corners, start):
    return None


def _next_corner(point, ends, direction):
    if len(ends) == 1 or direction is None:
        return ends[0]
    right_turn = (point[0] - direction[1], point[1] + direction[0])
    return right_turn if right_turn in ends else ends[0]


def _collinear(a, b, c):
    return (b[0] - a[0]) * (c[1] - b[1]) == (b[1] - a[1]) * (c[0] - b[0])


def _signed_area(corners):
    x, y = corners[:, 0], corners[:, 1]
    return int(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) // 2


def _has_holes(mask):
    return any(area < 0 for _, area in trace_boundaries(mask))


def mask_to_polygons(mask):
    """COCO polygons [[x1, y1, x2, y2, ...], ...] of the mask's outer boundaries (pixel corners)."""
    return [corners.astype(float).ravel().tolist()
            for corners, area in trace_boundaries(mask) if area > 0]
