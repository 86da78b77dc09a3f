"""The cube regions of a colour calibration picture, and one cube's area from their areas.

Each colour picture, compared with the empty tray, changes where its cubes lie: the cube, its
shaded side faces and the shadow it casts. Calibration learns a colour from the cube alone, so
the changed regions are told apart here (`cube_regions`): which part of a region that is mostly
shade is the cube (a dark cube) and which its shadow (a lit one), and, once the shadow's offset
is known, the part each cube casts. Measuring the cube's side and learning the colours both
take one cube's area from region areas where some regions hold several touching cubes
(`cube_area`), and leave out regions too small to be a cube (`smallest_cube`, `plausible`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.arrays import grown, segment_kernel
from companion.vision.images import Mask
from companion.vision.patches import looks_single
from companion.vision.segment import Comparison, Reference
from companion.vision.tray_view import TrayView


@dataclass(frozen=True)
class CubeRegions:
    """Cube regions found in one colour picture (view pixels)."""

    mask: Mask
    areas: list[float]
    regions: NDArray[np.int32]
    cube: Mask
    """Pixels that are cube rather than the shadow it casts."""
    singles: list[float]
    """Areas of the regions whose outline is one compact square (one cube alone)."""
    dark: Mask
    """The darker part of each region that is mostly shade: a dark cube, or a shadow."""


# A region whose pixels are mostly shadow-like is a dark cube (or a cube the tray's colour):
# then its darker part is the cube, the lighter part its shadow.
MOSTLY_SHADOW = 0.5
# Such a region's unshaded part is a lit cube when it covers this share of the region and is
# at most this much darker (L) than the floor beneath.
LIT_SHARE = 0.15
LIT_DARKER = 3.0
# Nor is its darker part the cube when the rest of it holds this much firm non-shade (pixels
# left after a one-pixel erosion, in squared cube sides): more than one whole cube top (a top
# of 11 pixels keeps 0.67 of its square). Swept from 0.15 to 1.0, path-traced set A read
# 102-107 of 153 pictures right against 95 without the test (at 0.6 one set-up was refused),
# set B 68-76 of 120 against 71; at 1.5, 96 and 72.
# Lower values learn the colours closer to the cubes (mean CIE76 error 9.8 -> 6.7 at 0.3,
# 7.9 at 0.8) but leave more shade to pass for black, and at 0.3 and 0.5 one held-out set-up
# of the shared renderer learned a shadow offset just under CAST_AT_LEAST and gave a sure
# reading that missed a cube. At 0.8 no sure reading went wrong on either renderer.
FIRM_CUBE = 0.8
# The shadow's sweep is taken off a colour picture's cube region (`_without_cast`) when it
# leaves at least this share of the region's cube pixels.
MOSTLY_CAST = 0.3


def cube_regions(
    comparison: Comparison, reference: Reference, offset: tuple[float, float] | None = None
) -> CubeRegions:
    """Changed regions of a colour picture (cube and its shadow; `comparison`: the picture
    compared with the empty tray's `reference`), and their cube pixels; given where shadows
    fall from their cubes (`offset`, view pixels), without the part of each region its cube
    casts."""
    mask = comparison.changed & reference.inside
    kernel = np.ones((3, 3), np.uint8)
    cleaned = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    n, regions, stats, _ = cv2.connectedComponentsWithStats(cleaned, connectivity=4)
    areas = [float(stats[i, cv2.CC_STAT_AREA]) for i in range(1, n)]
    cube = cleaned.astype(np.bool_) & ~comparison.shadow_like
    shaded: list[tuple[slice, slice, Mask, Mask]] = []
    lit = np.zeros_like(cube)
    lit_area = shaded_area = 0.0
    for index in range(1, n):
        x, y, w, h = (int(v) for v in stats[index, :4])
        inside = regions[y : y + h, x : x + w] == index
        shadowy = comparison.shadow_like[y : y + h, x : x + w] & inside
        if shadowy.sum() < MOSTLY_SHADOW * inside.sum():
            continue
        # A cube no darker than the floor (white on a cream print under warm light) is its
        # lit part: its shade is only the shadow it casts. A dark cube leaves only a few
        # mixed edge pixels outside its shade, and those are darker than the floor.
        rest = inside & ~shadowy
        lightness = comparison.lab[y : y + h, x : x + w, 0] - reference.lab[y : y + h, x : x + w, 0]
        if (
            rest.sum() >= LIT_SHARE * inside.sum()
            and float(np.median(lightness[rest])) > -LIT_DARKER
        ):
            lit_area += areas[index - 1]
            lit[y : y + h, x : x + w] |= inside
            continue
        # A cube unlike shade (a grey cube on purple print) shows itself whole beside the
        # shadow it casts: then that shadow, however large, is no part of the cube.
        firm = cv2.erode(rest.astype(np.uint8), kernel)
        if int(firm.sum()) >= FIRM_CUBE * reference.cube_side**2:
            continue
        ratio = comparison.ratio[y : y + h, x : x + w]
        darker = shadowy & (ratio <= np.median(ratio[shadowy]))
        shaded.append((slice(y, y + h), slice(x, x + w), darker, inside))
        shaded_area += areas[index - 1]
    dark = np.zeros_like(cube)
    # All cubes of a picture are one colour: when most of them show themselves lit, a region
    # that is all shade is a shadow whose cube it lost touch with, not a dark cube. Such a
    # shadow lies beside its cube; one farther than a cube's side from every lit region is a
    # dark cube all the same (dark cubes by a wall can pass for lit ones).
    beside_lit = grown(lit, reference.cube_side)
    for rows, columns, darker, inside in shaded:
        dark[rows, columns] |= darker
        if lit_area <= shaded_area or not (beside_lit[rows, columns] & inside).any():
            cube[rows, columns] |= darker
    if offset is not None:
        cube = _without_cast(
            cube, cleaned.astype(np.bool_), np.asarray(regions, np.int32), n, offset
        )
    singles = []
    for index in range(1, n):
        ys, xs = np.nonzero(regions == index)
        points = np.stack([xs, ys], axis=1).astype(np.float32)
        if len(points) >= 20 and looks_single(points):
            singles.append(areas[index - 1])
    return CubeRegions(
        cleaned.astype(np.bool_), areas, np.asarray(regions, np.int32), cube, singles, dark
    )


def _without_cast(
    cube: Mask, changed: Mask, regions: NDArray[np.int32], n: int, offset: tuple[float, float]
) -> Mask:
    """`cube` without the shadow: a cube and the shadow it casts change the cube's square
    swept along the shadow's `offset`, so a pixel of the cube has the whole way along the
    offset from it changed, and a pixel of its shadow runs off the far end.

    Shade alone cannot tell them apart: a black or brown cube reads as deep shade of most
    prints, and half the shadow of a brown one on cyan print fails the shadow test; learning
    from both, the dark colours' models took in the print's shade. In path-traced set-up
    A 009 black was learned at (36, -11, 12) where its cubes' tops measure (25, 0, 3), now
    (30, -6, 7), and brown at (39, -1, 8) against (39, 11, 20), now (38, 4, 13).

    A region left with under MOSTLY_CAST of its cube pixels does not look like a cube and
    its shadow (the shadow on a wall beyond the view, or lost on the print) and keeps them
    all."""
    way, start = segment_kernel(round(offset[0]), round(offset[1]))
    # Erosion by the way: a pixel stays when every pixel along it from there is changed.
    along = cv2.erode(
        changed.astype(np.uint8), way, anchor=start, borderType=cv2.BORDER_CONSTANT, borderValue=0
    ).astype(np.bool_)
    before = np.bincount(regions[cube], minlength=n)
    after = np.bincount(regions[cube & along], minlength=n)
    cast = after >= MOSTLY_CAST * before
    cast[0] = False
    kept: Mask = cube & (along | ~cast[regions])
    return kept


def cube_area(areas: list[float]) -> float:
    """One cube's area from region areas where some regions may hold several touching cubes.

    Starts from the smaller regions (single cubes are the most common) and re-estimates the
    area as total area over total whole cubes, twice.
    """
    values = np.array(sorted(areas), np.float64)
    estimate = float(np.percentile(values, 30))
    for _ in range(3):
        counts = np.maximum(1, np.round(values / estimate))
        estimate = float(values.sum() / counts.sum())
    return estimate


def smallest_cube(view: TrayView) -> float:
    """The least area (view pixels) a cube can have: the tray is at most 40 cubes wide."""
    return float((max(view.width, view.height) / 40.0) ** 2)


def plausible(areas: list[float], minimum: float) -> list[float]:
    """Region areas big enough to be a cube rather than noise."""
    return [a for a in areas if a >= minimum]


__all__ = [
    "FIRM_CUBE",
    "LIT_DARKER",
    "LIT_SHARE",
    "MOSTLY_CAST",
    "MOSTLY_SHADOW",
    "CubeRegions",
    "cube_area",
    "cube_regions",
    "plausible",
    "smallest_cube",
]
