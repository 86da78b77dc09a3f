"""The cube size calibration measures from lone regions' areas."""

from __future__ import annotations

import math

from companion.vision.cube_side import lone_cube_side


def test_the_side_comes_from_the_regions_near_the_median() -> None:
    # A heap (400) and a speck (30) are far from the lone cubes' 100-odd pixels.
    assert lone_cube_side([30.0, 96.0, 100.0, 104.0, 400.0]) == 10.0


def test_two_regions_far_apart_give_a_side_not_nan() -> None:
    side = lone_cube_side([20.0, 180.0])
    assert side is not None and math.isfinite(side) and side == 10.0


def test_no_lone_region_gives_no_side() -> None:
    assert lone_cube_side([]) is None
