"""Shared fixtures: one calibrated set-up per test session (calibration takes about a second)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from vision_scenes import SetUp

from companion.vision import Profile, calibrate


@pytest.fixture(scope="session")
def setup() -> SetUp:
    """A fixed camera, tray and light."""
    return SetUp(3)


@pytest.fixture(scope="session")
def profile(setup: SetUp) -> Profile:
    """The profile calibrated from `setup`."""
    empty, pictures = setup.calibration(3000)
    return calibrate(empty, pictures)
