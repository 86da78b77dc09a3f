"""Connected patches of one colour's evidence: how many cubes' worth each holds, and its shape.

A lying cube's evidence adds up to its colour's area (the profile's `areas`, as calibration
measured it), and its patch is a compact square. So a patch weighs the cubes found in it: a
compact patch no peak took, well clear of the found cubes, is a cube too faint for a peak
(`left_over_cubes`), and two peaks in a patch worth little more than one cube, square round
them, are one cube found twice (`without_split_cubes`). The doubts weigh the patches too
(`doubts`), and calibration measures the areas on them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.arrays import box_around, channel_medians, regions
from companion.vision.found import Found, colour_of
from companion.vision.images import Mask
from companion.vision.overhead import Overhead
from companion.vision.profile import Prepared
from companion.vision.segment import Comparison

# A patch of one colour's evidence holding this many cubes' worth (of the colour's `areas`),
# compact (its box at most this many cube sides long, and at most this many times as long
# as wide), inside the floor and this many cube sides clear of every found cube, is a cube
# too faint to fill found.MIN_FILL of its box (low contrast, print like it, blur). On rendered
# trays (13 seeds, all but the set-up drops) patches with no cube of their colour found and
# half a cube's worth numbered 385; 348 lay within 1.2 sides of a found cube (its fringes and
# faces, 13 on a missed cube); of the 37 clear of them, 18 lay on a missed cube, and the rest
# were mostly strips along the rim and print edges. With all the tests (13 seeds, every
# picture) 16 cubes were taken, 15 on a true cube of their colour; pictures read right
# 3234 -> 3241 (none lost), confident readings unchanged; on 4 other seeds 7 of 7, 1 picture up.
LEFT_OVER_CUBE = 0.5
LEFT_OVER_SIZE = 1.5
LEFT_OVER_ASPECT = 1.6
LEFT_OVER_CLEAR = 1.2
# One cube alone: longest over shortest side of its enclosing box, and the box's share it
# fills. Two cubes side by side give about 2 and 1; a cube and a half at most 1.5.
SINGLE_ASPECT = 1.4
SINGLE_FILL = 0.7
SINGLE_MIN_PIXELS = 12
# Two peaks of one colour closer than SPLIT_APART cube sides, whose part of their patch of
# evidence falls SPLIT_SHORT cubes' worth short of two, are one cube found twice (see
# `without_split_cubes`; in a heap, each pixel is the part of the peak it lies nearest to).
# On path-traced A and B (pictures other than set-up drops) the pairs under a side apart in
# patches short by 0.63 and more (8 patches) were each one cube found twice or a phantom;
# two real cubes that close were short by 0.37 at most. Round the pair, such a patch is one
# square: at most SPLIT_ASPECT times as long as wide (two yellow cubes face to face on
# yellow print, in A 011, were 1.4 cubes' worth but 1.7 to 1.9). Judging only the pair's
# part, not the whole patch, changed no reading of A or B as the colours are learned now;
# with colour models learned without their cubes' shadows (measured, not landed), the view
# scale moved and B 104 drop 4 read a yellow's top and side face as two, which it mends.
# A camera leaning far sees a face up to its slant (`overhead.slants`) times a side wide, so
# along the way to the point below it one cube found twice may be 1 + slant long, and its
# two peaks half a slant further apart. (Shared renderer, seeds 0-3: a tilted set-up whose
# white tops and lit faces, slant 0.67-0.73, made oblongs of 1.58 read right in 2 more
# pictures, and a blue whose peaks lay 1.04 apart at slant 0.82 in 1 more; an oblong of two
# blacks across that way, 1.51, was lost when the way was not asked. Path-traced A, B and
# C: a blue's top and face on blue print, B 100 drop 6, read right in one more pass.)
SPLIT_APART = 1.0
SPLIT_SHORT = 0.5
SPLIT_ASPECT = 1.5
# Evidence at least this strong makes up a colour's patches.
PATCH_EVIDENCE = 0.3


def looks_single(points: NDArray[np.float32]) -> bool:
    """Whether a region's pixels (N x 2, x y) form one compact square-ish shape, not two
    cubes side by side: its enclosing box is nearly square and mostly filled."""
    aspect, fill = _box_shape(points)
    return aspect <= SINGLE_ASPECT and fill >= SINGLE_FILL


def _box_shape(points: NDArray[np.float32]) -> tuple[float, float]:
    """Of the smallest (turned) box around pixels (N x 2, x y): its longest over its shortest
    side, and the share of it they fill (sides of at least a pixel)."""
    (_, _), (w, h), _ = cv2.minAreaRect(points)
    w, h = max(w, 1.0), max(h, 1.0)
    return max(w, h) / min(w, h), len(points) / (w * h)


def one_cube_looks_like_two(plane: NDArray[np.float32], cubes: list[Found], index: int) -> bool:
    """Whether a patch of this colour holding one found cube is not one compact square (two
    cubes touching, one leaning on the other, give one peak and an oblong patch)."""
    present = (plane >= np.float32(PATCH_EVIDENCE)).astype(np.uint8)
    for cube in cubes:
        if cube.colour != index:
            continue
        filled = present.copy()
        mask = np.zeros((present.shape[0] + 2, present.shape[1] + 2), np.uint8)
        x, y = int(cube.x), int(cube.y)
        if not present[y, x]:
            continue
        _, _, _, (left, top, width, height) = cv2.floodFill(filled, mask, (x, y), 2)
        others = sum(1 for o in cubes if o.colour == index and filled[int(o.y), int(o.x)] == 2)
        # (Looked for within the box the fill reports: numpy's nonzero is slow.)
        ys, xs = np.nonzero(filled[top : top + height, left : left + width] == 2)
        ys, xs = ys + top, xs + left
        if others > 1 or len(xs) < SINGLE_MIN_PIXELS:
            continue
        if not looks_single(np.stack([xs, ys], axis=1).astype(np.float32)):
            return True
    return False


class Patches(NamedTuple):
    """The connected patches of one colour's evidence, within the box around them."""

    box: tuple[slice, slice]
    labels: NDArray[np.int32]
    """Per pixel of the box, its patch (1..n; 0: no evidence)."""
    stats: NDArray[np.int32]
    """Per label: left, top, width, height, area (see `arrays.regions`)."""
    centres: NDArray[np.float64]
    """Per label, the centre of its pixels (x, y)."""
    mass: NDArray[np.float64]
    """Per label, the summed evidence."""

    def moved(self, top: int, left: int) -> Patches:
        """The same patches in the view cropped at row `top`, column `left`."""
        rows, columns = self.box
        return self._replace(
            box=(
                slice(rows.start - top, rows.stop - top),
                slice(columns.start - left, columns.stop - left),
            )
        )


