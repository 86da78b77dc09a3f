"""A closer look round found cubes finds the sliver of a cube lying under another: a strip
wide enough is counted as a cube (in doubt), and before a reading is given as sure even a
narrow one makes it unsure."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import calibrate_set, camera_looking_at

from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import CalibrationSet, calibration_set
from companion.vision import Profile, TrayReading, read_tray, sliver
from companion.vision import reasons as doubt
from companion.vision.colours import mix_gaps
from companion.vision.detect import find_cubes
from companion.vision.overhead import Overhead
from companion.vision.segment import compare
from companion.vision.sliver import (
    Sliver,
    changed_beside,
    counted_slivers,
    hidden_slivers,
    or_in_shade,
    side_faces,
)


@pytest.fixture(scope="module")
def yellow_under_red() -> tuple[CalibrationSet, Profile]:
    """Rendered set-up (neutral light, a green tray): in test picture 7 a red cube lies on a
    yellow one, whose top shows only as an L-shaped strip a third of a side wide; picture 5
    holds three cubes lying apart."""
    shots = calibration_set(751464337, "neutral", tests=8, jpeg=False)
    return shots, calibrate_set(shots)


@pytest.fixture(scope="module")
def red_under_black() -> tuple[CalibrationSet, Profile]:
    """Rendered set-up (a cluster, a cream tray): in test picture 5 a black cube lies on a
    red one, whose top shows only as a strip a tenth of a side wide along the black cube's
    edge; picture 2 holds five cubes, each at least four fifths in sight."""
    shots = calibration_set(138379171, "clustered", tests=6, jpeg=False)
    return shots, calibrate_set(shots)


@pytest.fixture(scope="module")
def green_under_blue() -> tuple[CalibrationSet, Profile]:
    """Rendered set-up (neutral light): in test picture 3 a blue cube lies on a green one,
    of which a third shows as a strip beside it."""
    shots = calibration_set(1572437584, "neutral", tests=8, jpeg=False)
    return shots, calibrate_set(shots)


@pytest.fixture(scope="module")
def red_face_under_blue() -> tuple[CalibrationSet, Profile]:
    """Rendered set-up (warm light, an ochre tray): in test picture 0 a blue cube rests on a
    red one, of which only a side face shows, in shade, beside the blue."""
    shots = calibration_set(625651451, "warm", tests=1, jpeg=False)
    return shots, calibrate_set(shots)


@pytest.fixture(scope="module")
def shadow_on_print() -> tuple[CalibrationSet, Profile]:
    """Rendered set-up (hard pairs, a red and blue print): in test picture 6 a brown cube
    throws its shadow across the edge between the red print and the blue."""
    shots = calibration_set(1425423479, "hard-pairs", tests=7, jpeg=False)
    return shots, calibrate_set(shots)


@pytest.fixture(scope="module")
def brown_under_green() -> tuple[CalibrationSet, Profile]:
    """Rendered set-up (noise, a beige tray, soft light from the far side): in test picture 6
    a green cube rests on a brown one, which shows as an L-shaped strip along the green
    cube's near and right sides, in the tray's own colour in shade."""
    shots = calibration_set(765422431, "noisy", tests=7)
    return shots, calibrate_set(shots)


def _slivers_in(setup: tuple[CalibrationSet, Profile], index: int) -> list[Colour]:
    """The colours `hidden_slivers` finds round the cubes found in test picture `index`."""
    shots, profile = setup
    prepared = profile.prepared()
    picture = shots.tests[index]
    comparison = compare(profile.view.warp(picture.image), prepared.reference)
    found = [(c.colour, c.x, c.y) for c in find_cubes(comparison, profile).cubes]
    hidden = hidden_slivers(picture.image, profile.view, comparison, prepared, found)
    return [COLOURS[c] for c in hidden]


def _missed_in_doubt(
    setup: tuple[CalibrationSet, Profile], index: int, colour: Colour, there: int
) -> None:
    """Test picture `index` holds `there` cubes of `colour`; the reading counts one fewer,
    is not sure, and the closer look finds a sliver of that colour. (The reason it gives is
    that sliver, or cubes touching, which is asked first.)"""
    shots, profile = setup
    picture = shots.tests[index]
    assert picture.counts[colour] == there
    reading = read_tray(picture.image, profile)
    assert reading.counts[colour] == there - 1
    assert not reading.confident
    assert colour in _slivers_in(setup, index)
    beside = doubt.HIDDEN_BESIDE.format(colour=colour.value)
    assert beside in reading.reasons or reading.reasons == [doubt.TOUCHING]


def _counted_as_strip(
    setup: tuple[CalibrationSet, Profile], index: int, colour: Colour
) -> TrayReading:
    """Test picture `index` is read right, not as sure, with a cube of `colour` seen only as
    a strip; the reading."""
    shots, profile = setup
    picture = shots.tests[index]
    reading = read_tray(picture.image, profile)
    assert reading.counts == picture.counts
    assert not reading.confident
    assert doubt.SEEN_AS_STRIP.format(colour=colour.value) in reading.reasons
    return reading


def _read_right_and_no_sliver(setup: tuple[CalibrationSet, Profile], index: int) -> None:
    """Test picture `index` is read right, and the closer look finds no sliver: the reading is
    given as sure, unless its cubes touch."""
    shots, profile = setup
    picture = shots.tests[index]
    reading = read_tray(picture.image, profile)
    assert reading.counts == picture.counts
    assert _slivers_in(setup, index) == []
    assert reading.confident or reading.reasons == [doubt.TOUCHING]


def test_a_strip_in_shade_under_another_cube_is_counted_in_doubt(
    yellow_under_red: tuple[CalibrationSet, Profile],
) -> None:
    # The view shows the strip as a pixel or two of blends, and the count used to miss the
    # yellow cube, given as sure; much of the strip lies in the red cube's shadow, and only
    # as yellow in shade is it wide enough to count.
    reading = _counted_as_strip(yellow_under_red, 7, Colour.YELLOW)
    # (With the colours learned without the cubes' shadows the reading also doubts the
    # cluster the three cubes make.)
    assert doubt.SEEN_AS_STRIP.format(colour="yellow") in reading.reasons


def test_cubes_lying_apart_show_no_sliver(
    yellow_under_red: tuple[CalibrationSet, Profile],
) -> None:
    # Their side faces (their own colour in shade), their shadows and the blends along their
    # edges are no other cube.
    _read_right_and_no_sliver(yellow_under_red, 5)


def test_the_sliver_is_told_by_its_colour_beside_the_cube_above(
    yellow_under_red: tuple[CalibrationSet, Profile],
) -> None:
    shots, profile = yellow_under_red
    prepared = profile.prepared()
    picture = shots.tests[7]
    comparison = compare(profile.view.warp(picture.image), prepared.reference)
    found = [(c.colour, c.x, c.y) for c in find_cubes(comparison, profile).cubes]
    assert sorted(COLOURS[c] for c, _, _ in found) == sorted([Colour.RED, Colour.WHITE])
    slivers = hidden_slivers(picture.image, profile.view, comparison, prepared, found)
    assert [COLOURS[c] for c in slivers] == [Colour.YELLOW]
    # Where the red cube is not looked round, nothing shows.
    white = [cube for cube in found if COLOURS[cube[0]] is Colour.WHITE]
    assert hidden_slivers(picture.image, profile.view, comparison, prepared, white) == []


def test_a_strip_two_pixels_wide_under_another_cube_makes_the_reading_unsure(
    red_under_black: tuple[CalibrationSet, Profile],
) -> None:
    # Peeling a pixel off all round left nothing of this strip, and the reading was given as
    # sure with one red cube too few; its pixels lie well off every mix of black and cream.
    _missed_in_doubt(red_under_black, 5, Colour.RED, 2)


def test_cubes_side_by_side_without_one_under_another_show_no_sliver(
    red_under_black: tuple[CalibrationSet, Profile],
) -> None:
    _read_right_and_no_sliver(red_under_black, 2)


def test_a_strip_in_the_floors_colour_in_shade_where_no_shadow_falls_makes_the_reading_unsure(
    brown_under_green: tuple[CalibrationSet, Profile],
) -> None:
    # Its colour is the floor's in shade, and the set-up's learned shadow too, so it was
    # taken for the green cube's shadow and the reading given as sure with a brown cube too
    # few; but the light throws that shadow away from the near side, where most of it shows.
    _missed_in_doubt(brown_under_green, 6, Colour.BROWN, 2)


def test_a_blend_of_two_colours_lies_on_the_line_between_them() -> None:
    black = np.array([20.0, 0.0, 0.0])
    cream = np.array([90.0, 2.0, 20.0])
    red = np.array([45.0, 55.0, 35.0])
    edge = 0.4 * black + 0.6 * cream
    gaps = mix_gaps(np.stack([black, edge, cream, red]), black, cream)
    assert gaps[:3] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    assert gaps[3] > 40.0
    # Beyond either end the gap is the distance to that end.
    assert mix_gaps(np.array([100.0, 2.0, 20.0]), black, cream) == pytest.approx(10.0)


def test_a_strip_wide_enough_is_counted_as_a_cube_in_doubt(
    green_under_blue: tuple[CalibrationSet, Profile],
) -> None:
    # The view's evidence finds no green cube there: only the closer look counts it.
    reading = _counted_as_strip(green_under_blue, 3, Colour.GREEN)
    # (The picture's other green cube lies in plain sight.)
    green = sorted(c.confidence for c in reading.cubes if c.colour is Colour.GREEN)
    assert len(green) == 2 and green[0] < 0.5 <= green[1]


def test_a_side_face_in_shade_is_counted_as_the_cube_beneath(
    red_face_under_blue: tuple[CalibrationSet, Profile],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _counted_as_strip(red_face_under_blue, 0, Colour.RED)
    # The face is far darker than the red model (L 38 against 57): taken only as red, it
    # fits no colour, and the red cube beneath is missed.
    shots, profile = red_face_under_blue
    picture = shots.tests[0]
    assert picture.counts[Colour.RED] == 2
    monkeypatch.setattr(sliver, "or_in_shade", lambda best, *_: best)
    assert read_tray(picture.image, profile).counts[Colour.RED] == 1


def test_a_colour_in_shade_is_taken_only_where_it_alone_fits() -> None:
    # Models (Lab) in the order of COLOURS.
    lit = {
        Colour.BLUE: (36.0, 5.0, -35.0),
        Colour.BLACK: (25.0, 2.0, 2.0),
        Colour.RED: (57.0, 68.0, 57.0),
        Colour.BROWN: (41.0, 22.0, 40.0),
        Colour.GREEN: (49.0, -32.0, 39.0),
        Colour.YELLOW: (81.0, 2.0, 78.0),
        Colour.WHITE: (94.0, -2.0, 8.0),
    }
    means = np.array([lit[colour] for colour in COLOURS], np.float32)
    pixels = np.array(
        [
            [38.0, 50.0, 40.0],  # red in shade (L + 16 at 0.74 of the model's)
            [30.0, 15.0, 29.0],  # brown in shade
            [54.0, 66.0, 56.0],  # red, hardly darker: the model's own spread judges it
            [30.0, 30.0, 34.0],  # halfway between red and brown in shade
            [15.0, 1.0, 1.0],  # black in shade: never taken so
            [60.0, -1.0, 6.0],  # white in shade
        ],
        np.float32,
    )
    unfit = np.full(len(pixels), -1, np.int64)
    off = np.ones(len(pixels), np.bool_)

    def shown(best: np.ndarray, off: np.ndarray, above: Colour) -> list[Colour | None]:
        taken = or_in_shade(best, pixels, off, means, COLOURS.index(above))
        return [None if k < 0 else COLOURS[k] for k in taken]

    # Round a white cube its own colour in shade is its face, not another cube.
    assert shown(unfit, off, Colour.WHITE) == [Colour.RED, Colour.BROWN, None, None, None, None]
    # Round a brown cube, a face that passes for red in shade is as likely its own.
    assert shown(unfit, off, Colour.BROWN) == [None, None, None, None, None, Colour.WHITE]
    # Pixels that fit a colour already, or lie on a blend of the cube and the floor, keep
    # what they had.
    fitted = np.array([COLOURS.index(Colour.BLUE), -1, -1, -1, -1, -1], np.int64)
    blend = np.array([True, False, True, True, True, True])
    assert shown(fitted, blend, Colour.WHITE) == [Colour.BLUE] + [None] * 5


def test_a_shadow_on_print_is_no_strip(shadow_on_print: tuple[CalibrationSet, Profile]) -> None:
    # The shadow on the red print, beside the blue, is darker and bluer than the red, which
    # the plain Lab shade test does not take for shade: it was counted as a blue cube. The
    # set-up's own shadow, as calibration learned it, explains it.
    shots, profile = shadow_on_print
    picture = shots.tests[6]
    reading = read_tray(picture.image, profile)
    assert reading.counts == picture.counts
    assert doubt.SEEN_AS_STRIP.format(colour="blue") not in reading.reasons


def _strip(colour: Colour, x: float, off_mix: float, core: float) -> Sliver:
    return Sliver(COLOURS.index(colour), x, 50.0, off_mix, core, 0)


def test_only_wide_strips_count_and_each_cube_once() -> None:
    side = 10.0
    strips = [
        _strip(Colour.RED, 40.0, 0.08, 0.04),
        _strip(Colour.RED, 45.0, 0.10, 0.05),  # the same cube's strip, a half side on
        _strip(Colour.RED, 60.0, 0.07, 0.04),  # another red cube's
        _strip(Colour.BLUE, 40.0, 0.04, 0.04),  # too little off the mix
        _strip(Colour.GREEN, 40.0, 0.20, 0.01),  # only a pixel or two wide
        _strip(Colour.BLACK, 40.0, 0.20, 0.10),  # as likely a deep shadow
    ]
    counted = counted_slivers(strips, side)
    assert [(COLOURS[s.colour], s.x) for s in counted] == [(Colour.RED, 45.0), (Colour.RED, 60.0)]


def test_cubes_are_looked_round_only_where_something_off_their_blends_changed_beside() -> None:
    side = 10.0
    grey = np.array([60.0, 0.0, 0.0], np.float32)
    red = np.array([45.0, 55.0, 35.0], np.float32)
    blue = np.array([35.0, 10.0, -40.0], np.float32)
    empty = np.tile(grey, (60, 120, 1))
    lab = empty.copy()
    foreground = np.zeros((60, 120), np.bool_)
    cubes = [(2, 20.0, 30.0), (2, 50.0, 30.0), (2, 58.0, 30.0), (2, 95.0, 30.0)]
    for _, x, y in cubes:
        lab[int(y) - 4 : int(y) + 5, int(x) - 4 : int(x) + 5] = red
        foreground[int(y) - 4 : int(y) + 5, int(x) - 4 : int(x) + 5] = True
    means = np.array([blue, grey, red], np.float32)
    # Beside the first cube a patch of blue; beside the second one, on the third (which
    # touches it), another; beside the fourth a blend of red and the grey tray.
    for rows, columns, colour in (
        (slice(28, 32), slice(28, 30), blue),
        (slice(26, 29), slice(57, 60), blue),
        (slice(28, 32), slice(103, 105), 0.5 * (red + grey)),
    ):
        lab[rows, columns] = colour
        foreground[rows, columns] = True
    assert changed_beside(foreground, lab, empty, means, cubes, side) == [0]


def test_a_strip_where_the_cube_turns_a_face_to_the_camera_is_that_face() -> None:
    # A yellow cube at (50, 50), ten view pixels to a side. The camera is 250 mm up and 75
    # mm down the view from it: it looks at the cube 0.3 off straight down, and the face
    # turned towards it shows three pixels wide beside the top.
    near = camera_looking_at((50.0, 50.0), 250.0)
    assert near.nadir == pytest.approx((50.0, 125.0), abs=0.5)
    assert near.slants(np.array([[50.0, 50.0]]))[0] == pytest.approx(0.3, abs=0.01)
    means = np.zeros((len(COLOURS), 3), np.float32)
    for colour, lab in [
        (Colour.YELLOW, (70.0, 5.0, 50.0)),
        (Colour.BROWN, (45.0, 13.0, 15.0)),  # the yellow paint in shade, tinted by the print
        (Colour.BLUE, (30.0, 10.0, -32.0)),
        (Colour.RED, (40.0, 50.0, 30.0)),
        (Colour.WHITE, (90.0, 0.0, 5.0)),
    ]:
        means[COLOURS.index(colour)] = lab
    cubes = [(COLOURS.index(Colour.YELLOW), 50.0, 50.0)]

    def face(colour: Colour, x: float, y: float, camera: Overhead = near) -> bool:
        strip = Sliver(COLOURS.index(colour), x, y, 0.1, 0.05, 0)
        return side_faces([strip], cubes, means, camera, 10.0)[0]

    assert face(Colour.BROWN, 50.0, 56.0)
    assert face(Colour.BROWN, 53.0, 56.0)  # a face of a cube turned 30 degrees
    # Away from the camera, or across from it: a cube lying under this one.
    assert not face(Colour.BROWN, 50.0, 44.0)
    assert not face(Colour.BROWN, 56.0, 50.0)
    # Further out than the face reaches; it reaches less far when the camera, twice as
    # high, looks down on the cube more steeply.
    assert not face(Colour.BROWN, 50.0, 58.5)
    assert face(Colour.BROWN, 50.0, 57.0)
    assert not face(Colour.BROWN, 50.0, 57.0, camera_looking_at((50.0, 50.0), 500.0))
    # Colours the yellow paint cannot take in less light: the opposite hue, lighter, or more
    # colourful.
    assert not face(Colour.BLUE, 50.0, 56.0)
    assert not face(Colour.WHITE, 50.0, 56.0)
    assert not face(Colour.RED, 50.0, 56.0)
