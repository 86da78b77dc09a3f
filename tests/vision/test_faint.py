"""A cube the picture hardly shows (on print of its own colour) keeps a reading unsure."""

from __future__ import annotations

import numpy as np

from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import calibration_set
from companion.vision import calibrate, read_tray
from companion.vision import reasons as doubt
from companion.vision.faint import faint_cube

SIDE = 10.0
THRESHOLD = 4.5


def _floor() -> tuple[np.ndarray, np.ndarray]:
    """A quiet 80 x 80 floor: no difference anywhere, all of it away from found cubes."""
    return np.zeros((80, 80), np.float32), np.ones((80, 80), np.bool_)


def _outline(difference: np.ndarray, top: int, left: int, value: float = 6.0) -> None:
    """The darker edge of a cube the floor's colour: a ring two pixels wide, SIDE across."""
    side = int(SIDE)
    difference[top : top + side, left : left + side] = value
    difference[top + 2 : top + side - 2, left + 2 : left + side - 2] = 0.0


def test_the_outline_of_a_cube_the_floors_colour_is_found() -> None:
    difference, quiet = _floor()
    _outline(difference, 30, 30)
    assert faint_cube(difference, THRESHOLD, None, quiet, SIDE)


def test_an_outline_beside_a_found_cube_or_within_the_floors_noise_is_not() -> None:
    difference, quiet = _floor()
    _outline(difference, 30, 30)
    near = quiet.copy()
    near[25:45, 25:45] = False
    assert not faint_cube(difference, THRESHOLD, None, near, SIDE)
    noise = np.full((80, 80), 6.0, np.float32)
    assert not faint_cube(difference, THRESHOLD, noise, quiet, SIDE)


def test_a_change_of_light_over_the_whole_floor_is_no_cube() -> None:
    difference, quiet = _floor()
    difference[:, :] = 3.0
    assert not faint_cube(difference, THRESHOLD, None, quiet, SIDE)


def test_one_sharp_speck_is_no_cube() -> None:
    difference, quiet = _floor()
    difference[40:42, 40:42] = 100.0
    assert not faint_cube(difference, THRESHOLD, None, quiet, SIDE)


def test_a_brown_cube_on_a_brown_floor_keeps_the_reading_unsure() -> None:
    # Rendered set-up (hard pairs under warm light, brown tray): in this test picture the one
    # brown cube shows only its outline, no colour finds it, and the reading used to be
    # confident with one brown cube too few.
    shots = calibration_set(710292156, "hard-pairs", tests=2, jpeg=False)
    pictures = shots.calibration_pictures()
    profile = calibrate(pictures["empty"].image, {c: pictures[c.value].image for c in COLOURS})
    picture = shots.tests[1]
    assert picture.counts[Colour.BROWN] == 1
    reading = read_tray(picture.image, profile)
    assert reading.counts[Colour.BROWN] == 0
    assert not reading.confident
    assert doubt.MAYBE_CUBE in reading.reasons
