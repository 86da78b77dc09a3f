"""Per-colour evidence maps of the tray view: how much each pixel looks like each cube colour.

Works on a `Comparison` (the view with its light matched to the empty tray). A pixel gives
evidence only where it differs from the empty tray, and then to the colour models that explain
it, shared out by how well each does. A shadow only darkens the tray without changing its hue:
such pixels give evidence only when a colour model explains them well, and then only a part,
so a shadow beside a cube cannot make a cube of its own while a dark cube on a floor of its
own hue (which looks shadow-like) still can.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.arrays import box_around, pixels_at
from companion.vision.colours import DEEPEST_SHADE, distances2, in_shade_distances2
from companion.vision.images import FloatImage, Mask
from companion.vision.segment import Comparison

# Squared Mahalanobis distance (3-D) beyond which a colour model does not explain a pixel.
EXPLAINED_D2 = 28.0
# A shadow-like pixel counts only when its best colour fits this well, and only this much:
# a dark cube on a floor of its own hue looks like shade all over and must still fill its
# box, while shade beside a cube (cast zones aside) gives no peak of its own at this weight.
# (Over 7 rendered seeds, 0.6 -> 0.8 with peaks.MIN_SPACING 0.66 -> 0.72: exact 1655 ->
# 1672 on the same profiles, 1664 calibrated again; a sweep of either alone: 1666 and 1660.)
SHADOW_FIT_D2 = 28.0
SHADOW_WEIGHT = 0.8
# How far along its offset a shadow may reach, in offsets (a taller cube, a lower lamp).
CAST_STEPS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
# Lightness steps (L units) that make a colour lighter than the floor, and a pixel darker.
LIGHTER_BY = 8.0
DARKER_BY = 4.0
# Only objects at least this wide (cube sides) throw a shadow that hides evidence.
CASTER_WIDTH = 0.45
# A patch of shadow-like pixels this wide (cube sides) whose hue no shadow gives the tray
# (`Comparison.off_hue`) is a dark cube's top, and a cast zone over it keeps its evidence.
# Narrower lines are the blurred edges and side faces of cubes, which make no cube of their
# own. (Path-traced sets A and B, as found plus three nudged passes: 8 fewer wrong readings.
# Sparing every such pixel made 6 more wrong in B, black and blue read beside cubes; a disc
# 0.45 sides wide: 3 fewer.)
OFF_HUE_WIDTH = 0.3
# Evidence is shared between models within this squared distance of the best one.
SHARE_D2 = 6.0


@dataclass(frozen=True)
class Evidence:
    """What each view pixel says about cube colours (all arrays view-sized)."""

    maps: NDArray[np.float32]
    """K x H x W: each pixel's evidence (0..1) for each of the K colours."""
    foreground: Mask
    """Changed pixels that are not plain shadow: cube, hand or other object."""
    unexplained: Mask
    """Foreground pixels no colour model explains."""
    shadow: Mask
    """Changed pixels that are only a darker version of the tray (shade), whether or not a
    dark colour also explains them."""


