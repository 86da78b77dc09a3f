"""How large a cube shows in the view: its side, measured from the calibration pictures.

Calibration sets the view's scale by the cube's side, measured twice. First from the changed
regions of all colour pictures at the picture's own scale (`measure_side`), before any colour
is known: those regions hold the cubes' side faces and shadows too. Then, once the colours are
learned, from the square one lone cube's own colour covers (`footprint_side`): the side the
profile keeps. Both take the side from lone cubes where there are any (`lone_cube_side`).
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from companion.core.cubes import COLOURS, Colour
from companion.vision.cube_regions import cube_area, cube_regions, plausible, smallest_cube
from companion.vision.detect import profile_evidence
from companion.vision.errors import CalibrationError
from companion.vision.images import BGRImage
from companion.vision.patches import looks_single
from companion.vision.profile import Profile
from companion.vision.segment import Reference, compare
from companion.vision.tray_view import TrayView

# Regions of a colour's evidence smaller than this (view pixels) are specks, not cubes.
FOOTPRINT_MIN = 12.0


def footprint_side(profile: Profile, per_colour: Mapping[Colour, BGRImage]) -> float | None:
    """The side (view pixels) of the square one lone cube's own colour covers: the median
    over the calibration pictures' lone cubes of the area their colour's evidence fills.
    None when no cube lies alone."""
    prepared = profile.prepared()
    areas: list[float] = []
    for index, colour in enumerate(COLOURS):
        comparison = compare(profile.view.warp(per_colour[colour]), prepared.reference)
        plane = profile_evidence(comparison, profile).maps[index]
        strong = (plane >= np.float32(0.5)).astype(np.uint8)
        n, regions, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
        for region in range(1, n):
            area = float(stats[region, cv2.CC_STAT_AREA])
            if area < FOOTPRINT_MIN:
                continue
            ys, xs = np.nonzero(regions == region)
            if looks_single(np.stack([xs, ys], axis=1).astype(np.float32)):
                areas.append(area)
    return lone_cube_side(areas)


def lone_cube_side(areas: list[float]) -> float | None:
    """The side of the square of a cube's area from lone regions' areas (None when none)."""
    if not areas:
        return None
    # Lone regions are mostly single cubes; a heap or a speck is far from the median. (Two
    # regions far apart in size leave none near their median: then the median is all there is.)
    middle = float(np.median(areas))
    typical = [a for a in areas if 0.5 * middle <= a <= 1.6 * middle] or [middle]
    return float(np.sqrt(np.median(typical)))


def measure_side(empty: BGRImage, per_colour: Mapping[Colour, BGRImage], view: TrayView) -> float:
    """Cube side in this view's pixels, from all colour pictures together."""
    empty_view = view.warp(empty)
    # A provisional side of 1/25 of the tray only sets the blur for this first pass.
    guess = max(view.width, view.height) / 25.0
    reference = Reference.prepare(empty_view, view.tray_mask(), guess)
    areas: list[float] = []
    singles: list[float] = []
    minimum = smallest_cube(view)
    for picture in per_colour.values():
        found = cube_regions(compare(view.warp(picture), reference), reference)
        singles.extend(plausible(found.singles, minimum))
        areas.extend(plausible(found.areas, minimum))
    if not areas:
        raise CalibrationError("no cubes found in any colour picture; check the pictures")
    # Lone cubes show the size best; touching ones only help when none lies alone.
    if len(singles) >= 3:
        return float(np.sqrt(np.median(singles)))
    return float(np.sqrt(cube_area(areas)))


__all__ = ["FOOTPRINT_MIN", "footprint_side", "lone_cube_side", "measure_side"]
