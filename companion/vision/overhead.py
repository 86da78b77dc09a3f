"""Where the camera is over the tray, from the top-down view of its floor.

The view of a level plane (a homography from the picture) fixes the direction, from the
picture's middle, in which vertical lines meet: the image of the point straight below the
camera. How far along it that point lies, and how steeply the camera looks at each spot,
depend on the lens as well, which one picture of a plane cannot tell; a nominal lens stands
in for it. Tray finding weighs the wall faces it sees against that point, and counting
knows on which side of a cube its side faces show and how wide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

# The lens, degrees across the picture, assumed: webcams and the Pi's cameras span 50-72,
# which puts the point below the camera 0.63-1.53 times as far from the picture's middle and
# makes every slant 0.7-1.3 times as steep.
NOMINAL_FOV = 60.0
# A cube's side faces that turn towards the camera show beside its top, in the top-down
# view towards the point below the camera, each as wide as the slant (`slants`) times the
# side. A point within FACE_TURN degrees of that way from the centre of the top, no further
# out than the middle of such a face (half a side and half that width) and FACE_MARGIN
# sides more, lies on a face (a cube turned 45 degrees shows two, each that far off the
# way; the margin takes the blur and the nominal lens).
FACE_TURN = 50.0
FACE_MARGIN = 0.1


def _down(
    matrix: NDArray[np.float64], picture: tuple[int, int]
) -> tuple[NDArray[np.float64], NDArray[np.float64], float] | None:
    """The picture's middle, the direction straight down in the camera's frame (x right, y
    down, z along the axis, in pixels of a nominal lens's focal length), and that focal
    length; None when the view is no plane's."""
    width, height = picture
    focal = 0.5 * width / math.tan(math.radians(NOMINAL_FOV) / 2)
    middle = np.array([(width - 1) / 2, (height - 1) / 2])
    shift = np.array([[1.0, 0.0, -middle[0]], [0.0, 1.0, -middle[1]], [0.0, 0.0, 1.0]])
    plane = shift @ np.linalg.inv(matrix)
    # The plane's two axes as the camera sees them; straight down is square to both.
    first = plane[:, 0] / np.array([focal, focal, 1.0])
    second = plane[:, 1] / np.array([focal, focal, 1.0])
    down = np.cross(first, second)
    if abs(down[2]) < 1e-12 * float(np.linalg.norm(down)):
        return None
    # Down is towards the plane, in front of the camera.
    return middle, down * np.sign(down[2]) * focal / np.linalg.norm(down), focal


def nadir_in_view(
    matrix: NDArray[np.float64], picture: tuple[int, int]
) -> tuple[float, float] | None:
    """Where the point straight below the camera lies in a top-down view of a level plane
    (`matrix`: picture pixels to view pixels; `picture`: its width and height), for a lens of
    NOMINAL_FOV across the picture whose axis meets the picture's middle. None when the view
    is no plane's (its axes run parallel in the picture)."""
    found = _down(matrix, picture)
    if found is None:
        return None
    middle, down, focal = found
    point = (middle + focal * down[:2] / down[2]).reshape(1, 1, 2)
    seen = cv2.perspectiveTransform(point, matrix)[0, 0]
    return float(seen[0]), float(seen[1])


def slants(
    matrix: NDArray[np.float64], picture: tuple[int, int], points: NDArray[np.float64]
) -> NDArray[np.float64]:
    """How steeply the camera looks at each of `points` (view pixels, N x 2) on the plane:
    the tangent of its ray's angle from straight down, for the lens nadir_in_view assumes.
    A cube's side face turned towards the camera shows about this share of its side beside
    the top. Nought for every point when the view is no plane's."""
    found = _down(matrix, picture)
    if found is None or len(points) == 0:
        return np.zeros(len(points), np.float64)
    middle, down, focal = found
    inverse = np.linalg.inv(matrix)
    seen = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), inverse)
    rays = np.column_stack([seen.reshape(-1, 2) - middle, np.full(len(points), focal)])
    along = rays @ down / focal
    across = np.linalg.norm(np.cross(rays, down / focal), axis=1)
    result: NDArray[np.float64] = across / np.maximum(along, 1e-9)
    return result


@dataclass(frozen=True, eq=False)
class Overhead:
    """The camera over a view of the tray floor: the point below it (`nadir`, view pixels),
    and the view (`matrix`, picture pixels to view pixels) of a picture `picture` wide and
    high."""

    nadir: tuple[float, float]
    matrix: NDArray[np.float64]
    picture: tuple[int, int]

    def slants(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """How steeply the camera looks at each of `points` (view pixels; see `slants`)."""
        return slants(self.matrix, self.picture, points)

    def turn(self, at: tuple[float, float], way: tuple[float, float]) -> float:
        """How many degrees (0-180) `way` turns from the way from `at` to the point below
        the camera: a cube's side faces that the camera sees turn towards that point."""
        towards = (self.nadir[0] - at[0], self.nadir[1] - at[1])
        lengths = math.hypot(*way) * math.hypot(*towards)
        if lengths == 0.0:
            return 180.0
        cosine = (way[0] * towards[0] + way[1] * towards[1]) / lengths
        return math.degrees(math.acos(min(max(cosine, -1.0), 1.0)))

    def facing(self, cube: tuple[float, float], point: tuple[float, float]) -> bool:
        """Whether `point` lies from the top centred at `cube` the way of a side face the
        camera sees (view pixels; see FACE_TURN)."""
        return self.turn(cube, (point[0] - cube[0], point[1] - cube[1])) <= FACE_TURN

    def on_face(self, cube: tuple[float, float], point: tuple[float, float], side: float) -> bool:
        """Whether `point` lies on a side face that the cube whose top is centred at `cube`
        turns to the camera (view pixels; `side`: a cube's side there; see FACE_TURN)."""
        slant = float(self.slants(np.array([cube], np.float64))[0])
        reach = (0.5 + 0.5 * slant + FACE_MARGIN) * side
        far = math.hypot(point[0] - cube[0], point[1] - cube[1])
        return far <= reach and self.facing(cube, point)


def camera_over(matrix: NDArray[np.float64], picture: tuple[int, int]) -> Overhead | None:
    """The camera over the view `matrix` of a picture `picture` wide and high; None when the
    view is no plane's."""
    nadir = nadir_in_view(matrix, picture)
    return None if nadir is None else Overhead(nadir, matrix, picture)


__all__ = [
    "FACE_MARGIN",
    "FACE_TURN",
    "NOMINAL_FOV",
    "Overhead",
    "camera_over",
    "nadir_in_view",
    "slants",
]