def evidence(
    comparison: Comparison,
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    floor: FloatImage | None = None,
    shadow_offset: tuple[float, float] | None = None,
    cube_side: float = 0.0,
    clipped: NDArray[np.bool_] | None = None,
    room_lit: tuple[Mask, NDArray[np.float32] | None] | None = None,
) -> Evidence:
    """Per-colour evidence maps of a compared view, given the K colour models (Lab), the
    empty tray's lightness (L, 0..100) per view pixel when known, where a cube's shadow
    lies from it (view pixels) and a cube's side when calibration learned those, which
    models were learned from clipped pixels, and (`room_lit`) the floor only the room lights
    (`shadow.ShadowLine.shaded_floor`) with the models' paths into the set-up's shade
    (`profile.Prepared.shade_paths`, None for grey shade)."""
    k = len(means)
    height, width = comparison.changed.shape
    maps = np.zeros((k, height, width), np.float32)
    foreground = np.zeros((height, width), np.bool_)
    unexplained = np.zeros_like(foreground)
    shadow = np.zeros_like(foreground)
    # Only the box around the changed pixels is looked at: most of a tray is empty floor. Its
    # margin holds unchanged pixels for the openings below to see beyond the box's edge.
    solid = max(3, round(CASTER_WIDTH * cube_side) | 1)
    box = box_around(comparison.changed, solid + 2)
    if box is None:
        return Evidence(maps, foreground, unexplained, shadow)
    kernel = np.ones((3, 3), np.uint8)
    opened = cv2.morphologyEx(comparison.changed[box].astype(np.uint8), cv2.MORPH_OPEN, kernel)
    mask: Mask = opened.astype(np.bool_)
    pixels = pixels_at(comparison.lab[box], mask)
    if len(pixels) == 0:
        return Evidence(maps, foreground, unexplained, shadow)
    saturated = comparison.saturated[box][mask] if comparison.saturated is not None else None
    d2 = distances2(pixels, means, inverses, clipped, saturated, comparison.ceiling)
    shadow_like = comparison.shadow_like[box][mask]
    # Pixels judged as the room's light shows the colours (see below).
    room_fit = np.zeros(len(d2), np.bool_)
    if room_lit is not None:
        # Where only the room lights the floor (a wall hides the lamp) it lights a cube no
        # better: a pixel may be a colour as the set-up's shade shows it
        # (`colours.in_shade_distances2`), when no colour explains it as it is or that fits
        # it better by SHARE_D2 (a white cube there shows L 49, a blue's lightness). Not
        # plain shade, which is the floor's. Judged so, a pixel is that colour's shade: its
        # lying darker than the floor tells nothing. (Path-traced A, B, C as found and 3
        # nudged passes: against taking none, 16 passes more right and 2 fewer; against
        # taking only the pixels no colour explains, 10 more and 2 fewer, both in A 013's
        # bands. Taking every pixel that fits better at all: 12 more, 9 fewer.)
        shaded, paths = room_lit
        dim = np.flatnonzero(shaded[box][mask] & ~shadow_like)
        if len(dim):
            direct = d2[dim]
            room = in_shade_distances2(pixels[dim], means, inverses, DEEPEST_SHADE, paths)
            nearest = direct.min(axis=1)
            take = (nearest > EXPLAINED_D2) | (room.min(axis=1) < nearest - SHARE_D2)
            d2[dim[take]] = np.minimum(direct[take], room[take])
            room_fit[dim[take]] = True
    best = d2.min(axis=1)
    # Weights fall off with the distance to the best model, so a pixel half-way between two
    # colours feeds both, and the colour margin is judged later over a whole cube.
    relative = np.exp(-0.5 * np.minimum(d2 - best[:, None], 40.0))
    relative[d2 - best[:, None] > SHARE_D2] = 0.0
    relative /= relative.sum(axis=1, keepdims=True)
    explained = best <= EXPLAINED_D2
    weight = explained.astype(np.float32)
    weight[shadow_like] = np.where(best[shadow_like] <= SHADOW_FIT_D2, SHADOW_WEIGHT, 0.0)
    if shadow_offset is not None and any(shadow_offset):
        # Shade just where a cube beside it throws its shadow is that shadow, whatever
        # colour it resembles.
        # Only solid objects cast: the thin lit edge of a black cube (itself shadow-like)
        # would otherwise throw "its" shadow onto the cube and hide it.
        casters = cv2.morphologyEx(
            (mask & ~comparison.shadow_like[box]).astype(np.uint8),
            cv2.MORPH_OPEN,
            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (solid, solid)),
        ).astype(np.bool_)
        # (Shadows cast beyond the box fall on no changed pixel.)
        cast = cast_shadows(casters, shadow_offset)
        if comparison.off_hue is not None:
            cast &= ~_solid(comparison.off_hue[box], OFF_HUE_WIDTH * cube_side)
        weight[shadow_like & cast[mask]] = 0.0
    values = (relative * weight[:, None]).astype(np.float32)
    if floor is not None:
        # A cube colour lighter than the floor does not look darker than the floor: such a
        # pixel is a shadow (often lit by a bluer sky, so its hue moved off the floor's).
        # Likewise a colour darker than the floor does not look lighter than the floor: such
        # a pixel is the floor under changed light. (A darker cube's lit top may come close
        # to the floor's lightness, so only lighter counts.)
        beneath = floor[box][mask]
        lighter = means[None, :, 0] > beneath[:, None] + LIGHTER_BY
        darker = means[None, :, 0] < beneath[:, None] - LIGHTER_BY
        below = pixels[:, 0] < beneath - DARKER_BY
        above = pixels[:, 0] > beneath + DARKER_BY
        wrong_side = (lighter & below[:, None]) | (darker & above[:, None])
        values[wrong_side & ~room_fit[:, None]] = 0.0
    ys, xs = np.nonzero(mask)
    maps[:, ys + box[0].start, xs + box[1].start] = values.T
    foreground[box][mask] = ~shadow_like | (best <= SHADOW_FIT_D2)
    # A pixel only colours darker than the floor explain, yet lighter than the floor, is
    # explained by none (a white cube in the wall's shade on a dark floor).
    unexplained[box][mask] = (~explained | ~values.any(axis=1)) & ~shadow_like
    shadow[box][mask] = shadow_like
    return Evidence(maps, foreground, unexplained, shadow)


def _solid(pixels: Mask, width: float) -> Mask:
    """The `pixels` a square `width` pixels wide (at least 3) fits in."""
    side = max(3, round(width))
    kernel = np.ones((side, side), np.uint8)
    result: Mask = cv2.morphologyEx(pixels.astype(np.uint8), cv2.MORPH_OPEN, kernel).astype(
        np.bool_
    )
    return result


def cast_shadows(casters: Mask, offset: tuple[float, float]) -> Mask:
    """Where the casters' shadows may fall: the casters slid along the shadow's offset (view
    pixels) from a quarter of it to one and a half times it, grown by a pixel or two."""
    source = casters.astype(np.uint8)
    height, width = source.shape
    cast = np.zeros_like(source)
    for step in CAST_STEPS:
        shift = np.array([[1.0, 0.0, offset[0] * step], [0.0, 1.0, offset[1] * step]], np.float32)
        moved = cv2.warpAffine(source, shift, (width, height), flags=cv2.INTER_NEAREST)
        cast |= np.asarray(moved, np.uint8)
    grown: Mask = cv2.dilate(cast, np.ones((3, 3), np.uint8)).astype(np.bool_)
    return grown


def box_mean(image: FloatImage, side: int) -> FloatImage:
    """Mean over a side x side box centred on each pixel (borders reflected)."""
    result: FloatImage = np.asarray(cv2.blur(image, (side, side)), np.float32)
    return result


__all__ = ["Evidence", "box_mean", "cast_shadows", "evidence"]