def evidence_patches(plane: NDArray[np.float32]) -> Patches | None:
    """The patches of one colour's evidence plane at least PATCH_EVIDENCE strong; None when
    there is none."""
    present = plane >= np.float32(PATCH_EVIDENCE)
    # Only the box around the evidence: most of the view is empty floor.
    box = box_around(present)
    if box is None:
        return None
    n, labels, stats, centres = regions(present[box].astype(np.uint8), 8)
    mass = np.bincount(labels.ravel(), weights=plane[box].ravel(), minlength=n)
    return Patches(box, labels, stats, centres, mass.astype(np.float64))


def left_over_cubes(
    patches: list[Patches | None],
    cubes: list[Found],
    comparison: Comparison,
    prepared: Prepared,
    allowed: Mask,
) -> list[Found]:
    """The cubes in compact patches of evidence no peak took, clear of every found cube.

    A cube whose colour differs little from the floor under it, or one blurred, spreads thin
    evidence: its patch holds half a cube's worth or more, yet no box is filled to
    found.MIN_FILL, so `peaks.select` finds no peak. Near found cubes such patches are their
    fringes and side faces (`doubts._left_over` doubts those); well clear of them, a patch
    about a cube's size and shape whose pixels fit its colour best is that cube. Its fill is
    0: counted, never sure.
    """
    side = prepared.reference.cube_side
    taken: list[Found] = []
    for index, own in enumerate(patches):
        if own is None:
            continue
        top, left = own.box[0].start, own.box[1].start
        worth = own.mass / float(prepared.areas[index])
        # (Label 0 is the floor between the patches.)
        for label in np.flatnonzero(worth[1:] >= LEFT_OVER_CUBE) + 1:
            x, y = float(own.centres[label, 0]) + left, float(own.centres[label, 1]) + top
            # (Most such patches hold a found cube: the cheap test goes first.)
            if not allowed[int(y), int(x)] or any(
                math.hypot(c.x - x, c.y - y) < LEFT_OVER_CLEAR * side for c in cubes + taken
            ):
                continue
            px, py, width, height, _ = (int(v) for v in own.stats[label])
            long, short = max(width, height), min(width, height)
            if long > LEFT_OVER_SIZE * side or long > LEFT_OVER_ASPECT * short:
                continue
            ys, xs = np.nonzero(own.labels[py : py + height, px : px + width] == label)
            box = (slice(top + py, top + py + height), slice(left + px, left + px + width))
            median = channel_medians(comparison.lab[box][ys, xs]).astype(np.float32)
            best, margin, second, _ = colour_of(median, comparison, box, prepared)
            if best == index:
                taken.append(Found(index, x, y, 0.0, margin, second))
    return taken


