"""The long edges along each side of a top-down view of the tray's outline.

The floor's edge is looked for in a view that shows an outline of the tray as an
axis-aligned rectangle (`top_down_view`): there the rim's inner edge and the floor's edge run
parallel to the view's sides, so each is a step in the median colour along a whole line, where
print, grain and dots average out. `view_edges` gives each side's strongest such steps, and
whether each looks like a shadow's edge (every channel darker outside by a similar factor),
with the colours the choice of rim and floor weighs.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import BGRImage

# The view's longer side, in pixels: a floor edge is placed to about a pixel, 0.25% of it.
_VIEW_SIDE = 400
# The view shows this many pixels around the outline, so that the outline's own edge shows as
# an edge, outside the rim's inner edge (the rim's top always lies between the two).
VIEW_BORDER = 12
# The rim and the floor's edges lie within this share of the view's side from the outline.
_BAND_SHARE = 0.25
# An edge is a step in the median colour along the whole line of at least this (Lab units
# per pixel): a long straight edge, where print, grain or dots average out.
PEAK_STEP = 0.7
# Edges kept per side, strongest first.
_PEAKS_PER_SIDE = 6
# A shadow's edge: every channel darker outside (towards the wall) by a similar factor.
_SHADOW_RATIO = 0.8
_SHADOW_SPREAD = 2.2
# Linear light (0..1) added to both sides of an edge before their ratio is taken (about three
# 8-bit levels in the dark, where a camera's levels are coarsest).
_SHADOW_FLOOR = 0.01


@dataclass(frozen=True)
class Edge:
    """A long edge parallel to one side of the view: `offset` in from that side (view pixels,
    sub-pixel), `step` its median colour step (Lab units per pixel), `channel` the Lab channel
    that steps most and `sign` its direction, and whether it looks like a shadow's edge."""

    offset: float
    step: float
    channel: int
    sign: float
    shadow_like: bool


