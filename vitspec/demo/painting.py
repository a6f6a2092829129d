"""Painting a scene's layers onto a canvas: colour, class, instance and depth per pixel.

Texture and brightness follow the per-pixel depth of a pinhole camera over a ground plane, so
depth is learnable from the image.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .texture import texture
from .world import CLASS_INDEX, LOOKS


@dataclass
class Canvas:
    colour: np.ndarray
    semantic: np.ndarray
    instances: np.ndarray
    depth: np.ndarray
    xs: np.ndarray = field(repr=False)  # pixel-centre coordinates, broadcastable
    ys: np.ndarray = field(repr=False)


def empty_canvas(width, height):
    return Canvas(
        colour=np.zeros((height, width, 3), np.float32),
        semantic=np.zeros((height, width), np.uint8),
        instances=np.full((height, width), -1, np.int16),
        depth=np.full((height, width), np.inf, np.float32),
        xs=np.arange(width, dtype=np.float32)[None, :] + 0.5,
        ys=np.arange(height, dtype=np.float32)[:, None] + 0.5,
    )


def ground_depth(ys, horizon, focal, camera_height):
    """Depth of a flat ground at image rows `ys`: inverse depth grows linearly below the horizon."""
    below = np.maximum(ys - horizon, 1e-6)
    return np.where(ys > horizon, focal * camera_height / below, np.inf)


def paint_sky(canvas, rng, horizon):
    zenith = np.array(LOOKS['sky'].colour, np.float32) + rng.normal(0, 10, 3)
    near_horizon = np.array((200, 215, 235), np.float32)
    mix = np.clip(canvas.ys / max(horizon, 1.0), 0, 1)[..., None]
    clouds = texture('blotches', canvas.xs / 40.0 + rng.uniform(0, 9), canvas.ys / 25.0)
    sky = zenith * (1 - mix) + near_horizon * mix + 8 * clouds[..., None]
    canvas.colour[:] = np.broadcast_to(sky, canvas.colour.shape)
    canvas.semantic[:] = CLASS_INDEX['sky']
    canvas.depth[:] = np.inf


def paint_ground(canvas, rng, style, horizon, focal):
    height, width = canvas.semantic.shape
    depth = np.broadcast_to(
        ground_depth(canvas.ys, horizon, focal, style.camera_height_m), (height, width)
    )
    mask = np.isfinite(depth)
    across = (canvas.xs - width / 2) * depth / focal  # metres across the ground
    fill(canvas, rng, style.ground, mask, depth, across, depth, style, focal)


def paint_backdrop(canvas, rng, name, depth, style, horizon, focal):
    """A frontal surface at `depth` that hides the ground beyond it (wall, facades, tree line)."""
    height, width = canvas.semantic.shape
    base = horizon + focal * style.camera_height_m / depth
    if name == 'sky':
        return
    if name == 'wall':
        top = np.full(width, -np.inf, np.float32)
    elif name == 'building':
        top = base - skyline(rng, width, 8.0, 25.0) * focal / depth
    else:  # a tree line with a wavy top
        phase = rng.uniform(0, 2 * math.pi, 2)
        x = canvas.xs[0] / width
        metres = 9 + 2.5 * np.sin(9 * x + phase[0]) + 1.5 * np.sin(23 * x + phase[1])
        top = base - metres * focal / depth
    mask = (canvas.ys <= base) & (canvas.ys >= top[None, :])
    across = (canvas.xs - width / 2) * depth / focal
    up = (horizon - canvas.ys) * depth / focal
    fill(canvas, rng, name, mask, np.full(mask.shape, depth, np.float32), across, up, style, focal)


def skyline(rng, width, low_m, high_m):
    heights = np.empty(width, np.float32)
    x = 0
    while x < width:
        step = int(rng.integers(max(2, width // 12), max(3, width // 4)))
        heights[x : x + step] = rng.uniform(low_m, high_m)
        x += step
    return heights


def paint_thing(canvas, rng, thing, mask, index, style, focal):
    xs, ys = canvas.xs, canvas.ys
    depth = np.float32(thing.depth)
    if thing.shape == 'ellipse':  # a rounded front: up to 4% nearer in the middle
        r2 = ((xs - thing.centre_x) / (thing.width / 2)) ** 2 + (
            (ys - (thing.foot_y - thing.height / 2)) / (thing.height / 2)
        ) ** 2
        depth = thing.depth * (1 - 0.04 * np.clip(1 - r2, 0, 1)).astype(np.float32)
    across = (xs - thing.centre_x) * thing.depth / focal + rng.uniform(0, 5)
    up = (thing.foot_y - ys) * thing.depth / focal + rng.uniform(0, 5)
    fill(canvas, rng, thing.name, mask, depth, across, up, style, focal)
    canvas.instances[mask] = index


def fill(canvas, rng, name, mask, depth, across_m, up_m, style, focal):
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


def finish_image(colour, rng):
    gain = rng.uniform(0.85, 1.15)
    noisy = colour * gain + rng.normal(0, 4, colour.shape)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)
