"""A cube too faint for a peak of its own is counted from its patch of evidence, in doubt,
when the patch is a cube's size and shape and lies clear of every cube found."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import FAINT_BROWN_FLOOR, calibrate_set

from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import RenderedTray, calibration_set
from companion.vision import Profile
from companion.vision.detect import find_cubes, profile_evidence
from companion.vision.found import Found
from companion.vision.patches import LEFT_OVER_CUBE, evidence_patches, left_over_cubes
from companion.vision.segment import Comparison, compare

BROWN, BLUE = COLOURS.index(Colour.BROWN), COLOURS.index(Colour.BLUE)


@pytest.fixture(scope="module")
def faint_brown() -> tuple[RenderedTray, Profile, Comparison]:
    """Rendered set-up (hard pairs under warm light, a brown print) and a test picture whose
    one brown cube differs so little from the print that its evidence fills no box enough
    for a peak."""
    shots = calibration_set(710292156, "hard-pairs", tests=2, jpeg=False)
    profile = calibrate_set(shots, FAINT_BROWN_FLOOR)
    picture = shots.tests[1]
    comparison = compare(profile.view.warp(picture.image), profile.prepared().reference)
    return picture, profile, comparison


def _in_picture(profile: Profile, cube: Found) -> tuple[float, float]:
    x, y = profile.view.to_picture(np.array([[cube.x, cube.y]]))[0]
    return float(x), float(y)


def _others(faint: tuple[RenderedTray, Profile, Comparison]) -> list[Found]:
    """The cubes found in the picture but the brown one: each gives a peak of its own."""
    _, profile, comparison = faint
    return [c for c in find_cubes(comparison, profile).cubes if c.colour != BROWN]


def _found_brown(faint: tuple[RenderedTray, Profile, Comparison]) -> Found:
    """The one cube the patches give beside the others found: the brown one."""
    _, profile, comparison = faint
    maps = profile_evidence(comparison, profile).maps
    anywhere = np.ones(maps.shape[1:], np.bool_)
    patches = [evidence_patches(plane) for plane in maps]
    (brown,) = left_over_cubes(patches, _others(faint), comparison, profile.prepared(), anywhere)
    return brown


def test_the_faint_brown_is_found_where_it_lies_and_never_sure(
    faint_brown: tuple[RenderedTray, Profile, Comparison],
) -> None:
    picture, profile, _ = faint_brown
    brown = _found_brown(faint_brown)
    assert brown.colour == BROWN
    assert brown.confidence < 0.5
    truth = next(c for c in picture.cubes if c.colour is Colour.BROWN)
    x, y = _in_picture(profile, brown)
    # Within a third of the cube's side (about 21 picture pixels here) of its true centre.
    assert np.hypot(x - truth.x, y - truth.y) < 7.0


def test_a_patch_beside_a_found_cube_or_beyond_the_floor_is_no_cube(
    faint_brown: tuple[RenderedTray, Profile, Comparison],
) -> None:
    _, profile, comparison = faint_brown
    prepared = profile.prepared()
    maps = profile_evidence(comparison, profile).maps
    patches = [evidence_patches(plane) for plane in maps]
    brown = _found_brown(faint_brown)
    side = profile.cube_side
    # Beside a cube found: that cube's fringe or side face as likely as a cube.
    blue = Found(BLUE, brown.x + side, brown.y, 1.0, 5.0, BROWN)
    others = _others(faint_brown)
    anywhere = np.ones(maps.shape[1:], np.bool_)
    assert left_over_cubes(patches, [*others, blue], comparison, prepared, anywhere) == []
    # Beyond the floor (the table beside the tray, the rim): no cube of the tray's.
    nowhere = np.zeros(maps.shape[1:], np.bool_)
    assert left_over_cubes(patches, others, comparison, prepared, nowhere) == []


def test_the_same_evidence_as_a_strip_is_no_cube_but_as_a_square_is(
    faint_brown: tuple[RenderedTray, Profile, Comparison],
) -> None:
    # Strips along the rim and the print's edges gather as much evidence as a cube; only
    # a patch a cube's size and shape is taken. Same place, same pixels' colour, same mass.
    _, profile, comparison = faint_brown
    prepared = profile.prepared()
    brown = _found_brown(faint_brown)
    x, y, half = round(brown.x), round(brown.y), round(profile.cube_side / 2)
    anywhere = np.ones(comparison.lab.shape[:2], np.bool_)
    strip = np.zeros((len(COLOURS), *comparison.lab.shape[:2]), np.float32)
    strip[BROWN, y - 1 : y + 2, x - 2 * half : x + 2 * half] = 1.0
    square = np.zeros_like(strip)
    side = round(np.sqrt(float(strip.sum())))
    square[BROWN, y - side // 2 : y - side // 2 + side, x - side // 2 : x - side // 2 + side] = 1.0
    strips, squares = ([evidence_patches(p) for p in maps] for maps in (strip, square))
    for patches in (strips, squares):
        brown_patches = patches[BROWN]
        assert brown_patches is not None
        assert brown_patches.mass[1] >= LEFT_OVER_CUBE * prepared.areas[BROWN]
    assert left_over_cubes(strips, [], comparison, prepared, anywhere) == []
    assert [c.colour for c in left_over_cubes(squares, [], comparison, prepared, anywhere)] == [
        BROWN
    ]