def top_down_view(
    empty: BGRImage, outline: NDArray[np.float64]
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """The picture warped so `outline` (4 x 2 picture pixels, any order) fills a view of about
    _VIEW_SIDE pixels, inside a border of VIEW_BORDER pixels, and the homography (picture
    pixels to view pixels)."""
    # Round the outline in the picture's clockwise order, from the corner nearest the top left:
    # sorting by sums and differences (corners.order_corners) mixes corners up near 45 degrees.
    centre = outline.mean(axis=0)
    turn = np.argsort(np.arctan2(outline[:, 1] - centre[1], outline[:, 0] - centre[0]))
    quad = np.roll(outline[turn], -int(np.argmin(outline[turn].sum(axis=1))), axis=0)
    across = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])
    down = np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])
    if across >= down:
        width, height = _VIEW_SIDE, max(16, round(_VIEW_SIDE * down / across))
    else:
        width, height = max(16, round(_VIEW_SIDE * across / down)), _VIEW_SIDE
    edge = VIEW_BORDER
    target = np.array(
        [[edge, edge], [edge + width, edge], [edge + width, edge + height], [edge, edge + height]],
        np.float32,
    )
    width, height = width + 2 * edge, height + 2 * edge
    matrix = np.asarray(cv2.getPerspectiveTransform(quad.astype(np.float32), target), np.float64)
    source = empty
    shrink = max(across, down) / 2.0 / _VIEW_SIDE
    if shrink > 1.3:
        # Bilinear sampling of a picture shrunk that much aliases its noise: blur it first.
        source = np.asarray(cv2.GaussianBlur(empty, (0, 0), float(0.5 * shrink)), np.uint8)
    view = cv2.warpPerspective(
        source, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(view, np.uint8), matrix


def _sides_of(array: NDArray[np.float32], side: int) -> NDArray[np.float32]:
    """`array` (H x W x ...) turned so that the first axis runs inward from `side` (0 left,
    1 top, 2 right, 3 bottom) and the second along it."""
    if side == 0:
        return np.swapaxes(array, 0, 1)
    if side == 1:
        return array
    if side == 2:
        return np.swapaxes(array, 0, 1)[::-1]
    return array[::-1]


_LINEAR = ((np.arange(256) / 255.0) ** 2.2).astype(np.float32)
"""Linear light for each 8-bit level (a camera's tone curve taken as a 2.2 power)."""


def view_edges(
    view: NDArray[np.uint8],
) -> tuple[
    list[list[Edge]],
    list[NDArray[np.float32]],
    list[NDArray[np.float32]],
    list[NDArray[np.float32]],
]:
    """Per side of the view (left, top, right, bottom): the long edges parallel to it within
    _BAND_SHARE of it, the median Lab colour and the median chromaticity (linear channel over
    channel sum) at every offset in from it (N x 3 each), and the inward colour change per Lab
    channel at every pixel, turned as `_sides_of` turns it."""
    smooth = np.asarray(cv2.GaussianBlur(view, (0, 0), 1.0), np.uint8)
    lab = np.asarray(cv2.cvtColor(smooth.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab), np.float32)
    linear = _LINEAR[smooth]
    gx = np.stack([cv2.Sobel(c, cv2.CV_32F, 1, 0, ksize=3) / 8.0 for c in cv2.split(lab)], -1)
    gy = np.stack([cv2.Sobel(c, cv2.CV_32F, 0, 1, ksize=3) / 8.0 for c in cv2.split(lab)], -1)
    edges: list[list[Edge]] = []
    colours: list[NDArray[np.float32]] = []
    chromas: list[NDArray[np.float32]] = []
    steps: list[NDArray[np.float32]] = []
    for side in range(4):
        inward = (gx, gy, -gx, -gy)[side]
        across = _sides_of(inward, side).shape[0]
        depth = VIEW_BORDER + int(_BAND_SHARE * (across - 2 * VIEW_BORDER))
        # Only the band searched (and a little beyond, for the colours inside its edges).
        reach = min(across, depth + 8)
        turned = np.ascontiguousarray(_sides_of(inward, side)[:reach])
        length = turned.shape[1]
        # The middle 80% of each line: the corners blur into the neighbouring side.
        lo, hi = int(0.1 * length), int(0.9 * length)
        # Every other pixel along the line: still some 130 or more votes for the median.
        median = _row_medians(turned[:, lo:hi:2])
        strength = np.abs(median).max(axis=1)
        # Colours change slowly along a line: every fourth pixel gives their median.
        colour = _row_medians(_sides_of(lab, side)[:reach, lo:hi:4])
        light = _row_medians(_sides_of(linear, side)[:reach, lo:hi:4])
        edges.append(_peaks(strength, median, light, depth))
        colours.append(colour)
        chromas.append(light / np.maximum(light.sum(axis=1, keepdims=True), 1e-6))
        steps.append(turned)
    return edges, colours, chromas, steps


def _row_medians(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """The median over the second axis of `values` (N x M x C), of its first M or M - 1
    entries, whichever is odd (one partition, no averaging of two middles)."""
    count = values.shape[1] - (1 - values.shape[1] % 2)
    middle = count // 2
    return np.asarray(np.partition(values[:, :count], middle, axis=1)[:, middle], np.float32)


def _peaks(
    strength: NDArray[np.float32],
    median: NDArray[np.float32],
    light: NDArray[np.float32],
    depth: int,
) -> list[Edge]:
    """The strongest local maxima of `strength` (per offset) before `depth`, as edges."""
    inner = strength[1 : depth - 1]
    is_peak = (inner >= strength[: depth - 2]) & (inner > strength[2:depth]) & (inner >= PEAK_STEP)
    found = np.flatnonzero(is_peak) + 1
    found = found[np.argsort(-strength[found], kind="stable")][:_PEAKS_PER_SIDE]
    edges = []
    for index in sorted(int(i) for i in found):
        before, at, after = (float(v) for v in strength[index - 1 : index + 2])
        curve = before - 2 * at + after
        offset = index + (0.5 * (before - after) / curve if curve < 0 else 0.0)
        channel = int(np.argmax(np.abs(median[index])))
        outside = light[max(0, index - 6) : max(1, index - 3)].mean(axis=0)
        inside = light[index + 4 : index + 7].mean(axis=0) if index + 7 <= len(light) else outside
        # A channel the shadow leaves only a few levels of is mostly noise and rounding: the
        # same small amount of light added to both sides keeps it from swaying the ratio.
        ratio = (outside + _SHADOW_FLOOR) / (inside + _SHADOW_FLOOR)
        shadow_like = bool(
            np.all(ratio < _SHADOW_RATIO)
            and float(ratio.max()) < _SHADOW_SPREAD * float(ratio.min())
        )
        edges.append(Edge(offset, at, channel, float(np.sign(median[index, channel])), shadow_like))
    return edges


__all__ = ["PEAK_STEP", "VIEW_BORDER", "Edge", "top_down_view", "view_edges"]
