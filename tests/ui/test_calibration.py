"""The calibration wizard: eight pictures by touch, a profile saved, and its check shown."""

from __future__ import annotations

from typing import Any

from companion.ui import harness
from companion.ui.bridge import SimulatedCalibrationPictures
from companion.vision import Profile


def test_wizard_calibrates_from_the_simulated_camera(app: Any) -> None:
    app.grab_picture = SimulatedCalibrationPictures(seed=0).next_picture
    try:
        app.show("calibration")
        screen = app.screen("calibration")
        harness.tap(screen.ids.restart)
        assert "Step 1 of 8" in screen.ids.step.text
        for step in range(8):
            assert screen.ids.progress.value == step
            harness.tap(screen.ids.take)
        assert screen.ids.take.disabled
        assert "Calibrated" in screen.ids.result.text, screen.ids.result.text
        saved = app.controller.saved.directory / "profile.json"
        Profile.load(saved)
        assert "Every picture shows only its colour" in screen.ids.result.text
    finally:
        del app.grab_picture


def test_wizard_without_camera_says_so(app: Any) -> None:
    app.show("calibration")
    screen = app.screen("calibration")
    assert screen.ids.take.disabled
    assert "No camera" in screen.ids.step.text
