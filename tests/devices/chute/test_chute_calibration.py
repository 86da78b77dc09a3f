"""The host's calibration: built from samples, saved and loaded, bad files explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.cubes import Colour
from companion.devices.chute.calibration import (
    TYPICAL_RGBC,
    CalibrationError,
    ChuteCalibration,
)


def test_from_samples_averages_features_and_classifies_like_the_board() -> None:
    cal = ChuteCalibration.from_samples(
        {Colour.RED: [(300, 70, 65, 430), (310, 72, 60, 440)], Colour.BLUE: [(60, 110, 230, 390)]}
    )
    assert set(cal.references) == {Colour.RED, Colour.BLUE}
    assert cal.classify((305, 71, 62, 435))[0] is Colour.RED
    # Colours not calibrated are never chosen, whatever the reading.
    assert cal.classify(TYPICAL_RGBC[Colour.WHITE]) == (None, 0.0)


def test_default_holds_every_colour() -> None:
    cal = ChuteCalibration.default()
    assert set(cal.references) == set(Colour)
    for colour, rgbc in TYPICAL_RGBC.items():
        assert cal.classify(rgbc) == (colour, 1.0)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "chute.json"
    cal = ChuteCalibration.default()
    cal.save(path)
    assert ChuteCalibration.load(path) == cal
    assert ChuteCalibration.load(path).table_id == cal.table_id


@pytest.mark.parametrize(
    ("samples", "message"),
    [
        ({Colour.RED: []}, "no readings for red"),
        ({Colour.RED: [(0, 0, 0, 0)]}, "no light at all"),
    ],
)
def test_unusable_samples_say_what_to_do(
    samples: dict[Colour, list[tuple[int, int, int, int]]], message: str
) -> None:
    with pytest.raises(CalibrationError, match=message):
        ChuteCalibration.from_samples(samples)


def test_a_bad_file_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "chute.json"
    path.write_text('{"references": {"purple": [1, 2, 3, 4]}}')
    with pytest.raises(CalibrationError, match="recalibrate or delete it"):
        ChuteCalibration.load(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        ChuteCalibration.load(tmp_path / "missing.json")
