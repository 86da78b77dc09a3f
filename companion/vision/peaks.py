"""Peaks of per-colour evidence at the size of a cube: where the cubes are, before any test.

Each colour's evidence map is averaged over a box a little smaller than a cube (BOX); a cube
gives a peak where that box lies on it. Touching cubes of one colour give one flat top
together, so the box average is lowered by the evidence in a ring around the box: the ring is
emptiest at each cube's own centre. A peak closer than most of a cube's side to a stronger one
is the same cube, and each cube taken claims its square of the evidence, so the search repeats
on what is left and finds the cubes inside a block (`select`). Which peaks are no cube after
all is for the filters (`beside`, `cast`).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.arrays import regions, square_around
from companion.vision.found import MIN_FILL
from companion.vision.images import FloatImage, Mask
from companion.vision.likelihood import box_mean

# Whether a crack shows between two tops of one colour: their middles (x, y) in the maps'
# pixels, and half the side of the square each top is judged by.
Crack = Callable[[tuple[int, int], tuple[int, int], int], bool]

# The scoring box's side and the surrounding ring's width, in cube sides.
BOX = 0.55
RING = 0.3
# Searches for cubes left inside blocks of touching ones (a 7 x 7 block needs 4).
ROUNDS = 4
# Reach (cube sides) around a flat patch of maxima that must score lower for a summit.
SUMMIT_REACH = 0.4
# Blur of the centre score, in cube sides.
SMOOTH = 0.2
# How far (cube sides) a blurred peak moves to the unblurred score's best.
REFINE_REACH = 0.25
# A touching neighbour's centre lies about this many cube sides away.
NEIGHBOUR_AT = 0.8
# How much the ring's evidence lowers the box's. (0.5 -> 0.7 over 7 rendered seeds, after
# likelihood.SHADOW_WEIGHT 0.8 and MIN_SPACING 0.72: exact 1664 -> 1673, better or equal on
# every seed; 0.8 the same.)
RING_WEIGHT = 0.7
# Two cubes' centres are at least this many cube sides apart: lying tops cannot overlap (two
# touching ones lie 1/WORKING_SIDE = 0.83 apart), and only a cube leaning on another comes
# closer. Of two colours they may come closer: one half hidden under the other shows as a
# strip beside it, and no cube's evidence is of two colours.
MIN_SPACING = 0.72
OTHER_SPACING = 0.45
# Two peaks of one colour closer than MIN_SPACING, down to this, are two touching cubes when
# a crack shows between them (`seam.seam_between`), else one cube found twice. Rendered trays
# (13 seeds): pictures read right 3223 -> 3229, none down.
SEAM_SPACING = 0.6
# Side of the square a found cube claims, in cube sides (its neighbours keep the rest): of its
# own colour, and of the others.
CLAIM = 0.85
OTHER_CLAIM = 0.6


def odd(value: float) -> int:
    """The nearest odd integer of at least 3."""
    return max(3, round(value) | 1)


def _fill(plane: NDArray[np.float32], side: float) -> NDArray[np.float32]:
    """One colour's fill: the mean evidence in a cube's box around each pixel."""
    return box_mean(plane, odd(BOX * side))


def _score(
    plane: NDArray[np.float32], fill: NDArray[np.float32], side: float
) -> NDArray[np.float32]:
    """One colour's centre score: its `fill` less the mean evidence of the ring around."""
    inner = odd(BOX * side)
    outer = odd(inner + 2 * RING * side)
    inner_area, outer_area = float(inner * inner), float(outer * outer)
    around = box_mean(plane, outer)
    ring = (around * outer_area - fill * inner_area) / (outer_area - inner_area)
    return np.asarray(fill - RING_WEIGHT * ring, np.float32)


def _peaks(
    fills: NDArray[np.float32],
    scores: NDArray[np.float32],
    side: float,
    allowed: Mask,
    planes: list[int],
) -> list[tuple[float, int, int, int]]:
    """Candidate cubes (score, colour, y, x): local maxima of the centre score, in the
    colours `planes`.

    A cube's box can slide a little on it without the score changing, so a maximum is often
    a flat patch: its middle is taken, not its first pixel.
    """
    window = odd(0.5 * side)
    kernel = np.ones((window, window), np.uint8)
    found: list[tuple[float, int, int, int]] = []
    for index in planes:
        filled = (fills[index] >= MIN_FILL) & allowed
        if not filled.any():
            continue
        # A light blur keeps pixel noise on a flat top from making several maxima (it also
        # pulls the maxima of a row's end cubes a little inwards).
        score = np.asarray(cv2.GaussianBlur(scores[index], (0, 0), SMOOTH * side), np.float32)
        top = cv2.dilate(score, kernel)
        peak = (score >= top - np.float32(1e-4)) & filled
        if not peak.any():
            continue
        n, patches, stats, centres = regions(peak.astype(np.uint8), 8)
        for patch in range(1, n):
            if not _summit(score, patches, patch, stats[patch], side):
                continue
            x = round(float(centres[patch, 0]))
            y = round(float(centres[patch, 1]))
            if patches[y, x] != patch:
                # A bent patch whose middle lies off it: keep its best pixel instead.
                ys, xs = np.nonzero(patches == patch)
                best = int(np.argmax(score[ys, xs]))
                y, x = int(ys[best]), int(xs[best])
            y, x = _unblurred_top(scores[index], fills[index], y, x, side)
            found.append((float(score[y, x]), index, y, x))
    found.sort(reverse=True)
    return found


