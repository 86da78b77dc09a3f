"""A closer look, before a reading is given as sure, for a cube lying under another.

A cube resting on another of another colour may show only a sliver of its top beside it. The
top-down view has about ten pixels to a cube's side, so a sliver a third of a side wide is
two or three view pixels, each a blend of the two cubes and the floor, and no colour's
evidence finds it. The picture itself often has three times that: there the sliver is a
strip of clear colour several pixels wide. So, when a reading would be given as sure, the
picture round each found cube is warped again at three times the view's scale, and a
patch of another cube colour there that is

- not where another found cube lies, nor the side face of one of its own colour,
- on floor that does not change between shots and away from the print's edges,
- different from the empty tray, and not that tray nor the cube itself in shade,
- against the found cube, with pixels well off every blend of that cube and the floor,

makes the reading unsure. On rendered trays (13 seeds, 991 readings that would be given as
sure) this caught 4 of the 8 wrong ones (a yellow sliver under red, brown under green, white
under brown, and a red strip a tenth of a side wide under black) and made 3 of the 983 right
ones unsure; on 4 other seeds it caught 3 of 4 wrong and made none of 294 right unsure.
The wrong ones left showed no sliver of clear colour: a black or brown one, which looks like
the floor in shade, or one a pixel wide.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.colours import distances2, mix_gaps, shade_gaps
from companion.vision.images import BGRImage, FloatImage, Mask
from companion.vision.profile import Prepared
from companion.vision.segment import Comparison, channel_norm, lab8
from companion.vision.tray import TrayView

# The closer look's scale over the view's, and how far round a cube's centre it looks (cube
# sides: a sliver lies within a side of the centre of the cube above it).
SCALE = 3
REACH = 1.4
# The blur that takes the picture's pixel noise off (closer-look pixels), far less than the
# view's: the sliver is what the view's blur lost.
BLUR = 1.0
# A pixel of a cube colour fits its model this well (squared Mahalanobis distance) ...
FIT_D2 = 9.0
# ... and differs from the empty tray by more than this (CIE76: above the view's change
# threshold, 4.5 in most pictures, as a sharper look is noisier).
CHANGED = 8.0
# Another found cube covers the disc this many cube sides across its centre (a lying cube's
# corners reach 0.71 side from it).
OTHER_RADIUS = 0.72
# The floor in shade keeps its hue (`colours.shade_gaps`): pixels darker than the empty tray
# by this much (L) and within this gap (a and b) of its shaded colour are shadow. The found
# cube's own side faces are its colour in shade, within the narrower gap; a face the lamp
# lights may be a little lighter than the cube's model.
FLOOR_DARKER = 3.0
FLOOR_SHADE_GAP = 20.0
OWN_DARKER = -3.0
OWN_SHADE_GAP = 10.0
# The empty tray's print edges (L units per view pixel) shift between shots: left out.
PRINT_EDGE = 3.0
# A pixel at the found cube's edge blends the cube with the floor; a sliver's pixels lie
# this far (CIE76) off every such mix. (Peeling a pixel off all round instead lost the strips
# a third of a side wide or less, which are two or three closer-look pixels across. At 15,
# twice as many right readings were made unsure, and no more wrong ones caught.)
OFF_THE_MIX = 20.0
# A sliver has at least this share of a cube's top (closer-look pixels: a cube's top is about
# 1000, so 0.008 is 8 pixels) off the mix (at 0.012 the red strip under black above was
# lost), ...
SLIVER_SHARE = 0.008
# ... reaches within this many cube sides of the found cube's centre (it lies against that
# cube: its edge is half a side out, its corners 0.71; the print farther out cost 3 right
# readings) ...
AGAINST = 0.8
# ... and not within this many of a found cube of the sliver's own colour: that is the
# cube's own side face, which the camera sees beyond its disc when it looks at it askew
# (2 right readings).
OWN_FACE = 0.9


def _in_shade_of(
    lab: NDArray[np.float32], lit: NDArray[np.float32], darker: float, gap: float
) -> Mask:
    """Which Lab colours (last axis) of `lab` are darker than the Lab colour(s) `lit` (one
    per colour, or one for all) by `darker` (L), with a and b within `gap` of that colour's
    in less light."""
    shaded: Mask = (lab[..., 0] < lit[..., 0] - darker) & (shade_gaps(lab, lit) < gap)
    return shaded


def _half_look(prepared: Prepared) -> int:
    """Half the side of the square closer look (its pixels), less its middle pixel."""
    return round(REACH * prepared.reference.cube_side * SCALE)


def _closer_look(
    image: BGRImage,
    view: TrayView,
    comparison: Comparison,
    prepared: Prepared,
    centre: tuple[float, float],
) -> tuple[FloatImage, NDArray[np.float64]]:
    """The picture round a view point at SCALE times the view's scale, its light normalised
    as the view's was, in Lab; and the affine map from view pixels to its pixels."""
    half = _half_look(prepared)
    size = (2 * half + 1, 2 * half + 1)
    to_look = np.array(
        [
            [SCALE, 0.0, half - SCALE * centre[0]],
            [0.0, SCALE, half - SCALE * centre[1]],
            [0.0, 0.0, 1.0],
        ]
    )
    warped = cv2.warpPerspective(
        image,
        to_look @ view.homography,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    smoothed = np.asarray(cv2.GaussianBlur(warped, (0, 0), BLUR), np.uint8)
    if comparison.tables is not None:
        smoothed = np.asarray(cv2.LUT(smoothed, comparison.tables), np.uint8)
    return lab8(smoothed), to_look[:2]


def _view_at(
    array: NDArray[np.float32], to_look: NDArray[np.float64], shape: tuple[int, ...], nearest: bool
) -> NDArray[np.float32]:
    """A view-sized array seen in the closer look."""
    flags = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
    result = cv2.warpAffine(
        array, to_look, (shape[1], shape[0]), flags=flags, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(result, np.float32)


def _discs(
    centres: list[tuple[float, float]],
    to_look: NDArray[np.float64],
    shape: tuple[int, ...],
    radius: float,
) -> Mask:
    """Discs of `radius` (closer-look pixels) round view points, in the closer look."""
    discs = np.zeros(shape[:2], np.uint8)
    for x, y in centres:
        at = to_look @ np.array([x, y, 1.0])
        cv2.circle(discs, (round(at[0]), round(at[1])), round(radius), 1, -1)
    return discs.astype(np.bool_)


def _any_sliver(
    candidates: Mask, off_mix: Mask, against: Mask, own_faces: Mask, top_area: float
) -> bool:
    """Whether a patch of `candidates` (one colour's pixels in a closer look) is a sliver:
    SLIVER_SHARE of a cube's top off the mix, reaching `against` the cube, on no own face."""
    count, labels = cv2.connectedComponents(candidates.astype(np.uint8), connectivity=8)
    # Per patch (label 0 is the rest of the look).
    off = np.bincount(labels[off_mix], minlength=count)
    near = np.bincount(labels[against], minlength=count)
    faces = np.bincount(labels[own_faces], minlength=count)
    slivers = (off >= SLIVER_SHARE * top_area) & (near > 0) & (faces == 0)
    return bool(slivers[1:].any())


def hidden_slivers(
    image: BGRImage,
    view: TrayView,
    comparison: Comparison,
    prepared: Prepared,
    cubes: list[tuple[int, float, float]],
) -> list[int]:
    """The colours (indices) of which a sliver shows beside a found cube in a closer look at
    `image` (the picture `comparison` compared through `view`); `cubes` are the found cubes
    as (colour index, x, y) in view pixels. Empty when none shows."""
    reference = prepared.reference
    side = reference.cube_side * SCALE
    top_area = side * side
    # (Once for all cubes: warpAffine takes no boolean arrays.)
    steady_floor = prepared.steady_floor.astype(np.float32)
    found: set[int] = set()
    # Every closer look has its cube's centre in the middle.
    half = _half_look(prepared)
    rows, columns = np.indices((2 * half + 1, 2 * half + 1))
    against = np.hypot(columns - half, rows - half) <= AGAINST * side
    for index, (colour, x, y) in enumerate(cubes):
        lab, to_look = _closer_look(image, view, comparison, prepared, (x, y))
        shape = lab.shape[:2]
        low = _view_at(reference.lab_low, to_look, shape, nearest=False)
        high = _view_at(reference.lab_high, to_look, shape, nearest=False)
        held = np.minimum(np.maximum(lab, low), high)
        changed = channel_norm(np.asarray(lab - held, np.float32)) > CHANGED
        steady = _view_at(steady_floor, to_look, shape, nearest=True)
        edges = _view_at(prepared.print_edges, to_look, shape, nearest=False)
        looked = changed & (steady > 0.5) & (edges < PRINT_EDGE)
        others = _discs(
            [(ox, oy) for other, (_, ox, oy) in enumerate(cubes) if other != index],
            to_look,
            shape,
            OTHER_RADIUS * side,
        )
        looked &= ~others
        # The colour tests only for the pixels still looked at (most of the look is cube,
        # unchanged floor or other cubes).
        pixels = lab[looked]
        under = 0.5 * (low[looked] + high[looked])
        kept = ~_in_shade_of(pixels, under, FLOOR_DARKER, FLOOR_SHADE_GAP)
        kept &= ~_in_shade_of(pixels, prepared.means[colour], OWN_DARKER, OWN_SHADE_GAP)
        if not kept.any():
            continue
        pixels, under = pixels[kept], under[kept]
        looked[looked] = kept
        d2 = distances2(pixels, prepared.means, prepared.inverses, prepared.clipped)
        best = np.full(shape, -1, np.int64)
        best[looked] = np.where(d2.min(axis=1) <= FIT_D2, d2.argmin(axis=1), -1)
        off_mix = np.zeros(shape, np.bool_)
        off_mix[looked] = mix_gaps(pixels, under, prepared.means[colour]) > OFF_THE_MIX
        for other_colour in np.unique(best[best >= 0]):
            if other_colour == colour or other_colour in found:
                continue
            own_faces = _discs(
                [(ox, oy) for c, ox, oy in cubes if c == other_colour],
                to_look,
                shape,
                OWN_FACE * side,
            )
            if _any_sliver(best == other_colour, off_mix, against, own_faces, top_area):
                found.add(int(other_colour))
    return sorted(found)


__all__ = ["hidden_slivers"]
