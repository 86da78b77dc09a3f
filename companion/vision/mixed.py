"""Telling when one calibration picture holds cubes of two colours.

Each colour picture must hold only cubes of its colour. A stray cube of another colour blends
into that colour's model: the model grows broad enough to take in both, and counting later
calls one colour the other. The blend shows in the cube pixels themselves: they fall into
two groups of clearly different colour, each group lying together as whole cubes. Shading
splits pixels too (a cube's lit top from its darker sides), but every cube then holds both
groups, and the hue stays; a stray is a cube of one group alone.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.colours import shade_gap
from companion.vision.images import FloatImage, Mask

# Lightness counts this much against a and b when grouping: shade moves it most.
LIGHTNESS_WEIGHT = 0.5
# Rounds of two-means grouping (it settles in a few on two clear colours).
ROUNDS = 12
# A group makes a whole cube where it holds this share of a cube's square in one region
# (a cube's inner pixels, its edges left out, cover about half of it) and at least WHOLE of
# that region's cube pixels.
CUBE_PATCH = 0.3
WHOLE = 0.8
# Two kinds of cube differ in lightness by more than this (L units: a white cube in the
# wall's shade against one in the lamp stays below it) or in hue by at least HUE_GAP (a and b
# units off the other's hue).
GREY_GAP = 40.0
HUE_GAP = 12.0
# A group of cubes this much lighter (L) than the rest is looked at for another kind too.
LIGHTER = 8.0
# A group's pixels in one region make a cube only when they are this wide (cube sides) in
# every direction (the short side of their smallest rectangle): a cube's inner pixels measure
# 0.57-0.73, the strip of a rim a brighter exposure changed 0.09 (the shared renderer,
# set-up 226464714: a black picture refused for holding yellow cubes).
CUBE_WIDTH = 0.3
# A cube differs from the empty tray beneath it by at least this (CIE76; a black cube on a
# warm print measured 20, print patches changed by the exposure 7-9).
FLOOR_GAP = 15.0
# A lone patch in a colour picture that is the empty tray beneath it in shade, darker by at
# least FLOOR_GAP and its colour within SHADOW_GAP (a and b, `shade_gap`) of the tray's at
# that lightness, is a cube's shadow, not a cube: on a tray with dark walls (the shared
# renderer, set-up 505326357) a blue cube's shadow in the corner showed Lab (20, -3, 2)
# over floor (37, -6, 6), 2.2 off, and passed for a black cube; the blue cubes there were
# 24 and 32 off.
SHADOW_GAP = 6.0

Groups = tuple[NDArray[np.float64], NDArray[np.float64]]


def two_colours(
    lab: FloatImage, floor: FloatImage, cube_pixels: Mask, regions: NDArray[np.int32], side: float
) -> Groups | None:
    """The median Lab colours of two groups of cube pixels that each make whole cubes of
    their own, or None when the cube pixels (`cube_pixels`, view-sized) are one colour.

    `regions` labels the picture's changed regions (0 none): a group makes a cube where it
    holds nearly all of one region's cube pixels, a cube's worth of them, as wide as a cube
    (CUBE_WIDTH), and unlike the empty tray (`floor`, Lab) beneath them: a print's patch
    under another exposure is no cube. Whether the two colours are two kinds of cube is
    `two_kinds`.
    """
    pixels = lab[cube_pixels].astype(np.float64)
    smallest = CUBE_PATCH * side * side
    if len(pixels) < 2 * smallest:
        return None
    labels = _two_means(pixels * np.array([LIGHTNESS_WEIGHT, 1.0, 1.0]))
    owners = regions[cube_pixels]
    beneath = floor[cube_pixels].astype(np.float64)
    # (x, y) of each pixel, in the order `lab[cube_pixels]` takes them.
    places = np.argwhere(cube_pixels)[:, ::-1].astype(np.float32)
    size = np.bincount(owners)
    for group in (0, 1):
        held = np.bincount(owners[labels == group], minlength=len(size))
        whole = np.flatnonzero((held >= smallest) & (held >= WHOLE * size))
        if not any(
            _cube_wide(places[chosen], side) and unlike_floor(pixels, beneath, chosen)
            for chosen in ((labels == group) & (owners == region) for region in whole if region > 0)
        ):
            return None
    return np.median(pixels[labels == 0], axis=0), np.median(pixels[labels == 1], axis=0)


def _cube_wide(places: NDArray[np.float32], side: float) -> bool:
    """Whether pixels at `places` (x, y) are as wide as a cube's inner pixels every way."""
    (_, _), (width, height), _ = cv2.minAreaRect(places)
    return min(width, height) >= CUBE_WIDTH * side


