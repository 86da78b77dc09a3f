"""Turning labelled foreground into cubes: one connected region per colour, counted by area.

Cubes of one colour that touch form one region; its area divided by one cube's visible area
(learned at calibration) gives how many it holds, and how far that ratio is from a whole
number says how sure the count is.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.colours import UNKNOWN, Labels, distances2
from companion.vision.images import FloatImage, Mask

# A region smaller than this share of a cube is an edge fringe or noise, not a cube.
FRAGMENT = 0.3
# A clearly coloured piece this big (share of a cube) may be a cube hidden under others.
HIDDEN = 0.05
# A region whose hue is this close (a, b distance) to the empty tray's beneath it, and whose
# outline is not one cube, is the tray under changed light (exposure, a highlight).
TRAY_LIKE_HUE = 8.0
# A compact region up to this many cubes' area can still be one cube (leaning, seen closer).
SINGLE_MAX_CUBES = 1.8
SINGLE_MIN_CUBES = 0.6
SINGLE_SURE = 1.2
# What "compact" means: longest over shortest side of the enclosing box, and the box's share
# the region fills. Two cubes side by side give about 2 and 1; a cube and a half at most 1.5.
SINGLE_ASPECT = 1.4
SINGLE_FILL = 0.7


@dataclass(frozen=True)
class Blob:
    """One connected region of one label in the view."""

    label: int
    """Colour index in action-circuit order, or UNKNOWN."""
    area: float
    """Pixels."""
    cubes: float
    """Area divided by one cube's visible area of this colour."""
    count: int
    """Whole cubes counted in it (0 for UNKNOWN regions)."""
    centres: NDArray[np.float64]
    """count x 2 view pixels, one per cube (the centroid for UNKNOWN)."""
    size_confidence: float
    """How close `cubes` is to a whole number, 0..1."""
    colour_confidence: float
    """How much better the best colour model explains the region than the next, 0..1."""
    runner_up: int
    """The next most likely colour index."""
    shadow_share: float
    """Share of the region's pixels that are only a darker version of the tray."""
    touches_margin: bool
    """Whether it reaches outside the tray outline (a hand or arm reaching in)."""
    tray_like: bool = False
    """Irregular and of the tray's own hue beneath it: light that changed, not a cube."""
    single: bool = False
    """Its outline is one compact square: a lone cube."""


def looks_single(points: NDArray[np.float32]) -> bool:
    """Whether a region's outline is one compact square-ish shape (not two cubes side by side)."""
    (_, _), (w, h), _ = cv2.minAreaRect(points)
    w, h = max(w, 1.0), max(h, 1.0)
    aspect = max(w, h) / min(w, h)
    fill = len(points) / (w * h)
    return aspect <= SINGLE_ASPECT and fill >= SINGLE_FILL


def size_confidence(cubes: float, count: int) -> float:
    """1 when the area is a whole number of cubes, 0 half-way between two counts."""
    tolerance = 0.5 + 0.04 * max(0, count - 1)
    return float(np.clip(1.0 - abs(cubes - count) / tolerance, 0.0, 1.0))


def colour_confidence(d2: NDArray[np.float32]) -> tuple[float, int, int]:
    """(confidence 0..1, best index, runner-up index) from squared distances to each model."""
    order = np.argsort(d2)
    best, second = int(order[0]), int(order[1])
    margin = float(np.sqrt(d2[second]) - np.sqrt(d2[best]))
    # A margin of 2.5 sigma or more between the best and next colour is treated as certain.
    return float(np.clip(margin / 2.5, 0.0, 1.0)), best, second


def _centres(points: NDArray[np.float32], count: int) -> NDArray[np.float64]:
    """`count` cluster centres of the region's pixel coordinates (x, y), deterministic."""
    if count <= 1 or len(points) < count:
        mean: NDArray[np.float64] = points.mean(axis=0, keepdims=True).astype(np.float64)
        return mean
    cv2.setRNGSeed(count)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    labels = np.zeros((len(points), 1), np.int32)
    _, _, found = cv2.kmeans(points, count, labels, criteria, 2, cv2.KMEANS_PP_CENTERS)
    centres = np.asarray(found, np.float64)
    ordered: NDArray[np.float64] = centres[np.lexsort((centres[:, 0], centres[:, 1]))]
    return ordered


