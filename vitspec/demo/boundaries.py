"""Pixel-edge boundaries of binary masks: hole detection and COCO polygons."""

import numpy as np


def trace_boundaries(mask):
    """Closed boundaries of a binary mask along pixel edges: [(N x 2 corners, signed area), ...].

    Each boundary keeps the mask on its right (image coordinates, y down): outer boundaries have a
    positive area, holes a negative one. Where two pixels touch only at a corner, the walk turns
    right, so diagonal neighbours belong to separate boundaries (4-connectivity).
    """
    padded = np.pad(np.asarray(mask, bool), 1)
    inside = padded[1:-1, 1:-1]
    edges = []
    for outside, start, end in (
        (padded[:-2, 1:-1], (0, 0), (1, 0)),  # top edges, rightwards
        (padded[1:-1, 2:], (1, 0), (1, 1)),  # right edges, downwards
        (padded[2:, 1:-1], (1, 1), (0, 1)),  # bottom edges, leftwards
        (padded[1:-1, :-2], (0, 1), (0, 0)),
    ):  # left edges, upwards
        ys, xs = np.nonzero(inside & ~outside)
        edges += [
            ((x + start[0], y + start[1]), (x + end[0], y + end[1]))
            for x, y in zip(xs.tolist(), ys.tolist())
        ]
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


def has_holes(mask):
    return any(area < 0 for _, area in trace_boundaries(mask))


def mask_to_polygons(mask):
    """COCO polygons [[x1, y1, x2, y2, ...], ...] of the mask's outer boundaries (pixel corners)."""
    return [
        corners.astype(float).ravel().tolist()
        for corners, area in trace_boundaries(mask)
        if area > 0
    ]
