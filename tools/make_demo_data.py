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
    'outdoor': SceneStyle('road', ('sky', 'building', 'tree'), ('person', 'car', 'bicycle'),
                          1.6, (0.38, 0.5), (45.0, 75.0), 3.0, 40.0, (200, 210, 225), 90.0),
    'indoor': SceneStyle('floor', ('wall',), ('person', 'chair', 'table'),
                         1.2, (0.3, 0.45), (3.5, 9.0), 0.8, 9.0, (35, 32, 30), 6.0),
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
    """Depth of a flat ground at image rows `ys`: inverse depth grows linearly below the horizon."""
    below = np.maximum(ys - horizon, 1e-6)
    return np.where(ys > horizon, focal * camera_height / below, np.inf)


def _paint_sky(canvas, rng, horizon):
    zenith = np.array(LOOKS['sky'].colour, np.float32) + rng.normal(0, 10, 3)
    near_horizon = np.array((200, 215, 235), np.float32)
    mix = np.clip(canvas.ys / max(horizon, 1.0), 0, 1)[..., None]
    clouds = texture('blotches', canvas.xs / 40.0 + rng.uniform(0, 9), canvas.ys / 25.0)
    sky = zenith * (1 - mix) + near_horizon * mix + 8 * clouds[..., None]
    canvas.colour[:] = np.broadcast_to(sky, canvas.colour.shape)
    canvas.semantic[:] = CLASS_INDEX['sky']
    canvas.depth[:] = np.inf


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
    visible, covered = [], None
    for mask in reversed(silhouettes):  # nearest first
        visible.append(mask if covered is None else mask & ~covered)
        covered = mask if covered is None else covered | mask
    return visible[::-1]


def _paint_thing(canvas, rng, thing, mask, index, style, focal):
    xs, ys = canvas.xs, canvas.ys
    depth = np.float32(thing.depth)
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
        return (np.sin(tau * u + 1.9 * np.sin(tau * 0.73 * v)) *
                np.cos(tau * v + 1.3 * np.sin(tau * 0.61 * u)))
    raise ValueError(f'unknown pattern {pattern!r}')


def _fill(canvas, rng, name, mask, depth, across_m, up_m, style, focal):
    """Paint class `name` on `mask`: textured base colour, faded towards the haze with depth."""
    look = LOOKS[name]
    base = np.array(look.colour, np.float32) + rng.normal(0, 12, 3)
    if name == 'clutter':
        base = rng.uniform(60, 200) + rng.normal(0, 20, 3)
    depth, across_m, up_m = (np.broadcast_to(a, mask.shape)[mask] for a in (depth, across_m, up_m))
    pattern = texture(look.pattern, across_m / look.period_m, up_m / look.period_m)
    # A pattern finer than ~2 pixels would only alias: fade it out, like real texture at a distance.
    period_px = look.period_m * focal / np.maximum(depth, 1e-3)
    contrast = look.contrast * np.clip((period_px - 1.5) / 3.0, 0, 1)
    shaded = base * (1 + contrast * pattern)[:, None]
    haze = np.array(style.haze, np.float32)
    canvas.colour[mask] = haze + (shaded - haze) * np.exp(-depth / style.visibility_m)[:, None]
    canvas.semantic[mask] = CLASS_INDEX[name]
    canvas.depth[mask] = depth
    canvas.instances[mask] = -1


def _finish_image(colour, rng):
    gain = rng.uniform(0.85, 1.15)
    noisy = colour * gain + rng.normal(0, 4, colour.shape)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)

# ---------------------------------------------------------------- mask boundaries


def trace_boundaries(mask):
    """Closed boundaries of a binary mask along pixel edges: [(N x 2 corners, signed area), ...].

    Each boundary keeps the mask on its right (image coordinates, y down): outer boundaries have a
    positive area, holes a negative one. Where two pixels touch only at a corner, the walk turns
    right, so diagonal neighbours belong to separate boundaries (4-connectivity).
    """
    padded = np.pad(np.asarray(mask, bool), 1)
    inside = padded[1:-1, 1:-1]
    edges = []
    for outside, start, end in ((padded[:-2, 1:-1], (0, 0), (1, 0)),  # top edges, rightwards
                                (padded[1:-1, 2:], (1, 0), (1, 1)),  # right edges, downwards
                                (padded[2:, 1:-1], (1, 1), (0, 1)),  # bottom edges, leftwards
                                (padded[1:-1, :-2], (0, 1), (0, 0))):  # left edges, upwards
        ys, xs = np.nonzero(inside & ~outside)
        edges += [((x + start[0], y + start[1]), (x + end[0], y + end[1]))
                  for x, y in zip(xs.tolist(), ys.tolist())]
    ends_from = {}
    for start, end in edges:
        ends_from.setdefault(start, []).append(end)
    unused = set(edges)
    boundaries = []
    for edge in edges:
        if edge in unused:
            corners = _walk_boundary(edge, ends_from, unused)
            boundaries.append((corners, _signed_area(corners)))
    return boundaries