def patch_masses(
    patches: Patches | None, cubes: list[Found]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """For each connected patch of one colour's evidence (see `evidence_patches`): its summed
    evidence, and how many of `cubes` (found cubes of that colour) lie in it."""
    if patches is None:
        return np.zeros(0, np.float64), np.zeros(0, np.int64)
    found = np.bincount(patch_labels(patches, cubes), minlength=len(patches.mass))
    return patches.mass[1:], found[1:].astype(np.int64)


def patch_labels(patches: Patches, cubes: list[Found]) -> NDArray[np.int64]:
    """The patch each of `cubes` lies in (see `Patches.labels`; 0: in none)."""
    top, left = patches.box[0].start, patches.box[1].start
    height, width = patches.labels.shape
    labels = np.zeros(len(cubes), np.int64)
    for number, cube in enumerate(cubes):
        y, x = int(cube.y) - top, int(cube.x) - left
        if 0 <= y < height and 0 <= x < width:
            labels[number] = patches.labels[y, x]
    return labels


def without_split_cubes(
    cubes: list[Found],
    patches: list[Patches | None],
    maps: NDArray[np.float32],
    areas: NDArray[np.float64],
    cube_side: float,
    overhead: Overhead | None,
) -> tuple[list[Found], list[Found]]:
    """The cubes less those found twice, and the ones taken out (`maps`: the evidence the
    `patches` were found in; `overhead`: where the camera is, None: not known).

    One cube can give two peaks of its colour about a side apart, as far apart as two
    touching cubes: its top and a side face the camera sees, one lit and one in shade. Two
    touching cubes fill their patch of evidence with two cubes' worth (each its colour's
    `areas` entry) in an oblong; one found twice, little more than one in a square. So where
    the closest pair of a patch lies nearer than SPLIT_APART, the part of the patch nearer
    to one of the two than to any other cube found there falls SPLIT_SHORT cubes' worth
    short of two, and it is square round them, they are one cube: the weaker peak goes.
    When one lies from the other towards the point below the camera (`overhead`), the face
    it sees there makes the cube longer: the pair may lie further apart, and the patch be
    as long as the top and that face (`_face_slant`).
    """
    taken: list[Found] = []
    for index, own in enumerate(patches):
        mine = [cube for cube in cubes if cube.colour == index]
        if own is None or len(mine) < 2:
            continue
        labels = patch_labels(own, mine)
        for label in set(labels[labels > 0].tolist()):
            group = [cube for cube, at in zip(mine, labels, strict=True) if at == label]
            # (Most patches hold one cube, or as much evidence as cubes: no shape needed.)
            if len(group) < 2 or (
                len(group) == 2 and 2 - own.mass[label] / areas[index] < SPLIT_SHORT
            ):
                continue
            rows, columns = np.nonzero(own.labels == label)
            points = np.stack([columns + own.box[1].start, rows + own.box[0].start], axis=1)
            values = maps[index][own.box][rows, columns]
            while len(group) >= 2:
                first, second = min(
                    ((a, b) for n, a in enumerate(group) for b in group[n + 1 :]),
                    key=lambda pair: math.hypot(pair[0].x - pair[1].x, pair[0].y - pair[1].y),
                )
                # A side face the camera sees adds its width (the slant's share of a side)
                # to the cube: its middle lies half that further out, and the cube is that
                # much longer.
                middle = ((first.x + second.x) / 2, (first.y + second.y) / 2)
                slant = _face_slant(first, second, middle, overhead)
                apart = math.hypot(first.x - second.x, first.y - second.y)
                if apart >= (SPLIT_APART + 0.5 * slant) * cube_side:
                    break
                # In a heap the patch holds other cubes too: only the pair's part of it
                # counts (a yellow's top and side face, in a heap of four, were short by 0.33
                # over the whole patch).
                worth = _nearer_to(points, values, group, (first, second)) / float(areas[index])
                if 2 - worth < SPLIT_SHORT:
                    break
                # Two cubes side by side make an oblong; one found twice, a square, or the
                # oblong of its top and the side face the camera sees beside it.
                around = points[np.hypot(*(points - middle).T) <= cube_side]
                if _box_shape(around.astype(np.float32))[0] > max(SPLIT_ASPECT, 1.0 + slant):
                    break
                weaker = min(first, second, key=lambda c: (c.fill, c.margin))
                group.remove(weaker)
                taken.append(weaker)
    return [cube for cube in cubes if all(cube is not t for t in taken)], taken


def _face_slant(
    first: Found, second: Found, middle: tuple[float, float], overhead: Overhead | None
) -> float:
    """How steeply the camera looks at two peaks of one colour, at their `middle` (see
    `overhead.slants`), when one lies from the other towards the point below it, as a side
    face the camera sees lies from its top (`Overhead.facing`); 0 otherwise, or when
    `overhead` is None."""
    if overhead is None:
        return 0.0
    one, other = (first.x, first.y), (second.x, second.y)
    # (Either may be the top: the face lies from it towards that point.)
    if not (overhead.facing(one, other) or overhead.facing(other, one)):
        return 0.0
    return float(overhead.slants(np.array([middle], np.float64))[0])


def _nearer_to(
    points: NDArray[np.int64],
    values: NDArray[np.float32],
    group: list[Found],
    pair: tuple[Found, Found],
) -> float:
    """The summed `values` of the pixels `points` (N x 2, x y) nearer to one of `pair` than
    to any other cube of `group`."""
    centres = np.array([(cube.x, cube.y) for cube in group], np.float64)
    nearest = np.argmin(((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2), axis=1)
    ours = [number for number, cube in enumerate(group) if cube is pair[0] or cube is pair[1]]
    return float(values[np.isin(nearest, ours)].sum())


__all__ = [
    "Patches",
    "evidence_patches",
    "left_over_cubes",
    "looks_single",
    "one_cube_looks_like_two",
    "patch_labels",
    "patch_masses",
    "without_split_cubes",
]
