"""One cube colour's model, learned from the cubes in that colour's calibration picture.

A colour is learned from the inner pixels of its picture's cube-sized regions (`cores`: a
cube's edges mix with the tray), as robust Lab statistics with a floor under the covariance,
with the cube area the picture shows and how many cubes it held (`colour_model`). The check for
cubes of another colour in a picture looks at the same inner pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.core.cubes import Colour
from companion.vision.cube_regions import CubeRegions, cube_area
from companion.vision.errors import CalibrationError
from companion.vision.images import Mask
from companion.vision.profile import ColourModel
from companion.vision.segment import Comparison

# Covariance floor added to every colour model (L, a, b variances): JPEG and noise differ
# between shots, and a model learned from few pixels must not be over-sure.
COVARIANCE_FLOOR = (6.0, 2.0, 2.0)
# A colour whose cube pixels are this often clipped in its picture is known only roughly.
CLIPPED_SHARE = 0.5


def cores(found: CubeRegions, typical: float, side: float) -> tuple[Mask, list[float]]:
    """Inner pixels of the cube-sized regions (edges mix with the tray) and their areas."""
    keep = np.zeros_like(found.mask)
    areas: list[float] = []
    for index, area in enumerate(found.areas, start=1):
        if area < 0.4 * typical:
            continue
        areas.append(area)
        keep |= found.regions == index
    distance = cv2.distanceTransform(keep.astype(np.uint8), cv2.DIST_L2, 3)
    core: Mask = (distance > max(1.5, side * 0.15)) & found.cube
    return core, areas


def colour_model(
    colour: Colour, found: CubeRegions, comparison: Comparison, typical: float, side: float
) -> ColourModel:
    """Robust Lab statistics and the cube area of one colour's picture."""
    core, areas = cores(found, typical, side)
    lab = comparison.lab
    if not areas or core.sum() < 10:
        raise CalibrationError(
            f"no cubes found in the {colour.value} picture; put at least one {colour.value} "
            "cube in the tray and take it again (if they were there, they look like the tray "
            "itself: a lamp from one side makes their edges and shadows show)"
        )
    pixels = lab[core].astype(np.float64)
    centre = np.median(pixels, axis=0)
    spread = np.median(np.abs(pixels - centre), axis=0) * 1.4826 + 1.0
    inliers = pixels[np.all(np.abs(pixels - centre) <= 3.5 * spread, axis=1)]
    if len(inliers) < 10:
        inliers = pixels
    mean = inliers.mean(axis=0)
    covariance = np.cov(inliers.T) + np.diag(COVARIANCE_FLOOR)
    # White cubes under a bright lamp clip: a darker exposure later shows a hue clipping hid.
    saturated = comparison.saturated
    clipped = saturated is not None and float(saturated[core].mean()) > CLIPPED_SHARE
    own_area = cube_area(areas)
    # One picture's cubes may all touch; trust its own area only when it agrees with the rest.
    if not 0.6 * typical <= own_area <= 1.6 * typical:
        own_area = typical
    cubes_seen = int(max(1, round(sum(areas) / own_area)))
    m = (float(mean[0]), float(mean[1]), float(mean[2]))
    c = covariance
    return ColourModel(
        mean=m,
        covariance=(
            (float(c[0, 0]), float(c[0, 1]), float(c[0, 2])),
            (float(c[1, 0]), float(c[1, 1]), float(c[1, 2])),
            (float(c[2, 0]), float(c[2, 1]), float(c[2, 2])),
        ),
        cube_area=own_area,
        cubes_seen=cubes_seen,
        clipped=clipped,
    )


__all__ = ["CLIPPED_SHARE", "COVARIANCE_FLOOR", "colour_model", "cores"]