def _walk_boundary(first_edge, ends_from, unused):
    corners, direction = [], None
    point, end = first_edge
    while True:
        unused.discard((point, end))
        step = (end[0] - point[0], end[1] - point[1])
        if step != direction:
            corners.append(point)
        point, direction = end, step
        end = _next_corner(point, ends_from[point], direction)
        if (point, end) == first_edge:
            break
    first_step = (first_edge[1][0] - first_edge[0][0], first_edge[1][1] - first_edge[0][1])
    if direction == first_step:  # the walk started in the middle of a straight run
        corners = corners[1:]
    return np.array(corners, np.int64)


def _next_corner(point, ends, direction):
    if len(ends) == 1:
        return ends[0]
    return (point[0] - direction[1], point[1] + direction[0])  # two boundaries touch: turn right


def _signed_area(corners):
    x, y = corners[:, 0], corners[:, 1]
    return int(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) // 2


def _has_holes(mask):
    return any(area < 0 for _, area in trace_boundaries(mask))


def mask_to_polygons(mask):
    """COCO polygons [[x1, y1, x2, y2, ...], ...] of the mask's outer boundaries (pixel corners)."""
    return [corners.astype(float).ravel().tolist()
            for corners, area in trace_boundaries(mask) if area > 0]

# ------------------------------------------------------------------------ datasets


@dataclass(frozen=True)
class DatasetSpec:
    key: int  # part of every image's seed, so that datasets never share scenes
    styles: tuple
    sizes: tuple  # (width, height) choices
    focal_per_width: float
    num_train: int
    num_val: int


MIXED_SIZES = ((128, 128), (160, 120), (120, 160))  # ADE20K and COCO images vary in size
DATASETS = {
    'ade20k': DatasetSpec(1, ('indoor', 'outdoor'), MIXED_SIZES, 1.0, 200, 50),
    'cityscapes': DatasetSpec(2, ('outdoor',), ((256, 128),), 1.1, 100, 25),
    'coco': DatasetSpec(3, ('indoor', 'outdoor'), MIXED_SIZES, 1.0, 200, 50),
    'nyu': DatasetSpec(4, ('indoor',), ((160, 120),), 518.8 / 640, 100, 25),
    'kitti': DatasetSpec(5, ('outdoor',), ((384, 128),), KITTI_FOCAL / 1242, 100, 25),
}
# What a config's data_root points at, below --out.
DATA_ROOTS = {'ade20k': 'ade20k/ADEChallengeData2016', 'cityscapes': 'cityscapes',
              'coco': 'coco', 'nyu': 'nyu', 'kitti': 'kitti'}
SPLITS = ('train', 'val')


def scene_rng(seed, dataset, split, index):
    return np.random.default_rng([seed, DATASETS[dataset].key, SPLITS.index(split), index])


def iter_scenes(dataset, split, count, seed, progress):
    """(index, scene, rng) for each image of a split; rng continues after the scene was drawn."""
    spec = DATASETS[dataset]
    for index in range(count):
        rng = scene_rng(seed, dataset, split, index)
        width, height = spec.sizes[int(rng.integers(len(spec.sizes)))]
        style = STYLES[spec.styles[int(rng.integers(len(spec.styles)))]]
        yield index, generate_scene(rng, width, height, style, spec.focal_per_width * width), rng
        progress.update(1)


def save_image(array, path, **options):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array).save(path, **options)


def save_jpeg(array, path):
    save_image(array, path, quality=90)


def lookup_table(ids, default):
    return np.array([ids.get(name, default) for name in CLASS_NAMES], np.uint8)


def write_ade20k(root, counts, seed, progress):
    base = root / 'ADEChallengeData2016'
    to_ade = lookup_table(ADE20K_IDS, 0)
    for split, folder, prefix in (('train', 'training', 'ADE_train'),
                                  ('val', 'validation', 'ADE_val')):
        for index, scene, _ in iter_scenes('ade20k', split, counts[split], seed, progress):
            name = f'{prefix}_{index + 1:08d}'
            save_jpeg(scene.image, base / 'images' / folder / f'{name}.jpg')
            save_image(to_ade[scene.semantic], base / 'annotations' / folder / f'{name}.png')


