"""A pinhole camera over the tray: world millimetres to picture pixels, and back as rays.

World frame: the tray floor's centre is the origin, x to the picture's right, y towards the
picture's top, z up from the floor. Camera frame: x right, y down, z along the optical axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from companion.devices.simtray.scene import CameraPose

FloatArray = npt.NDArray[np.float32]
F64Array = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PinholeCamera:
    """Intrinsics (focal length and principal point, pixels; radial lens distortion `k1`,
    negative for the barrel distortion of webcam lenses) and pose (rotation world->camera as
    rows, centre in world mm) of a camera of `width` x `height` pixels."""

    width: int
    height: int
    focal_px: float
    cx: float
    cy: float
    rotation: F64Array
    centre: F64Array
    k1: float = 0.0

    def project(self, points: npt.ArrayLike) -> tuple[F64Array, F64Array]:
        """Pixel coordinates (N x 2) and camera depth in mm (N) of world points (N x 3)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        cam = (p - self.centre) @ self.rotation.T
        depth = cam[:, 2]
        safe = np.where(np.abs(depth) < 1e-9, 1e-9, depth)
        xn = cam[:, 0] / safe
        yn = cam[:, 1] / safe
        bend = 1.0 + self.k1 * (xn * xn + yn * yn)
        uv = np.stack(
            [self.focal_px * xn * bend + self.cx, self.focal_px * yn * bend + self.cy], axis=1
        )
        return uv, depth

    def rays(self) -> FloatArray:
        """World direction of every pixel centre's ray (H x W x 3), scaled to unit camera
        depth, so a hit at parameter t lies t mm in front of the camera along its axis."""
        us = (np.arange(self.width, dtype=np.float64) - self.cx) / self.focal_px
        vs = (np.arange(self.height, dtype=np.float64) - self.cy) / self.focal_px
        u, v = np.meshgrid(us, vs)
        # Undo the lens distortion: fixed-point iteration converges fast for |k1| < 0.2.
        xn, yn = u.copy(), v.copy()
        for _ in range(6):
            bend = 1.0 + self.k1 * (xn * xn + yn * yn)
            xn, yn = u / bend, v / bend
        cam = np.stack([xn, yn, np.ones_like(u)], axis=-1)
        return (cam @ self.rotation).astype(np.float32)


def camera_for(
    pose: CameraPose, image_size: tuple[int, int], must_see: npt.ArrayLike, margin: float = 0.04
) -> PinholeCamera:
    """The camera of `pose` for a picture of `image_size` (width, height) pixels; its field of
    view is widened when needed so every world point in `must_see` (N x 3 mm) lies at least
    `margin` (fraction of the picture) inside the frame, unless the pose's lens is fixed."""
    width, height = image_size
    alpha = math.radians(pose.tilt_deg)
    phi = math.radians(pose.tilt_azimuth_deg)
    target = np.array([pose.target_x_mm, pose.target_y_mm, 0.0])
    distance = pose.height_mm / math.cos(alpha)
    up_axis = np.array(
        [math.sin(alpha) * math.cos(phi), math.sin(alpha) * math.sin(phi), math.cos(alpha)]
    )
    centre = target + distance * up_axis
    z_axis = -up_axis
    yaw = math.radians(pose.yaw_deg)
    right = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    x_axis = right - np.dot(right, z_axis) * z_axis
    x_axis /= np.linalg.norm(x_axis)
    y_axis = np.cross(z_axis, x_axis)
    rotation = np.stack([x_axis, y_axis, z_axis])
    focal = (width / 2.0) / math.tan(math.radians(pose.hfov_deg) / 2.0)
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    cam = (np.asarray(must_see, dtype=np.float64).reshape(-1, 3) - centre) @ rotation.T
    # Largest normalised offset from the centre, per axis: the focal length must keep it in.
    need_x = float(np.max(np.abs(cam[:, 0] / cam[:, 2])))
    need_y = float(np.max(np.abs(cam[:, 1] / cam[:, 2])))
    limit_x = (width / 2.0) * (1.0 - 2.0 * margin)
    limit_y = (height / 2.0) * (1.0 - 2.0 * margin)
    if not pose.lens_fixed:
        focal = min(focal, limit_x / max(need_x, 1e-6), limit_y / max(need_y, 1e-6))
    return PinholeCamera(width, height, focal, cx, cy, rotation, centre, pose.distortion_k1)
