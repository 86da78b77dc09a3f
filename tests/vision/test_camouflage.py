"""Colours the tray's floor hides: calibration names them, and a reading holding one doubts."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import calibrate_set

from companion.cli import main
from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import CalibrationSet, calibration_set, write_set
from companion.vision import Profile, read_tray
from companion.vision import reasons as doubt
from companion.vision.camouflage import WARN_SHARE, camouflaged, hiding_floor

# A daylight set-up whose tray is printed almost all over in a cream a white cube matches.
PALE_PRINT = 1078273965


@pytest.fixture(scope="module")
def pale() -> CalibrationSet:
    return calibration_set(PALE_PRINT, "daylight", tests=6)


@pytest.fixture(scope="module")
def pale_set(pale: CalibrationSet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pale")
    write_set(pale, folder)
    return folder


def test_a_floor_that_looks_like_white_hides_white_only(
    pale_set: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = pale_set / "p.json"
    assert main(["calibrate", str(pale_set), "--out", str(out)]) == 0
    shares = hiding_floor(Profile.load(out))
    assert shares[Colour.WHITE] > 0.9
    assert all(shares[c] < WARN_SHARE for c in COLOURS if c is not Colour.WHITE)
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "hard to see" in lines["white"]
    assert "hard to see" not in lines["black"]
    assert "white cubes" in lines["warning:"]


def test_a_plain_floor_hides_no_colour(profile: Profile) -> None:
    shares = hiding_floor(profile)
    assert camouflaged(profile) == {}
    assert set(shares) == set(COLOURS)
    assert max(shares.values()) < WARN_SHARE


def test_a_reading_with_cubes_of_a_hidden_colour_is_unsure(pale: CalibrationSet) -> None:
    profile = calibrate_set(pale)
    # (Test 5's cubes lie apart: touching ones would make it unsure for that.)
    with_white, without = pale.tests[2], pale.tests[5]
    assert with_white.counts[Colour.WHITE] == 1 and without.counts[Colour.WHITE] == 0
    reading = read_tray(with_white.image, profile)
    # Counted right, but another white could lie on the print unseen.
    assert reading.counts == with_white.counts
    assert not reading.confident
    assert doubt.HIDING_PRINT.format(colour="white") in reading.reasons
    # No white found: nothing says the print hid one (else no reading here would be sure).
    other = read_tray(without.image, profile)
    assert other.counts == without.counts
    assert other.confident, other.reasons