def cityscapes_label_images(scene):
    """labelIds, labelTrainIds and instanceIds images of a scene, as Cityscapes encodes them."""
    label_ids = lookup_table(CITYSCAPES_IDS, 0)[scene.semantic]
    train_ids = np.array(CITYSCAPES_TRAIN_IDS, np.uint8)[label_ids]
    instance_ids = label_ids.astype(np.uint16)
    per_class = {}
    for index, name in enumerate(scene.things):
        label = CITYSCAPES_IDS.get(name, 0)
        mask = scene.instances == index
        if label >= CITYSCAPES_FIRST_INSTANCE_ID and mask.any():
            instance_ids[mask] = label * 1000 + per_class.setdefault(label, 0)
            per_class[label] += 1
    return label_ids, train_ids, instance_ids


def write_cityscapes(root, counts, seed, progress):
    for split in SPLITS:
        cities = CITYSCAPES_CITIES[split]
        for index, scene, _ in iter_scenes('cityscapes', split, counts[split], seed, progress):
            city = cities[index % len(cities)]
            stem = f'{city}_{index // len(cities):06d}_000019'
            save_image(scene.image, root / 'leftImg8bit' / split / city / f'{stem}_leftImg8bit.png')
            gt = root / 'gtFine' / split / city
            label_ids, train_ids, instance_ids = cityscapes_label_images(scene)
            save_image(label_ids, gt / f'{stem}_gtFine_labelIds.png')
            save_image(train_ids, gt / f'{stem}_gtFine_labelTrainIds.png')
            save_image(instance_ids, gt / f'{stem}_gtFine_instanceIds.png')


def coco_annotations(scene, image_id, first_annotation_id):
    """Instances of the COCO classes by their visible part; tiny remnants are left out."""
    annotations = []
    for index, name in enumerate(scene.things):
        mask = scene.instances == index
        area = int(mask.sum())
        if name not in COCO_IDS or area < COCO_MIN_VISIBLE_AREA:
            continue
        ys, xs = np.nonzero(mask)
        x0, y0 = int(xs.min()), int(ys.min())
        annotations.append({
            'id': first_annotation_id + len(annotations), 'image_id': image_id,
            'category_id': COCO_IDS[name], 'segmentation': mask_to_polygons(mask),
            'area': float(area),
            'bbox': [float(x0), float(y0), float(xs.max() + 1 - x0), float(ys.max() + 1 - y0)],
            'iscrowd': 0})
    return annotations


def write_coco(root, counts, seed, progress):
    first_id = {'train': 1, 'val': 1_000_001}  # ids stay unique across the two splits
    for split in SPLITS:
        folder = f'{split}2017'
        images, annotations = [], []
        for index, scene, _ in iter_scenes('coco', split, counts[split], seed, progress):
            image_id = first_id[split] + index
            file_name = f'{image_id:012d}.jpg'
            save_jpeg(scene.image, root / folder / file_name)
            height, width = scene.semantic.shape
            images.append({'license': 1, 'file_name': file_name, 'coco_url': '',
                           'height': height, 'width': width, 'date_captured': '',
                           'flickr_url': '', 'id': image_id})
            annotations += coco_annotations(scene, image_id, first_id[split] + len(annotations))
        write_json(coco_document(images, annotations, seed),
                   root / 'annotations' / f'instances_{folder}.json')


def coco_document(images, annotations, seed):
    return {
        'info': {'description': f'vitspec procedural demo data (seed {seed})',
                 'url': '', 'version': str(GENERATOR_VERSION), 'year': 2017,
                 'contributor': 'tools/make_demo_data.py', 'date_created': ''},
        'licenses': [{'url': '', 'id': 1,
                      'name': 'Procedurally generated, no third-party content'}],
        'images': images, 'annotations': annotations, 'categories': list(COCO_CATEGORIES)}