def _unblurred_top(
    score: FloatImage, fill: FloatImage, y: int, x: int, side: float
) -> tuple[int, int]:
    """Where a row's end cube really is: the blur pulls its peak towards the touching
    neighbour, and its own unblurred summit lies where its box just covers its top. A cube
    with no neighbour behind it stays where the blur put it (a lone cube's unblurred score
    has maxima anywhere on its top, and moving off centre would leave a sliver unclaimed)."""
    reach = max(1, round(REFINE_REACH * side))
    top, left = max(0, y - reach), max(0, x - reach)
    window = score[top : y + reach + 1, left : x + reach + 1]
    best = float(window.max())
    ys, xs = np.nonzero(window >= best - np.float32(1e-4))
    # Of equal tops, the one nearest the blurred peak.
    nearest = int(np.argmin((ys + top - y) ** 2 + (xs + left - x) ** 2))
    new_y, new_x = int(ys[nearest]) + top, int(xs[nearest]) + left
    dy, dx = new_y - y, new_x - x
    if dy == 0 and dx == 0:
        return y, x
    # The neighbour the blur leaned towards lies a cube's side behind the move.
    length = float(np.hypot(dy, dx))
    by = round(y - dy / length * NEIGHBOUR_AT * side)
    bx = round(x - dx / length * NEIGHBOUR_AT * side)
    height, width = fill.shape
    if 0 <= by < height and 0 <= bx < width and fill[by, bx] >= MIN_FILL:
        return new_y, new_x
    return y, x


def select(
    maps: NDArray[np.float32], side: float, allowed: Mask, crack: Crack | None = None
) -> list[tuple[int, int, int, float]]:
    """Cubes (colour index, x, y, fill) from K evidence maps, strongest first.

    Each accepted cube claims a cube-sized square of the view, and a peak must have MIN_FILL
    of its box in unclaimed evidence and lie MIN_SPACING from every cube of its colour (or
    SEAM_SPACING, where `crack` finds one between them; None: never). The
    ring makes the outer cubes of a block stand out first; the inner ones (whose ring is
    full) stand out once the outer ones are taken away, so the search repeats on what is left.
    """
    residual = maps.copy()
    # What each colour may no longer use: a cube's whole square of its own colour, and a
    # smaller one of the others (a cube half hidden under another shows beside its centre).
    claimed = np.zeros(maps.shape, np.bool_)
    inner = odd(BOX * side) // 2
    own, other = round(CLAIM * side / 2), round(OTHER_CLAIM * side / 2)
    spacing2 = (MIN_SPACING * side) ** 2
    seam2 = (SEAM_SPACING * side) ** 2
    other2 = (OTHER_SPACING * side) ** 2
    cubes: list[tuple[int, int, int, float]] = []

    def too_close(index: int, x: int, y: int) -> bool:
        """Whether a peak lies too close to a cube already found to be a cube itself."""
        for k, cx, cy, _ in cubes:
            apart2 = (cx - x) ** 2 + (cy - y) ** 2
            if k != index:
                close = apart2 < other2
            else:
                close = apart2 < spacing2 and (
                    crack is None or apart2 < seam2 or not crack((cx, cy), (x, y), inner)
                )
            if close:
                return True
        return False

    fills = np.empty_like(maps)
    scores = np.zeros_like(maps)  # (a colour with no peak keeps zeros)
    # A colour whose residual a round left as it was has the same peaks again, and each was
    # taken or turned away for good (cubes and claims only grow): only the others are
    # scored again.
    planes = list(range(len(maps)))
    for _ in range(ROUNDS):
        for index in planes:
            fills[index] = _fill(residual[index], side)
            # With no box filled enough the colour has no peak: its score is not needed.
            if (fills[index] >= MIN_FILL).any():
                scores[index] = _score(residual[index], fills[index], side)
        before = len(cubes)
        claimed_before = claimed.copy()
        for _, index, y, x in _peaks(fills, scores, side, allowed, planes):
            if too_close(index, x, y):
                continue
            box = square_around(x, y, inner)
            free = residual[index][box] * ~claimed[index][box]
            if float(free.sum()) < MIN_FILL * (2 * inner + 1) ** 2:
                continue
            claimed[(slice(None), *square_around(x, y, other))] = True
            claimed[(index, *square_around(x, y, own))] = True
            cubes.append((index, x, y, float(fills[index, y, x])))
        if len(cubes) == before:
            break
        newly = claimed & ~claimed_before
        planes = [k for k in range(len(maps)) if residual[k][newly[k]].any()]
        residual[claimed] = 0.0
    return cubes


def _summit(
    score: FloatImage, patches: NDArray[np.int32], patch: int, box: NDArray[np.int32], side: float
) -> bool:
    """Whether a flat patch of local maxima is a summit, not the floor of a valley: the
    middle of a row of touching cubes scores evenly low, lower than the pixels around it."""
    x, y, w, h = (int(v) for v in box[:4])
    reach = max(1, round(SUMMIT_REACH * side))
    top, left = max(0, y - reach), max(0, x - reach)
    window = (slice(top, y + h + reach), slice(left, x + w + reach))
    inside = patches[window] == patch
    kernel = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    around = cv2.dilate(inside.astype(np.uint8), kernel).astype(np.bool_)
    around &= ~inside
    if not around.any():
        return True
    return float(score[window][around].max()) <= float(score[window][inside].max()) + 1e-4


__all__ = [
    "odd",
    "select",
]
