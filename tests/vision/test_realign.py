"""A camera knocked since calibration: the tray is found where it moved to, and the reading
says so (never confident: the walls still show the move)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from conftest import calibrate_set

from companion.devices.tray_render import CalibrationSet, calibration_set, render
from companion.vision import Profile, read_tray
from companion.vision import reasons as doubt
from companion.vision.realign import lined_up_view
from companion.vision.tray_view import TrayView

# A set-up whose test pictures are taken with the camera moved 4-12 mm and turned 1-3 degrees.
KNOCKED = 525071816
# A set-up whose test pictures show the table with no tray on it.
SOMETHING_ELSE = 1322464068


@pytest.fixture(scope="module")
def knocked() -> tuple[CalibrationSet, Profile]:
    cal = calibration_set(KNOCKED, "bumped", tests=4)
    return cal, calibrate_set(cal)


def _lined_up(picture: np.ndarray, profile: Profile) -> TrayView | None:
    prepared = profile.prepared()
    view = profile.view
    return lined_up_view(
        view.warp(picture), prepared.empty_grey, prepared.empty_small, view, profile.cube_side
    )


def _where_it_moved(cal: CalibrationSet, profile: Profile, index: int) -> np.ndarray:
    """The calibrated outline's corners (picture pixels) where the knocked camera sees them:
    from the renderer's true floor corners before and after the knock."""
    size = (profile.view_width, profile.view_height)
    before = TrayView(cal.empty.tray_corners, *size).homography
    after = TrayView(cal.tests[index].tray_corners, *size).homography
    calibrated = np.array(profile.tray_corners, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(calibrated, np.linalg.inv(after) @ before).reshape(-1, 2)


def test_the_tray_is_found_where_the_knocked_camera_sees_it(
    knocked: tuple[CalibrationSet, Profile],
) -> None:
    cal, profile = knocked
    for index, shot in enumerate(cal.tests):
        view = _lined_up(shot.image, profile)
        assert view is not None, f"picture {index}: the move was not seen"
        wanted = _where_it_moved(cal, profile, index)
        moved_by = np.abs(wanted - np.array(profile.tray_corners)).max()
        off_by = np.abs(np.array(view.corners) - wanted).max()
        # The knock moved the corners 17-31 picture pixels; lined up, they are within 2.
        assert moved_by > 10 and off_by < 2.0, (index, off_by, moved_by)


def test_a_camera_where_calibration_left_it_has_not_moved(
    knocked: tuple[CalibrationSet, Profile],
) -> None:
    cal, profile = knocked
    assert _lined_up(cal.empty.image, profile) is None
    for shot in cal.tests:
        still = render(replace(shot.scene, setup=cal.setup))
        assert _lined_up(still.image, profile) is None
        assert doubt.MOVED not in read_tray(still.image, profile).reasons


def test_a_knocked_camera_is_counted_and_said_to_have_moved(
    knocked: tuple[CalibrationSet, Profile],
) -> None:
    cal, profile = knocked
    readings = [read_tray(shot.image, profile) for shot in cal.tests]
    for reading in readings:
        assert doubt.MOVED in reading.reasons
        assert not reading.confident
    exact = sum(r.counts == s.counts for r, s in zip(readings, cal.tests, strict=True))
    assert exact >= 3, [(r.counts, s.counts) for r, s in zip(readings, cal.tests, strict=True)]


def test_a_picture_of_something_else_is_not_taken_for_a_moved_tray() -> None:
    # Papers on the table where the tray stood: lined up without the knock's bounds, six of
    # these ten were read as the tray moved, with up to 24 cubes counted on them.
    cal = calibration_set(SOMETHING_ELSE, "no-tray", tests=10)
    profile = calibrate_set(cal)
    for shot in cal.tests:
        reading = read_tray(shot.image, profile)
        assert doubt.MOVED not in reading.reasons
        assert not reading.confident
