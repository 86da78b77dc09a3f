"""Shared fixtures: one calibrated set-up from the shared tray renderer per test session."""

from __future__ import annotations

import pytest

from companion.devices.tray_render import CalibrationSet, calibration_set
from companion.vision import Profile, calibrate


def calibrate_set(cal: CalibrationSet) -> Profile:
    """The profile for a rendered calibration set."""
    return calibrate(cal.empty.image, {colour: shot.image for colour, shot in cal.colours})


@pytest.fixture(scope="session")
def cal() -> CalibrationSet:
    """A fixed camera, tray and light (neutral light), with six test pictures."""
    return calibration_set(1001, "neutral", tests=6)


@pytest.fixture(scope="session")
def profile(cal: CalibrationSet) -> Profile:
    """The profile calibrated from `cal`."""
    return calibrate_set(cal)
