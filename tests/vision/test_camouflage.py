"""Colours the tray's floor hides: calibration tells which (companion.vision.camouflage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main
from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import calibration_set, write_set
from companion.vision import Profile
from companion.vision.camouflage import WARN_SHARE, camouflaged, hiding_floor

# A daylight set-up whose tray is printed almost all over in a cream a white cube matches.
PALE_PRINT = 1078273965


@pytest.fixture(scope="module")
def pale_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pale")
    write_set(calibration_set(PALE_PRINT, "daylight", tests=0), folder)
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
