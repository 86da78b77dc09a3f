"""The calibration wizard: eight pictures by touch, a profile saved, and its check shown."""

from __future__ import annotations

from typing import Any

from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import calibration_set, render
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
        assert "Hard to see" not in screen.ids.result.text
        assert "in shade" not in screen.ids.result.text
    finally:
        del app.grab_picture


def _wizard_result(app: Any, seed: int, condition: str) -> str:
    """The wizard's result after its eight pictures are a rendered set-up's (seed, condition)."""
    shots = calibration_set(seed, condition, tests=0)
    return _result_of(app, [shots.empty.image, *(dict(shots.colours)[c].image for c in COLOURS)])


def _result_of(app: Any, taken: list[Any]) -> str:
    """The wizard's result after it took these eight pictures, the empty tray's first."""
    pictures = iter(taken)
    app.grab_picture = lambda: next(pictures)
    try:
        app.show("calibration")
        screen = app.screen("calibration")
        harness.tap(screen.ids.restart)
        for _ in range(8):
            harness.tap(screen.ids.take)
        result: str = screen.ids.result.text
    finally:
        del app.grab_picture
    assert "Calibrated" in result, result
    return result


def test_wizard_names_a_colour_the_trays_print_hides(app: Any) -> None:
    # A daylight set-up whose cream print looks like the white cubes (tests/vision/test_camouflage.py).
    result = _wizard_result(app, 1078273965, "daylight")
    assert "Hard to see on this tray: white." in result, result


def test_wizard_without_camera_says_so(app: Any) -> None:
    app.show("calibration")
    screen = app.screen("calibration")
    assert screen.ids.take.disabled
    assert "No camera" in screen.ids.step.text


def test_wizard_says_when_the_white_cubes_lay_in_shade(app: Any) -> None:
    # A tilted set-up whose white cubes lie in the tray wall's shadow (tests/vision/test_lit.py).
    result = _wizard_result(app, 196850089, "tilted")
    assert "The white cubes looked as if in shade." in result, result


def test_wizard_says_when_the_tray_moved_between_pictures(app: Any) -> None:
    # The camera knocked before the blue cubes' picture (tests/vision/test_lined_up_set.py).
    shots = calibration_set(1553855255, "warm", tests=0)
    blue = dict(shots.colours)[Colour.BLUE].scene
    knocked = render(blue.knocked(4)).image
    colours = [knocked if c is Colour.BLUE else dict(shots.colours)[c].image for c in COLOURS]
    result = _result_of(app, [shots.empty.image, *colours])
    assert "The tray moved while the pictures were taken: blue lined up" in result, result
