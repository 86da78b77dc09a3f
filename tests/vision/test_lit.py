"""Calibration warns when the white cubes were learned in shade."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import calibrate_set

from companion.cli import main
from companion.core.cubes import Colour
from companion.devices.tray_render import calibration_set, write_set
from companion.vision import Profile
from companion.vision.lit import SHADED_BY, white_in_shade

# Rendered set-up (tilted camera, a pale checked print): the white picture's cubes lie in the
# shadow of the tray's wall, and white is learned at about L 41 on a floor of about L 56.
WHITE_IN_SHADE = 196850089


@pytest.fixture(scope="module")
def shaded_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("shaded")
    write_set(calibration_set(WHITE_IN_SHADE, "tilted", tests=0), folder)
    return folder


def test_white_cubes_learned_in_shade_are_warned_of(
    shaded_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shaded_set / "p.json"
    assert main(["calibrate", str(shaded_set), "--out", str(out)]) == 0
    shaded = white_in_shade(Profile.load(out))
    assert shaded is not None
    white, floor = shaded
    assert white < floor - SHADED_BY
    warnings = [line for line in capsys.readouterr().out.splitlines() if "in shade" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: the white cubes look darker than most of the floor")


def test_white_cubes_in_the_open_light_are_not(profile: Profile) -> None:
    assert white_in_shade(profile) is None


def test_white_cubes_on_a_print_the_camera_clips_are_learned_from_their_tops() -> None:
    # Rendered set-up (a peach print clipped in red, blurred): a white top there is as bright
    # in red as the print and nearly its hue. Taken for the print at another exposure, white
    # was learned from its cubes' shadows, at L 68 on a floor of L 89, and warned of as shade.
    profile = calibrate_set(calibration_set(1062610985, "setup-drop", tests=0))
    assert profile.colours[Colour.WHITE].mean[0] > 80.0
    assert white_in_shade(profile) is None
