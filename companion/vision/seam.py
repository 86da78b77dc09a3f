"""The crack between two touching cubes of one colour.

Two touching cubes of a colour can give evidence peaks closer together than two lying cubes'
middles ever are (one tilted against the other, or the peaks drawn towards each other where
the tops meet corner to side), and then look like one cube whose evidence peaks twice.
What tells them apart is the crack between them: their edges are rounded, so along the line
from one top's middle to the other's the lightness dips where they meet. One cube seen twice
has no such dip (its top is even), nor has a top and its own side face (the lightness falls
from the lit top to the shaded face and stays down).

The crack is often narrower than a view pixel, and the view's shrink and blur smooth it away,
while the picture has two to three times the view's pixels across it. So where the view shows
no crack, the picture round the two tops is looked at closer (`seam_in_picture`, with
`closer.closer_look`).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.arrays import square_around
from companion.vision.closer import SCALE, closer_look
from companion.vision.images import BGRImage, FloatImage
from companion.vision.tray_view import TrayView

# Points sampled along the line from one centre to the other (both ends included): the
# first and last few lie on the two tops, the middle half where they meet. (Not the middle
# fifth: the peaks of two touching cubes are found drawn towards each other, one more than
# the other, and the crack then lies a quarter to a third of the way from one of them. On
# the shared renderer, seeds 0-3, two blues by the wall had their peaks 9 pixels apart with
# the crack 3 from one; with the middle half, 2 more pictures read right and none less;
# path-traced A, B and C, as found and 3 nudged passes: B 101 drop 8 read right once more,
# its crack three quarters of the way, and none less.)
SAMPLES = 21
TOP_SAMPLES = 4
MIDDLE = slice(5, 16)
INNER = slice(4, 17)
# The crack is at least this much darker (L) than the darker of the two tops, and the two
# tops differ by less than this (L: a top and a side face differ more). Rendered trays
# (13 seeds, 427 same-colour pairs of peaks closer than peaks.MIN_SPACING): of the pairs
# passing both, 33 were two cubes and none one cube seen twice; a dip of 1.0 let 2 through.
# Tops that differ more are still two when the crack dips further below the darker one than
# they differ: where a lit top meets its own shaded face, the edge between may be a little
# darker than the face, but never by as much as the top is lighter. (Path-traced A, B and C,
# 46 such tests in the pictures other than set-up drops: a row of three browns, the middle
# one tilted 4.7 L darker with cracks 6.8 and 10.6 below it, was read as two; the three
# pairs of one cube with a dip in the middle dipped 0.45-0.86 times their step.)
SEAM_DIP = 1.5
SEAM_ALIKE = 3.0
# How far to either side of the line (closer-look pixels) the lightness along it is averaged
# in the closer look: the crack runs across the line, so the band keeps it whole while it
# evens out the picture's grain. (Shared renderer, seeds 0-3: 2 pictures more read right,
# none fewer, no cube more made up; each a pair of browns whose crack the view had smoothed
# away. A band of 1 or 4 read the same pictures right. On an even grey top with pixel noise
# of 4 to 8 levels, 30 draws each, no band made a crack, not even none: the closer look's
# blur is enough there.)
BAND = 2


def _along(
    lightness: FloatImage, start: tuple[float, float], end: tuple[float, float]
) -> FloatImage:
    """The lightness at SAMPLES points evenly spaced from `start` to `end` (x, y; bilinear)."""
    # Only the box round the line is copied out (OpenCV wants a contiguous plane; `lightness`
    # may be a channel of the view in Lab).
    left, top = max(0, int(min(start[0], end[0]))), max(0, int(min(start[1], end[1])))
    right, bottom = int(max(start[0], end[0])) + 2, int(max(start[1], end[1])) + 2
    window = np.ascontiguousarray(lightness[top:bottom, left:right], np.float32)
    steps = np.linspace(0.0, 1.0, SAMPLES, dtype=np.float32)
    xs = (start[0] - left + (end[0] - start[0]) * steps)[None, :]
    ys = (start[1] - top + (end[1] - start[1]) * steps)[None, :]
    values: FloatImage = np.asarray(
        cv2.remap(window, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
        np.float32,
    )[0]
    return values


def _top_lightness(lightness: FloatImage, x: float, y: float, half: int) -> float:
    """The median lightness of the square 2 * half + 1 wide around a top's middle."""
    return float(np.median(lightness[square_around(round(x), round(y), half)]))


def seam_between(
    lightness: FloatImage, first: tuple[float, float], second: tuple[float, float], half: int
) -> bool:
    """Whether a crack lies halfway between two tops of one colour (`lightness`: the view's
    L; `first`, `second`: the tops' middles, x y; `half`: half the side of the
    square each top is judged by, pixels)."""
    step = abs(_top_lightness(lightness, *first, half) - _top_lightness(lightness, *second, half))
    return _dips(_along(lightness, first, second), step)


def seam_in_picture(
    picture: BGRImage,
    view: TrayView,
    tables: NDArray[np.uint8] | None,
    first: tuple[float, float],
    second: tuple[float, float],
    half: int,
) -> bool:
    """`seam_between` judged in the picture itself, in a closer look (`closer.closer_look`)
    round two tops of one colour (`first`, `second`: view pixels, x y; `tables`: the view's
    light matching, `segment.Comparison.tables`, None: none)."""
    a, b = np.array(first, np.float64), np.array(second, np.float64)
    middle = (a + b) / 2.0
    # Half the closer look's side: both tops' squares and the band round the line fit in.
    reach = int(np.ceil((np.linalg.norm(b - a) / 2.0 + half + 2) * SCALE))
    lab, _, _ = closer_look(picture, view, tables, _point(middle), reach)
    lightness = np.ascontiguousarray(lab[:, :, 0])
    start, end = (a - middle) * SCALE + reach, (b - middle) * SCALE + reach
    across = np.array([start[1] - end[1], end[0] - start[0]]) / float(np.linalg.norm(end - start))
    line = np.mean(
        [
            _along(lightness, _point(start + across * offset), _point(end + across * offset))
            for offset in range(-BAND, BAND + 1)
        ],
        axis=0,
    )
    closer_half = half * SCALE
    step = abs(
        _top_lightness(lightness, *_point(start), closer_half)
        - _top_lightness(lightness, *_point(end), closer_half)
    )
    return _dips(line, step)


def _point(at: NDArray[np.float64]) -> tuple[float, float]:
    """A point (x, y) as plain floats."""
    return float(at[0]), float(at[1])


def _dips(line: FloatImage, step: float) -> bool:
    """Whether the lightness along the line between two tops (SAMPLES points) dips between
    them as a crack does (`step`: how far the two tops' own lightness differs)."""
    inner = line[INNER]
    # The darkest point between the tops lies in the middle half: a slope or a wide bowl of
    # shade across both tops has it elsewhere.
    darkest = INNER.start + int(np.argmin(inner))
    if not MIDDLE.start <= darkest < MIDDLE.stop:
        return False
    tops = min(float(line[:TOP_SAMPLES].mean()), float(line[-TOP_SAMPLES:].mean()))
    dip = tops - float(line[MIDDLE].min())
    return dip >= SEAM_DIP and (step < SEAM_ALIKE or dip > step)


__all__ = ["seam_between", "seam_in_picture"]
