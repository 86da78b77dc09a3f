"""Telling a calibration picture's stray cubes of another colour from its own cubes' shading,
on views built by hand so the right answer is known exactly."""

from __future__ import annotations

import numpy as np

from companion.core.cubes import COLOURS, Colour
from companion.vision.mixed import floor_in_shade, lighter_kind, two_colours, two_kinds
from companion.vision.strangers import lone_cube_colour, pair_strangers

SIDE = 11.0
RED = (40.0, 50.0, 35.0)
PALE_BLUE = (30.0, 3.0, -14.0)
FLOOR = (70.0, 4.0, 14.0)
# A smaller cube side for the same squares: then the lit or shaded part of one cube alone is
# a cube's worth of pixels, and only holding most of a region tells a whole cube.
SMALL_SIDE = 8.0


def _view(
    cubes: list[tuple[int, int, tuple[float, float, float]]],
    shaded_rows: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A Lab view of a beige floor with square cubes (x, y, colour), the empty floor, the
    cubes' inner pixels (edges left out, as calibration takes them) and their regions.
    `shaded_rows` of each cube's inner pixels are its shaded side: the same hue, darker and
    less colourful."""
    rng = np.random.default_rng(3)
    lab = np.empty((80, 120, 3), np.float32)
    lab[:] = FLOOR
    floor = lab.copy()
    inner = np.zeros((80, 120), np.bool_)
    regions = np.zeros((80, 120), np.int32)
    for number, (x, y, colour) in enumerate(cubes, start=1):
        lab[y : y + 11, x : x + 11] = colour
        if shaded_rows:
            shade = lab[y + 11 - 2 - shaded_rows : y + 9, x : x + 11]
            shade[..., 0] -= 15.0
            shade[..., 1:] *= 0.6
        regions[y : y + 11, x : x + 11] = number
        inner[y + 2 : y + 9, x + 2 : x + 9] = True
    lab += rng.normal(0.0, 1.5, lab.shape).astype(np.float32)
    return lab, floor, inner, regions


def test_stray_cubes_of_another_colour_make_a_group_of_their_own() -> None:
    cubes = [(5, 5, RED), (30, 5, RED), (60, 40, RED), (90, 10, PALE_BLUE), (20, 55, PALE_BLUE)]
    groups = two_colours(*_view(cubes), SIDE)
    assert groups is not None
    reds, blues = sorted(groups, key=lambda centre: -float(centre[1]))
    assert np.allclose(reds, RED, atol=2.0)
    assert np.allclose(blues, PALE_BLUE, atol=2.0)


def test_shaded_sides_of_one_colour_are_not_two_colours() -> None:
    # Every cube holds both groups (lit top, shaded side): no cube is of one group alone.
    cubes = [(5, 5, RED), (30, 5, RED), (60, 40, RED), (90, 10, RED), (20, 55, RED)]
    assert two_colours(*_view(cubes, shaded_rows=3), SMALL_SIDE) is None


def test_cubes_of_one_colour_are_one_group() -> None:
    # Two-means splits the noise in two, half of each cube to either group.
    cubes = [(5, 5, RED), (30, 5, RED), (60, 40, RED)]
    assert two_colours(*_view(cubes), SMALL_SIDE) is None


def test_too_few_cube_pixels_make_no_groups() -> None:
    assert two_colours(*_view([(5, 5, RED)]), SIDE) is None


def test_a_patch_of_print_like_the_floor_beneath_is_no_cube() -> None:
    # The print under another exposure changed: its "cube" is the floor's own colour.
    patch = (FLOOR[0] + 12.0, FLOOR[1], FLOOR[2] + 4.0)
    cubes = [(5, 5, RED), (30, 5, RED), (60, 40, RED), (90, 10, patch)]
    assert two_colours(*_view(cubes), SIDE) is None


def test_a_strip_of_another_colour_is_no_cube() -> None:
    # A strip two pixels wide along a wall, as a rim changed by the exposure shows: not a
    # cube's width, though as many pixels as one.
    lab, floor, inner, regions = _view([(5, 5, RED), (30, 5, RED), (60, 40, RED)])
    lab[70:72, 10:70] = PALE_BLUE
    inner[70:72, 10:70] = True
    regions[70:72, 10:70] = 4
    assert two_colours(lab, floor, inner, regions, SIDE) is None
    lab[62:72, 10:20] = PALE_BLUE  # a cube-wide patch of it is a cube
    inner[62:72, 10:20] = True
    regions[62:72, 10:20] = 4
    assert two_colours(lab, floor, inner, regions, SIDE) is not None


def test_two_kinds_differ_in_hue_or_far_in_lightness() -> None:
    assert two_kinds(np.array(RED), np.array(PALE_BLUE))
    # Yellow against orange-red: both vivid, hues apart.
    assert two_kinds(np.array((60.0, 13.0, 57.0)), np.array((40.0, 47.0, 34.0)))
    # White against black under warm light: one hue, far apart in lightness.
    assert two_kinds(np.array((68.0, 15.0, 31.0)), np.array((24.0, 7.0, 13.0)))
    # One black in the lamp, one in the wall's shade: same hue, a little lighter.
    assert not two_kinds(np.array((35.7, 2.0, 34.0)), np.array((25.1, 2.0, 17.0)))
    assert not two_kinds(np.array((50.0, 0.0, 0.0)), np.array((45.0, 0.0, 0.0)))


def test_a_lighter_group_is_another_kind_unless_the_rest_is_it_in_shade() -> None:
    # Measured on rendered calibration pictures with two stray cubes: each pair is one hue
    # by `two_kinds` (a grey lies on every hue's ray; brown is yellow's hue).
    strays_and_rests = [
        ((51.6, -5.0, 48.5), (24.7, 7.0, 12.0)),  # yellow among brown
        ((54.5, 8.0, 51.0), (22.4, 7.0, 11.0)),  # yellow among black
        ((34.1, 11.0, 18.0), (24.7, 0.0, 1.0)),  # brown among black
        ((45.5, -35.0, 29.0), (26.7, 2.0, 8.0)),  # green among black
    ]
    for stray, rest in strays_and_rests:
        assert not two_kinds(np.array(stray), np.array(rest))
        assert lighter_kind(np.array(stray), np.array(rest))
        # A darker stray may be the picture's colour in shade: that is for `two_kinds`.
        assert not lighter_kind(np.array(rest), np.array(stray))
    # One black in the lamp, the rest in the wall's shade: L + 16, a and b scaled alike.
    assert not lighter_kind(np.array((35.7, 2.0, 34.0)), np.array((25.1, 2.0, 17.0)))
    # A little lighter is no sign of anything.
    assert not lighter_kind(np.array((30.0, 11.0, 18.0)), np.array((24.7, 0.0, 1.0)))


def test_a_cube_another_colour_explains_clearly_better_is_a_stranger_one_barely_is_not() -> None:
    # The seven models in `COLOURS` order; black's hue spread is the widest.
    means = np.array(
        [
            [38.0, 8.0, -32.0],
            [30.0, -2.0, 2.0],
            [43.0, 32.0, 20.0],
            [40.0, 6.0, 15.0],
            [52.0, -29.0, 21.0],
            [68.0, -2.0, 51.0],
            [77.0, 0.0, 3.0],
        ],
        np.float32,
    )
    spreads = np.full((7, 3), 6.0, np.float32)
    spreads[1] = (6.0, 8.0, 8.0)
    inverses = np.array([np.diag(1.0 / s**2) for s in spreads], np.float32)
    black = COLOURS.index(Colour.BLACK)
    grey = np.array([31.0, -2.0, 1.0])
    # A black cube on green print, its colour blurred with the print's: black's model is
    # 2.74 off and brown's 2.41. That is the picture's own colour looking odd, not a stray.
    tinted = np.array([36.0, -6.0, 22.0])
    assert pair_strangers([grey, tinted], means, inverses, black) == []
    # A green cube among the blacks is a stranger.
    green = np.array([51.0, -28.0, 20.0])
    assert pair_strangers([grey, green], means, inverses, black) == ["green"]
    # With the tinted black as well, the green is still named once (the two lie too close
    # in hue for their pair to say anything).
    assert pair_strangers([green, grey, tinted], means, inverses, black) == ["green"]


def test_a_tilted_cube_stands_for_its_lit_top_not_its_larger_shaded_face() -> None:
    means = np.array([[52.0, -29.0, 21.0], [30.0, -2.0, 2.0]], np.float32)
    # Black's spread is wide (15 units), as learned on a busy print.
    inverses = np.array([np.eye(3) / 36.0, np.eye(3) / 225.0], np.float32)
    rng = np.random.default_rng(5)
    top = np.array([49.0, -32.0, 22.0]) + rng.normal(0.0, 1.0, (40, 3))
    face = np.array([34.0, 1.0, 4.5]) + rng.normal(0.0, 1.0, (60, 3))
    # Green's picture (index 0): the face, greyer and larger, is the region's median; the
    # lit quarter is the green top.
    colour = lone_cube_colour(np.vstack([top, face]), means, inverses, 0)
    assert np.allclose(colour, (49.0, -32.0, 22.0), atol=1.5)
    # In black's picture (index 1) the lit part, though within black's wide spread, lies
    # nearer green (a dark cube's lightest pixels are its edge blurred with the print): the
    # median stands.
    colour = lone_cube_colour(np.vstack([top, face]), means, inverses, 1)
    assert np.allclose(colour, (34.0, 1.0, 4.5), atol=1.5)
    # A cube of one tone is its median, whatever its lightest pixels.
    black = np.array([30.0, 0.0, 2.0]) + rng.normal(0.0, 2.0, (100, 3))
    assert np.allclose(lone_cube_colour(black, means, inverses, 1), (30.0, 0.0, 2.0), atol=1.0)


def test_a_patch_that_is_the_floor_beneath_it_in_shade_is_a_shadow() -> None:
    # A teal print at L 37 (a -6, b 6), and a patch over it in a colour picture: the same
    # teal in shade at L 20 (a and b scaled down alike) is a cube's shadow; a black cube
    # there, neutral at L 20, and a blue one are not, nor a patch darkened by only 10.
    beneath = np.zeros((4, 4, 3), np.float64)
    beneath[:] = (37.0, -6.0, 6.0)
    chosen = np.ones((4, 4), np.bool_)

    def shadow(lab: tuple[float, float, float]) -> bool:
        pixels = np.zeros((4, 4, 3), np.float64)
        pixels[:] = lab
        return floor_in_shade(pixels, beneath, chosen)

    assert shadow((20.0, -3.0, 2.0))
    assert not shadow((20.0, 4.0, -6.0))  # a black cube under a bluish light
    assert not shadow((20.0, 6.0, -25.0))  # a blue cube
    assert not shadow((27.0, -4.0, 4.0))  # darkened too little for a shadow
