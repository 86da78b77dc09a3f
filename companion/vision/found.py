"""A cube found in the view, and what it is judged by: its box's fill and its colour's margin.

Every step of counting speaks of found cubes: peaks become them, the filters take some away,
the doubts weigh what they leave unexplained. So what a found cube is lives here, with what
its confidence is made of (the share of its box its colour's evidence fills, how far its
colour stands from the next one), how a box's colour is judged against the profile's models
(`colour_of`), and the square a found cube accounts for (`explained_by`), which the filters,
the faint search and the doubts all measure against. The proportions are in working sides
(WORKING_SIDE).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS
from companion.vision.colours import (
    DEEPEST_SHADE,
    HARD_PAIRS,
    distances2,
    in_shade_distances2,
)
from companion.vision.images import Mask
from companion.vision.profile import Prepared
from companion.vision.segment import Comparison

# The proportions below are in "working sides": the square a lying cube's colour covers
# (the profile's `cube_side`) with a rim of shade and edge around it, this much wider.
WORKING_SIDE = 1.2
# A peak is a cube when this share of its box is evidence for its colour.
MIN_FILL = 0.45
# Below this share the cube is counted, but the reading is unsure.
SURE_FILL = 0.6
# Colour margin (Mahalanobis units, best vs second-best) at which the colour is certain.
SURE_MARGIN = 2.5
# The pairs that look most alike under some light (`colours.HARD_PAIRS`) need a wider
# margin to be certain.
HARD_PAIR_MARGIN = 4.0
# Half the side (cube sides) of the square a found cube explains.
REACH = 0.6


@dataclass(frozen=True)
class Found:
    """One cube found in the view."""

    colour: int
    """Index into COLOURS."""
    x: float
    y: float
    """Centre, view pixels."""
    fill: float
    """Share of the scoring box that is evidence for its colour (0..1)."""
    margin: float
    """How much better its colour explains it than the next colour, Mahalanobis units."""
    runner_up: int
    """Index of the next most likely colour."""

    @property
    def confidence(self) -> float:
        """0..1 from the fill and the colour margin; below 0.5 the cube is in doubt."""
        # (Plain min and max: np.clip on one number costs microseconds, for every cube.)
        fill = min(max(0.5 + (self.fill - MIN_FILL) / (SURE_FILL - MIN_FILL) * 0.5, 0.0), 1.0)
        pair = frozenset((COLOURS[self.colour], COLOURS[self.runner_up]))
        sure = HARD_PAIR_MARGIN if pair in HARD_PAIRS else SURE_MARGIN
        colour = min(max(self.margin / sure, 0.0), 1.0)
        return min(fill, colour)


@dataclass(frozen=True)
class Detection:
    """Every cube found in a view, and what was left unexplained."""

    cubes: list[Found]
    doubts: list[str]
    foreground: Mask
    """The view's changed pixels that are not plain shadow: cube, hand or other object."""


def cube_footprint(side: float) -> float:
    """The square one lying cube's colour covers (view pixels), from a working side."""
    return (side / WORKING_SIDE) ** 2


def colour_of(
    median: NDArray[np.float32],
    comparison: Comparison,
    box: tuple[slice, slice],
    prepared: Prepared,
    in_shade: bool = False,
) -> tuple[int, float, int, float]:
    """(best colour, margin over the next, next colour, squared distance to the best) of a
    box's median Lab; judged against the models as the camera's clip shows them when most of
    the box is at the camera's limit (under the picture's ceiling), and `in_shade` also as
    the set-up's shade shows each colour lighter than the median
    (`colours.in_shade_distances2`)."""
    at_limit = comparison.saturated is not None and float(comparison.saturated[box].mean()) > 0.5
    d2 = distances2(
        median[None, :],
        prepared.means,
        prepared.inverses,
        prepared.clipped,
        np.array([at_limit]),
        comparison.ceiling,
    )[0]
    if in_shade:
        shaded = in_shade_distances2(
            median, prepared.means, prepared.inverses, DEEPEST_SHADE, prepared.shade_paths
        )
        d2 = np.minimum(d2, shaded)
    order = np.argsort(d2)
    best, second = int(order[0]), int(order[1])
    return best, float(np.sqrt(d2[second]) - np.sqrt(d2[best])), second, float(d2[best])


def explained_by(cubes: list[Found], shape: tuple[int, ...], side: float) -> NDArray[np.uint8]:
    """1 on the square around each found cube that it accounts for, 0 elsewhere."""
    return squares_at([(cube.x, cube.y) for cube in cubes], shape, side)


def squares_at(
    centres: Sequence[tuple[float, float]], shape: tuple[int, ...], side: float
) -> NDArray[np.uint8]:
    """1 on the square a cube centred at each of `centres` accounts for (REACH), 0 elsewhere."""
    covered = np.zeros(shape[:2], np.uint8)
    reach = round(REACH * side)
    for centre_x, centre_y in centres:
        x, y = int(centre_x), int(centre_y)
        cv2.rectangle(covered, (x - reach, y - reach), (x + reach, y + reach), 1, -1)
    return covered


__all__ = [
    "Detection",
    "Found",
    "colour_of",
    "cube_footprint",
    "explained_by",
    "squares_at",
]
