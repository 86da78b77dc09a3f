"""Cubes whose colour drifted off every model, but towards one of them far more than the others.

A colour model is learned from one calibration picture. A later picture taken with a brighter
exposure (a camera that exposes each still anew) moves a white cube's colour further than the
model's spread allows: its pixels change the tray yet no colour explains them, so they give no
evidence and the cube is missed. Such a patch is still a cube when it has a cube's size and
shape and one colour explains it far better than every other: it is counted as that colour,
with a doubt, so the reading is never confident about it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.arrays import box_around, channel_medians, pixels_at, regions
from companion.vision.colours import DEEPEST_SHADE, distances2, in_shade_distances2, shade_gap
from companion.vision.images import FloatImage, Mask
from companion.vision.segment import Comparison

# The patch's area, in the squares one lying cube's colour covers: a cube with its edges
# blurred into the floor shows less than one, one with a side face showing more.
AREA = (0.4, 1.8)
# A smaller patch, down to this share, when the next colour lies this many times further
# still (d²): a cube leaning on or pressed against others, most of whose top their colours
# or shade explain, and whose own part is unmistakably one colour. On rendered trays (13
# seeds): 4 pictures more read right (3 yellow cubes, 1 white), no cube made up; with 0.1
# and 2.5, 6 more and one made up.
SMALL_AREA = 0.15
SMALL_APART = 4.0
# Its longest extent (minimum-area rectangle), in the square's sides: no strip of rim or print.
LONGEST = 1.6
# Beyond the strict bound (likelihood.EXPLAINED_D2) but within this of its best colour
# (squared Mahalanobis distance)...
LOOSE_D2 = 100.0
# ...and that colour far better than the next: the next at least this many times further (d²).
APART = 1.8
# Only patches lighter than the empty tray beneath them (L units): a darker change may be shade
# the shadow test missed (a misaligned print edge, a hand's shadow), lighter means an object.
LIGHTER_BY = 8.0
# Less lighter than that, down to the floor's own lightness, when the floor's shade cannot
# take the patch's colour (`colours.shade_gap`, a and b units): shade only darkens, and keeps
# the floor's hue. (Shared renderer, seeds 0-3: a red top lit to L 55 on green print of L 47
# read right, 909 -> 910 pictures, none lost.)
NOT_SHADE_GAP = 20.0
# A colour cannot explain a patch lighter than this many times its model (in L + 16, which
# scales with the cube root of the light, see `colours.shade_gap`): that takes 2.7 times the
# light calibration saw it in, more than `read_tray` accepts for a whole picture (2.5). A
# model's spread in L (tops and sides, up to 10 units) otherwise lets black crowd a white
# cube: on rendered trays a white exposed darker than its calibration picture read (76, 13,
# 18) against white's (74, -2, 19), d 7.3, and black's (22, 5, 9), d 8.4.
LIGHTER_THAN_MODEL = 1.4
# A cube in shade (the tray wall's, a neighbour's) keeps its colour but gets less light: its
# L + 16, a and b shrink by one factor (see `colours.shade_gap`), down to what the room's
# light alone gives. A white cube in the wall's shade on a darker floor then fits no model
# as it is (its a and b spread is narrow, its L far off) while a wide model (red's, green's)
# crowds it. So a colour lighter than the patch is also judged as shade would show it at
# the patch's lightness (`colours.in_shade_distances2`, no deeper than DEEPEST_SHADE).
# (Path-traced A and B, as found and 3 nudged passes: one wrong pass fewer, B 107 drop 4's
# white by the wall, and none more; rendered seeds 0 and 1 read as before.) Where
# calibration learned the set-up's shadow line, shade is judged as that line tints it
# (`shadow.ShadowLine.darkened`), as `detect` judges a cube in shade: the same pictures
# read right on A, B and rendered seeds 0 and 1.


@dataclass(frozen=True)
class OffColour:
    """A patch taken for a cube of the colour that explains it best (view pixels)."""

    colour: int
    x: float
    y: float
    margin: float
    """How much further the next colour is (Mahalanobis units)."""
    runner_up: int


def off_colour_cubes(
    left: Mask,
    comparison: Comparison,
    floor: FloatImage,
    inside: Mask,
    square: float,
    models: tuple[
        NDArray[np.float32], NDArray[np.float32], NDArray[np.bool_], tuple[float, float, float]
    ],
    paths: NDArray[np.float32] | None = None,
) -> list[OffColour]:
    """The cube-sized patches of `left` (changed pixels no colour explains and no found cube
    accounts for) that one colour explains far better than the others.

    `floor` is the empty tray (Lab), `inside` the tray's floor, `square` the area one
    lying cube's colour covers (view pixels); `models` holds the colour means, their inverse
    covariances, which of them were learned from clipped pixels, and the picture's ceiling
    (B, G, R levels no colour can go beyond; see `colours.distances2`); `paths` each colour
    in this set-up's shade, if learned (`profile.Prepared.shade_paths`).
    """
    means, inverses, clipped, ceiling = models
    # Opening drops speckle and the pixel-wide bridges that would join a cube's patch to
    # another one, making a patch too long or too big to be taken.
    opened = cv2.morphologyEx(left.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Only the box around what is left is looked through.
    around = box_around(opened)
    if around is None:
        return []
    top, left_edge = around[0].start, around[1].start
    lab, floor, inside = comparison.lab[around], floor[around], inside[around]
    limit = comparison.saturated[around] if comparison.saturated is not None else None
    n, patches, stats, centres = regions(np.ascontiguousarray(opened[around]), 4)
    found: list[OffColour] = []
    for index in range(1, n):
        area = float(stats[index, cv2.CC_STAT_AREA])
        if not SMALL_AREA * square <= area <= AREA[1] * square:
            continue
        x, y, w, h = (int(v) for v in stats[index, :4])
        box = (slice(y, y + h), slice(x, x + w))
        patch = patches[box] == index
        # At the rim or beyond it the change may be the rim itself under another light.
        if not inside[box][patch].all():
            continue
        ys, xs = np.nonzero(patch)
        (_, _), (width, height), _ = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
        if max(width, height) > LONGEST * np.sqrt(square):
            continue
        colour = channel_medians(pixels_at(lab[box], patch)).astype(np.float32)
        beneath = channel_medians(pixels_at(floor[box], patch))
        if not _lighter(colour, beneath):
            continue
        # Judged as the camera's clip shows the models when most of the patch is at the limit.
        at_limit = limit is not None and float(limit[box][patch].mean()) > 0.5
        d2 = distances2(colour[None, :], means, inverses, clipped, np.array([at_limit]), ceiling)[0]
        d2 = np.minimum(d2, in_shade_distances2(colour, means, inverses, DEEPEST_SHADE, paths))
        # A colour too dark to be this patch stays out of its way (never nearer than APART
        # times the loosest fit allowed), and the margin stays a number.
        too_dark = float(colour[0]) + 16.0 > LIGHTER_THAN_MODEL * (means[:, 0] + 16.0)
        d2 = np.where(too_dark, np.maximum(d2, APART * LOOSE_D2), d2)
        order = np.argsort(d2)
        best, second = int(order[0]), int(order[1])
        # A part of a cube must be more plainly its colour than a whole one.
        apart = APART if area >= AREA[0] * square else SMALL_APART
        if d2[best] > LOOSE_D2 or d2[second] < apart * d2[best]:
            continue
        margin = float(np.sqrt(d2[second]) - np.sqrt(d2[best]))
        cx, cy = float(centres[index, 0]) + left_edge, float(centres[index, 1]) + top
        found.append(OffColour(best, cx, cy, margin, second))
    return found


def _lighter(colour: NDArray[np.float32], beneath: NDArray[np.float32]) -> bool:
    """Whether a patch's Lab colour tells of something lying on the floor `beneath` it, not
    of shade the shadow test missed."""
    above = float(colour[0] - beneath[0])
    return above >= LIGHTER_BY or (above >= 0.0 and shade_gap(colour, beneath) >= NOT_SHADE_GAP)


__all__ = ["OffColour", "off_colour_cubes"]