def two_kinds(first: NDArray[np.float64], second: NDArray[np.float64]) -> bool:
    """Whether two Lab colours are two kinds of cube rather than one under other light.

    Shade and light scale a colour's chroma (a, b) along its hue and move its lightness:
    two kinds differ in hue (the paler one lies off the ray the more colourful one's hue
    draws from grey) or in lightness by more than shading does.
    """
    if abs(first[0] - second[0]) > GREY_GAP:
        return True
    vivid, pale = (
        (first, second) if np.hypot(*first[1:]) >= np.hypot(*second[1:]) else (second, first)
    )
    chroma = float(np.hypot(*vivid[1:]))
    if chroma < 1e-6:
        return False
    ray = vivid[1:] / chroma
    along = float(pale[1:] @ ray)
    off = (
        float(np.hypot(*pale[1:])) if along < 0 else abs(float(pale[1] * ray[1] - pale[2] * ray[0]))
    )
    return off >= HUE_GAP


def lighter_kind(stray: NDArray[np.float64], rest: NDArray[np.float64]) -> bool:
    """Whether a group of cubes clearly lighter than the rest (Lab colours) is another kind
    that `two_kinds` cannot tell by hue: black or brown beside yellow, black beside green.

    The rest is not the stray's colour in shade (`shade_gap`).
    """
    if stray[0] - rest[0] < LIGHTER:
        return False
    return shade_gap(rest, stray) >= HUE_GAP


def floor_change(
    pixels: NDArray[np.floating[Any]],
    beneath: NDArray[np.floating[Any]],
    chosen: NDArray[np.bool_],
) -> float:
    """How far (CIE76) the `chosen` pixels' median colour lies from the empty tray's there."""
    change = np.median(pixels[chosen], axis=0) - np.median(beneath[chosen], axis=0)
    return float(np.linalg.norm(change))


def unlike_floor(
    pixels: NDArray[np.floating[Any]],
    beneath: NDArray[np.floating[Any]],
    chosen: NDArray[np.bool_],
) -> bool:
    """Whether the `chosen` pixels' colour differs from the empty tray's there like a cube's."""
    return floor_change(pixels, beneath, chosen) >= FLOOR_GAP


def floor_in_shade(
    pixels: NDArray[np.floating[Any]],
    beneath: NDArray[np.floating[Any]],
    chosen: NDArray[np.bool_],
) -> bool:
    """Whether the `chosen` pixels are the empty tray beneath them in shade (SHADOW_GAP)."""
    seen = np.median(pixels[chosen], axis=0)
    floor = np.median(beneath[chosen], axis=0)
    return floor[0] - seen[0] >= FLOOR_GAP and shade_gap(seen, floor) < SHADOW_GAP


def _two_means(features: NDArray[np.float64]) -> NDArray[np.int64]:
    """Each row's group (0 or 1) by two-means, started from the two rows furthest apart
    along the spread's main axis (the same answer on every run)."""
    centred = features - features.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    along = centred @ axes[0]
    centres = features[[int(np.argmin(along)), int(np.argmax(along))]]
    labels = np.zeros(len(features), np.int64)
    for step in range(ROUNDS):
        distance = ((features[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = np.argmin(distance, axis=1)
        if step > 0 and (new == labels).all():
            break
        labels = new
        for group in (0, 1):
            if (labels == group).any():
                centres[group] = features[labels == group].mean(axis=0)
    return labels


__all__ = ["floor_in_shade", "lighter_kind", "two_colours", "two_kinds"]
