"""Before a reading is given as sure, a closer look round each found cube finds the sliver
of a cube lying under another, and makes the reading unsure."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import calibrate_set

from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import CalibrationSet, calibration_set
from companion.vision import Profile, read_tray
from companion.vision import reasons as doubt
from companion.vision.colours import mix_gaps
from companion.vision.detect import find_cubes
from companion.vision.segment import compare
from companion.vision.sliver import hidden_slivers


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


def _missed_in_doubt(
    setup: tuple[CalibrationSet, Profile], index: int, colour: Colour, there: int
) -> None:
    """Test picture `index` holds `there` cubes of `colour`; the reading counts one fewer,
    is not sure, and names that colour as maybe hidden beside the others."""
    shots, profile = setup
    picture = shots.tests[index]
    assert picture.counts[colour] == there
    reading = read_tray(picture.image, profile)
    assert reading.counts[colour] == there - 1
    assert not reading.confident
    assert doubt.HIDDEN_BESIDE.format(colour=colour.value) in reading.reasons


def _read_right_and_sure(setup: tuple[CalibrationSet, Profile], index: int) -> None:
    """Test picture `index` is read right and given as sure."""
    shots, profile = setup
    picture = shots.tests[index]
    reading = read_tray(picture.image, profile)
    assert reading.counts == picture.counts
    assert reading.confident


def test_a_sliver_under_another_cube_makes_the_reading_unsure(
    yellow_under_red: tuple[CalibrationSet, Profile],
) -> None:
    # The view shows the strip as a pixel or two of blends, and the count misses the yellow
    # cube: the reading used to be given as sure, and wrong.
    _missed_in_doubt(yellow_under_red, 7, Colour.YELLOW, 1)


def test_cubes_lying_apart_show_no_sliver(
    yellow_under_red: tuple[CalibrationSet, Profile],
) -> None:
    # Their side faces (their own colour in shade), their shadows and the blends along their
    # edges are no other cube.
    _read_right_and_sure(yellow_under_red, 5)


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


def test_cubes_side_by_side_without_one_under_another_stay_sure(
    red_under_black: tuple[CalibrationSet, Profile],
) -> None:
    _read_right_and_sure(red_under_black, 2)


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
