"""A path-traced set-up (benchmarks/pathtraced, seed 2): cubes dropped by physics against the
tray's near wall, a low lamp, the room's light hidden from the wall's face beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core.cubes import Colour, Counts
from companion.vision import Profile, calibrate, load_image, read_tray

FIXTURE = Path(__file__).parents[1] / "fixtures" / "vision" / "pathtraced_wall"


@pytest.fixture(scope="module")
def profile() -> Profile:
    pictures = FIXTURE / "calibration"
    empty = load_image(pictures / "empty.jpg")
    return calibrate(empty, {c: load_image(pictures / f"{c.value}.jpg") for c in Colour})


@pytest.mark.parametrize("name", ["drop06.jpg", "drop09.jpg"])
def test_the_shaded_wall_beside_cubes_against_it_is_no_black_cube(
    profile: Profile, name: str
) -> None:
    # Before `detect.without_wall_strips`, the darkened strip of the wall's face under the
    # blue, white and red cubes against it read as one or two black cubes.
    truth = json.loads((FIXTURE / "truth.json").read_text())[name]
    reading = read_tray(load_image(FIXTURE / name), profile)
    assert reading.counts == Counts.of(truth["counts"])