def find_blobs(
    labels: Labels,
    lab: FloatImage,
    shadow_like: Mask,
    inside: Mask,
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    areas: NDArray[np.float64],
    tray_lab: FloatImage | None = None,
) -> list[Blob]:
    """Every region of each label, counted; fragments below FRAGMENT of a cube are dropped."""
    blobs: list[Blob] = []
    typical = float(np.median(areas))
    for label in [int(v) for v in np.unique(labels) if v >= 0]:
        full = labels == label
        # Labelling only the box around this label's pixels is many times faster.
        rows, cols = np.flatnonzero(full.any(axis=1)), np.flatnonzero(full.any(axis=0))
        top, left = int(rows[0]), int(cols[0])
        region_mask = full[top : rows[-1] + 1, left : cols[-1] + 1].astype(np.uint8)
        n, regions, stats, _ = cv2.connectedComponentsWithStats(region_mask, connectivity=4)
        cube_area = float(areas[label]) if label != UNKNOWN else typical
        for index in range(1, n):
            area = float(stats[index, cv2.CC_STAT_AREA])
            if area < HIDDEN * cube_area:
                continue
            x, y, w, h = (int(v) for v in stats[index, :4])
            window = regions[y : y + h, x : x + w] == index
            x, y = x + left, y + top
            ys, xs = np.nonzero(window)
            points = np.stack([xs + x, ys + y], axis=1).astype(np.float32)
            shadow = float(shadow_like[y : y + h, x : x + w][window].mean())
            margin = bool((~inside[y : y + h, x : x + w] & window).any())
            mean_lab = np.median(lab[y : y + h, x : x + w][window], axis=0).astype(np.float32)
            d2 = distances2(mean_lab[None, :], means, inverses)[0]
            tray_like = False
            if tray_lab is not None:
                beneath = np.median(tray_lab[y : y + h, x : x + w][window], axis=0)
                hue_gap = float(np.hypot(mean_lab[1] - beneath[1], mean_lab[2] - beneath[2]))
                tray_like = hue_gap < TRAY_LIKE_HUE and not looks_single(points)
            single = looks_single(points)
            c_conf, best, second = colour_confidence(d2)
            runner_up = second if best == label else best
            if label == UNKNOWN:
                blobs.append(
                    Blob(
                        label,
                        area,
                        area / cube_area,
                        0,
                        points.mean(axis=0, keepdims=True).astype(np.float64),
                        0.0,
                        0.0,
                        best,
                        shadow,
                        margin,
                    )
                )
                continue
            if best != label:
                c_conf = 0.0
            cubes = area / cube_area
            if cubes < FRAGMENT:
                # Too small for a cube lying free, but a clear colour: a cube mostly hidden
                # under others. Counted as nothing, and reported as a doubt.
                if c_conf >= 0.5:
                    blobs.append(
                        Blob(
                            label,
                            area,
                            cubes,
                            0,
                            points.mean(axis=0, keepdims=True).astype(np.float64),
                            0.0,
                            c_conf,
                            runner_up,
                            shadow,
                            margin,
                        )
                    )
                continue
            count = max(1, round(cubes))
            confidence = size_confidence(cubes, count)
            if SINGLE_MIN_CUBES <= cubes < SINGLE_MAX_CUBES and single:
                # One square-ish outline: a single cube seen bigger (leaning, near the
                # camera, against the rim), never two side by side.
                # Up to SINGLE_SURE cubes' area that is certain; beyond, a second cube of the
                # same colour may hide in it (one of another colour can take its label).
                count = 1
                confidence = 1.0 if cubes <= SINGLE_SURE else min(confidence, 0.45)
            blobs.append(
                Blob(
                    label,
                    area,
                    cubes,
                    count,
                    _centres(points, count),
                    confidence,
                    c_conf,
                    runner_up,
                    shadow,
                    margin,
                    tray_like,
                    single,
                )
            )
    return blobs
