"""The learned colours checked as a set: each colour leads the rest on its own mark."""

from __future__ import annotations

import pytest

from companion.core.cubes import Colour
from companion.vision import CalibrationError, Profile
from companion.vision.colour_marks import broken_mark, check_marks


def test_a_calibrated_set_keeps_every_mark(profile: Profile) -> None:
    assert broken_mark(profile.colours) is None


@pytest.mark.parametrize(
    ("first", "second", "broken", "rival"),
    [
        # Pictures saved under each other's names: the swap shows on the colour with a mark.
        (Colour.RED, Colour.BROWN, Colour.RED, Colour.BROWN),
        (Colour.YELLOW, Colour.WHITE, Colour.YELLOW, Colour.WHITE),
        (Colour.WHITE, Colour.BLACK, Colour.WHITE, Colour.BLACK),
        (Colour.GREEN, Colour.BLUE, Colour.GREEN, Colour.BLUE),
        # No hue or lightness tells these two apart under every light, but the swap puts
        # brown's model nearer pure black than black's.
        (Colour.BROWN, Colour.BLACK, Colour.BLACK, Colour.BROWN),
    ],
)
def test_two_pictures_under_each_others_names_break_a_mark(
    profile: Profile, first: Colour, second: Colour, broken: Colour, rival: Colour
) -> None:
    swapped = dict(profile.colours)
    swapped[first], swapped[second] = profile.colours[second], profile.colours[first]
    found = broken_mark(swapped)
    assert found is not None
    assert found[0].colour is broken
    assert rival in found[1]
    with pytest.raises(
        CalibrationError, match=f"the {broken.value} picture's cubes .*{rival.value}"
    ):
        check_marks(swapped)


@pytest.mark.parametrize("colour", [Colour.BLACK, Colour.BROWN])
def test_a_clipped_black_or_brown_model_is_of_lighter_cubes(
    profile: Profile, colour: Colour
) -> None:
    models = dict(profile.colours)
    models[colour] = models[colour].model_copy(update={"clipped": True})
    with pytest.raises(
        CalibrationError, match=f"the {colour.value} picture's cubes are too bright"
    ):
        check_marks(models)
    # A clipped white is only known roughly: the marks pass over it.
    models = dict(profile.colours)
    models[Colour.WHITE] = models[Colour.WHITE].model_copy(update={"clipped": True})
    check_marks(models)
