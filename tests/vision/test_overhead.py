"""Where the camera is, from the top-down view of a level plane: checked against a camera
whose pose is known (the simulator's pinhole camera with the nominal lens)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import view_of_floor

from companion.devices.simtray.camera import camera_for
from companion.devices.tray_render import CameraPose
from companion.vision.overhead import NOMINAL_FOV, nadir_in_view, slants

# A camera 250 mm up, leaning 15 degrees and turned 20 about its axis: the point below it is
# 67 mm from the spot it looks at.
POSE = CameraPose(
    height_mm=250.0, tilt_deg=15.0, tilt_azimuth_deg=40.0, yaw_deg=20.0, hfov_deg=NOMINAL_FOV
)


@pytest.mark.parametrize("flip", [1.0, -1.0])
def test_the_point_below_the_camera_is_found_from_a_level_planes_view(flip: float) -> None:
    camera = camera_for(POSE, (800, 600), [(0.0, 0.0, 0.0)])
    nadir = nadir_in_view(view_of_floor(camera, (300.0, 300.0), 2.0, flip), (800, 600))
    assert nadir is not None
    below = 300.0 + 2.0 * camera.centre[:2] * [1.0, flip]
    assert np.hypot(*(np.array(nadir) - below)) < 0.5


@pytest.mark.parametrize("flip", [1.0, -1.0])
def test_how_steeply_the_camera_looks_at_a_spot_is_its_reach_over_the_height(
    flip: float,
) -> None:
    camera = camera_for(POSE, (800, 600), [(0.0, 0.0, 0.0)])
    spots = np.array([[0.0, 0.0], [-60.0, 40.0], [70.0, -45.0], [67.0 * 0.77, 67.0 * 0.64]])
    in_view = 300.0 + 2.0 * spots * [1.0, flip]
    found = slants(view_of_floor(camera, (300.0, 300.0), 2.0, flip), (800, 600), in_view)
    reach = np.hypot(*(spots - camera.centre[:2]).T)
    expected = reach / camera.centre[2]
    # From 0 (the spot below the camera) to 0.45.
    assert np.allclose(found, expected, atol=1e-3)
    assert expected.min() < 0.01 and expected.max() > 0.4


def test_a_camera_looking_straight_down_is_over_the_pictures_middle() -> None:
    # Seen straight from above the plane keeps its shape (the view is an affine map of the
    # picture): the point below the camera is the picture's middle, and a spot 200 pixels
    # from it is seen 200 / 693 (the nominal lens's focal length) off straight down.
    matrix = np.array([[0.5, 0.1, 20.0], [0.0, 0.5, 10.0], [0.0, 0.0, 1.0]])
    nadir = nadir_in_view(matrix, (800, 600))
    assert nadir is not None
    middle = matrix @ [399.5, 299.5, 1.0]
    assert np.allclose(nadir, middle[:2])
    spot = matrix @ [599.5, 299.5, 1.0]
    focal = 400.0 / np.tan(np.radians(NOMINAL_FOV / 2))
    assert np.allclose(slants(matrix, (800, 600), spot[None, :2]), [200.0 / focal])


def test_a_view_of_no_plane_has_no_point_below_the_camera() -> None:
    # A view whose plane the camera would see edge-on (its straight down lies in the
    # picture's plane): no point below it, and no slant.
    focal = 400.0 / np.tan(np.radians(NOMINAL_FOV / 2))
    plane = np.array([[focal, 0.0, 0.0], [0.0, 0.0, focal], [0.0, 1.0, 1.0]])
    shift = np.array([[1.0, 0.0, 399.5], [0.0, 1.0, 299.5], [0.0, 0.0, 1.0]])
    matrix = np.linalg.inv(shift @ plane)
    assert nadir_in_view(matrix, (800, 600)) is None
    assert not slants(matrix, (800, 600), np.array([[10.0, 10.0]])).any()
