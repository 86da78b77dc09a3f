"""A cube the picture hardly shows: one lying on print of its own colour.

A brown cube on a brown floor changes the picture only along its outline (a darker edge a
pixel or two wide), so few of its pixels pass the change threshold and no colour finds it.
Such a reading must not be given as sure. The outline still adds up: summed over a cube's
square, the difference from the empty tray stands well above what the floor's own noise
gives, and, unlike a change of light over the print, it stays within that square. Where it
lies tells where to look for the cube (see `faint_places`).

Counting takes such a cube only well clear of the cubes found, where the picture round the
place clearly fits one colour (`faint_cubes`), and counts it in doubt; before a reading is
given as sure it looks nearer them too, and any outline there makes the reading unsure
(`faint_outline_near`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision.arrays import channel_medians, square_around
from companion.vision.cast import cast_offset
from companion.vision.found import SURE_MARGIN, WORKING_SIDE, Found, colour_of, explained_by
from companion.vision.images import FloatImage, Mask
from companion.vision.likelihood import cast_shadows
from companion.vision.peaks import BOX, odd
from companion.vision.profile import Prepared, Profile
from companion.vision.segment import Comparison

# Mean difference (CIE76, above the floor's own noise) over a cube's square that tells of
# something there. On rendered trays, a cube on print of its own colour gives 2.4-3.3; bare
# floor gives up to 3.1, mostly where the light changed and spread wide (see below).
FAINT_MEAN = 2.2
# ... and that mean at least this many times the mean of the ring a cube's side wide around
# the square: an outline is a cube's size, a change of light or exposure reaches further
# (rendered trays: 14-21 for such cubes, 2-8 for most empty floor).
FAINT_CONTRAST = 10.0
# A difference counts up to this many times the picture's change threshold: one sharp
# speck or print edge must not make a cube's worth on its own.
FAINT_CAP = 2.0
# A faint patch (`faint_places`) this many working sides clear of every found cube,
# whose box fits a colour well (FAINT_FIT_D2) and by this margin over the next, is a
# cube of the floor's colour. On rendered trays (13 seeds), of 188 faint patches 132 lay
# 1.0-1.5 sides from a found cube, 6 of them on a missed cube (the rest that cube's shadow
# edge or side face); of the 17 at 2 sides or more, 12 were missed cubes. The margin keeps
# out patches whose colour lies between two. Pictures read right: 3206 -> 3219 (15 up,
# 2 down); on 2 seeds not looked at before, 499 -> 500 of 660.
FAINT_CLEAR = 1.7
FAINT_MARGIN = 0.5 * SURE_MARGIN
# The box round a faint patch takes in floor as well as the cube (the two alike, or the patch
# would not be faint), so its median fits the cube's colour more loosely than a caster's
# does. Of the 48 faint patches clear of every found cube (13 seeds), 12 fitted their best
# colour at d2 9-25: 8 lay on a cube of that colour, 4 did not (the margin keeps out 2).
# Pictures read right at 9 / 16 / 25 / 36: 3241 / 3244 / 3247 / 3247 (the last 8 up, 2 down);
# at 25 on 4 other seeds 1 down of 1320 (a red cube made up on noisy red print, in doubt).
FAINT_FIT_D2 = 25.0
# Counting looks for faint outlines only from half a side beyond each found cube's square:
# nearer, its shadow's edge and side faces leave the like. Before a reading is given as sure,
# the floor from this many sides beyond is searched too, and an outline there makes it
# unsure. (A black cube whose lit top matched a grey floor, against a brown one, showed only
# its outline, and the reading was given as sure. On rendered trays, 17 seeds: that one
# caught, and 8 of the 1033 right sure readings made unsure; from 0.35 sides 4, from 0.25
# sides 17; from 0.4 it is missed.) Neither search looks where the cubes found throw their
# shadows, when the light throws them clear: a low lamp's shadow reaches further than either
# margin, and its soft edge is such an outline. (Readings given as sure, counts unchanged
# and none wrong: path-traced A and B 29 -> 34 of 270, shared renderer seeds 0-1 113 -> 115
# of 660.)
SURE_FAINT_MARGIN = 0.3


def faint_places(
    difference: FloatImage,
    threshold: float,
    noise: FloatImage | None,
    quiet: Mask,
    cube_side: float,
) -> list[tuple[float, float]]:
    """Where cube-sized patches of faint change lie (view pixels, the strongest first), each
    patch's strongest point; empty when there are none.

    `difference` is the view's colour difference from the empty tray and `threshold` the
    picture's change threshold; `noise` the per-pixel difference seen between calibration
    shots (None: none); `quiet` the floor away from the cubes found, their shadows and the
    pixels that change anyway; `cube_side` in view pixels.
    """
    # (np.clip returns a new array: the picture's difference is left as it was.)
    above = difference if noise is None else difference - noise
    excess: FloatImage = np.clip(above, 0.0, FAINT_CAP * threshold)
    excess *= quiet  # (quicker than setting the rest to 0 through a mask)
    # Means over squares a cube wide are the same at half the size (each pixel there the
    # mean of four) and take a quarter of the time.
    height, width = excess.shape
    excess = np.asarray(
        cv2.resize(excess, (max(1, width // 2), max(1, height // 2)), interpolation=cv2.INTER_AREA),
        np.float32,
    )
    side = max(3, round(cube_side / 2) | 1)
    square = np.asarray(cv2.blur(excess, (side, side)), np.float32)
    around = np.asarray(cv2.blur(excess, (3 * side, 3 * side)), np.float32)
    ring = (around * 9.0 - square) / 8.0
    faint = (square >= FAINT_MEAN) & (square >= FAINT_CONTRAST * ring)
    if not faint.any():
        return []
    n, patches = cv2.connectedComponents(faint.astype(np.uint8), connectivity=8)
    places: list[tuple[float, float, float]] = []
    for patch in range(1, n):
        ys, xs = np.nonzero(patches == patch)
        best = int(np.argmax(square[ys, xs]))
        # (Back to full size: a half-size pixel's centre lies between four full-size ones.)
        places.append(
            (float(square[ys[best], xs[best]]), 2.0 * xs[best] + 0.5, 2.0 * ys[best] + 0.5)
        )
    places.sort(reverse=True)
    return [(x, y) for _, x, y in places]


def faint_outline_near(comparison: Comparison, profile: Profile, cubes: list[Found]) -> bool:
    """Whether the floor round the `cubes` found, from SURE_FAINT_MARGIN sides beyond their
    squares, shows the faint outline of one more (see `faint_places`)."""
    places = faint_places_left(
        comparison,
        profile.prepared(),
        cubes,
        profile.cube_side,
        cast_offset(profile),
        SURE_FAINT_MARGIN,
    )
    return bool(places)


def faint_places_left(
    comparison: Comparison,
    prepared: Prepared,
    cubes: list[Found],
    cube_side: float,
    offset: tuple[float, float] | None,
    margin: float = 0.5,
) -> list[tuple[float, float]]:
    """Where the floor away from the cubes found (from `margin` cube sides past their
    squares, and clear of where they throw their shadows when the light throws them clear:
    `offset`; `cube_side` in view pixels) shows the faint outline of one more (a cube on
    print of its own colour, see `faint_places`)."""
    reference = prepared.reference
    # Around each cube found: its square, and by default half a side more for its shadow
    # and edges.
    grow = odd(2.0 * margin * cube_side)
    squares = explained_by(cubes, reference.inside.shape, cube_side * WORKING_SIDE)
    near = cv2.dilate(squares, np.ones((grow, grow), np.uint8)).astype(np.bool_)
    if offset is not None and cubes:
        # A low lamp throws a shadow longer than that margin, and its edge is such an
        # outline.
        near |= cast_shadows(squares.astype(np.bool_), offset)
    quiet = prepared.steady_floor & ~near
    return faint_places(
        comparison.difference, comparison.threshold, reference.local_noise, quiet, cube_side
    )


def faint_cubes(
    places: list[tuple[float, float]],
    cubes: list[Found],
    comparison: Comparison,
    prepared: Prepared,
    side: float,
) -> list[Found]:
    """The cubes at faint `places` (view pixels, strongest first, see `faint_places`) well
    clear of every found cube, where the picture clearly fits one colour (`side`: a working
    side). Their fill is 0: counted, but never sure.

    Near a found cube a faint patch is mostly what that cube leaves (its shadow's edge, a
    side face, blur); well clear of them it is a cube whose colour is the floor's, and its
    box, the floor showing round it included, still looks like that colour.
    """
    half = max(1, int(BOX * side / 2))
    taken: list[Found] = []
    for x, y in places:
        column, row = round(x), round(y)
        if any(math.hypot(c.x - column, c.y - row) < FAINT_CLEAR * side for c in cubes + taken):
            continue
        box = square_around(column, row, half)
        # All the box's pixels: the cube's top hardly passes the change threshold.
        median = channel_medians(comparison.lab[box].reshape(-1, 3)).astype(np.float32)
        best, margin, second, fit = colour_of(median, comparison, box, prepared)
        if fit <= FAINT_FIT_D2 and margin >= FAINT_MARGIN:
            taken.append(Found(best, float(column), float(row), 0.0, margin, second))
    return taken


__all__ = [
    "faint_cubes",
    "faint_outline_near",
    "faint_places",
    "faint_places_left",
]