def write_json(document, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


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
            name = (f'{NYU_SCENES[room % len(NYU_SCENES)]}_{first_scene + room:04d}'
                    f'_{index % NYU_FRAMES_PER_SCENE + 1:05d}')
            save_jpeg(scene.image, root / 'images' / folder / f'{name}.jpg')
            save_image(nyu_depth_mm(scene, rng), root / 'annotations' / folder / f'{name}.png')


def kitti_depth_png(scene, rng):
    """LiDAR-like sparse depth (uint16 = metres * 256, 0 = no return) in the lower two thirds."""
    depth = scene.depth
    height = depth.shape[0]
    returns = rng.random(depth.shape) < KITTI_LIDAR_KEEP
    returns[:height // 3] = False
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


WRITERS = {'ade20k': write_ade20k, 'cityscapes': write_cityscapes, 'coco': write_coco,
           'nyu': write_nyu, 'kitti': write_kitti}

# ---------------------------------------------------------------- complete or absent


def marker_content(seed, counts):
    return {'generator': 'vitspec tools/make_demo_data.py', 'version': GENERATOR_VERSION,
            'seed': seed, 'num_train': counts['train'], 'num_val': counts['val']}


def read_marker(directory):
    try:
        return json.loads((directory / MARKER).read_text())
    except (OSError, ValueError):
        return None


def remove_abandoned_partials(out, name):
    """Delete temporary folders left by killed runs (their process no longer exists)."""
    for partial in (*out.glob(f'.{name}.partial-*'), *out.glob(f'.{name}.old-*')):
        pid = partial.name.rsplit('-', 1)[-1]
        if pid.isdigit() and not _process_alive(int(pid)):
            shutil.rmtree(partial, ignore_errors=True)


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_dataset(out, name, counts, seed, force=False):
    """Write out/name unless it holds a matching marker; returns 'kept' or 'written'."""
    target = out / name
    wanted = marker_content(seed, counts)
    if read_marker(target) == wanted:
        return 'kept'
    if target.exists() and read_marker(target) is None and not force:
        raise SystemExit(f'{target} exists but was not completed by this tool (no {MARKER}); '
                         'remove it or pass --force')
    out.mkdir(parents=True, exist_ok=True)
    remove_abandoned_partials(out, name)
    partial = out / f'.{name}.partial-{os.getpid()}'
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        with make_progress(counts['train'] + counts['val'], name) as progress:
            WRITERS[name](partial, counts, seed, progress)
        (partial / MARKER).write_text(json.dumps(wanted, indent=1) + '\n')
        _move_into_place(partial, target)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return 'written'


def _move_into_place(partial, target):
    if target.exists():
        old = target.with_name(f'.{target.name}.old-{os.getpid()}')
        os.rename(target, old)
        os.rename(partial, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(partial, target)

# ------------------------------------------------------------------------ progress


class PlainProgress:
    """Prints a line at every quarter, for when tqdm is not installed."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done, self.reported = total, desc, 0, 0

    def update(self, n):
        self.done += n
        quarter = 4 * self.done // max(self.total, 1)
        if quarter > self.reported:
            self.reported = quarter
            print(f'{self.desc}: {self.done}/{self.total} images', flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def make_progress(total, desc):
    try:
        from tqdm import tqdm
    except ImportError:
        return PlainProgress(total, desc)
    return tqdm(total=total, desc=desc, unit='img', leave=False)

# ---------------------------------------------------------------------------- CLI


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--out', type=Path, default=DEFAULT_OUT,
                        help=f'output folder (default: {DEFAULT_OUT})')
    parser.add_argument('--datasets', nargs='+', choices=list(DATASETS), default=list(DATASETS),
                        metavar='NAME', help=f'any of {", ".join(DATASETS)} (default: all)')
    parser.add_argument('--num-train', type=_count, default=None,
                        help='training images per dataset (default: ' +
                        ', '.join(f'{k} {v.num_train}' for k, v in DATASETS.items()) + ')')
    parser.add_argument('--num-val', type=_count, default=None,
                        help='validation/test images per dataset (default: ' +
                        ', '.join(f'{k} {v.num_val}' for k, v in DATASETS.items()) + ')')
    parser.add_argument('--seed', type=_count, default=0, help='random seed (default: 0)')
    parser.add_argument('--force', action='store_true',
                        help='replace an existing dataset folder that has no completion marker')
    return parser.parse_args(argv)


def _count(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f'expected a number >= 0, got {text}')
    return value


def main(argv=None):
    args = parse_args(argv)
    out = args.out.resolve()
    for name in dict.fromkeys(args.datasets):
        spec = DATASETS[name]
        counts = {'train': spec.num_train if args.num_train is None else args.num_train,
                  'val': spec.num_val if args.num_val is None else args.num_val}
        started = time.perf_counter()
        outcome = write_dataset(out, name, counts, args.seed, args.force)
        what = 'already complete, kept' if outcome == 'kept' else \
            f'wrote in {time.perf_counter() - started:.1f} s'
        print(f'{name:<10} {counts["train"]:>4} train + {counts["val"]:>3} val images '
              f'(seed {args.seed}), {what}: {out / DATA_ROOTS[name]}', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
