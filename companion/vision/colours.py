"""Telling cube colours apart: the Mahalanobis distance of Lab pixels to each colour model."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import Colour

# The pairs of cube colours that look most alike under some light.
HARD_PAIRS = frozenset(
    frozenset(pair)
    for pair in (
        (Colour.BLACK, Colour.BROWN),
        (Colour.WHITE, Colour.YELLOW),
        (Colour.RED, Colour.BROWN),
    )
)
# Squared distances are divided by this where a colour is only roughly known (nearly three
# times the sigma: a clipped red channel turns a bright yellow green-yellow, a clipped white
# hides its tint).
LOOSE_SLACK = 8.0
# A pixel up to this much darker (L) than a clipped model is still judged loosely: the light
# falls off across a tray, and a cube in a dimmer spot comes out below the clip.
DIMMER_BY = 8.0
# A channel this close to the picture's limit (0..1 levels) is taken as clipped.
AT_LIMIT = 0.03
# A cube may lie in brighter light than calibration saw its colour in, up to this factor in
# encoded levels (about twice the light): a lamp close to the tray lights its near end more.
BRIGHTER_AT_MOST = 1.4
# A cube's side face turned from the lamp and lit by what the floor's print throws back shows
# its paint in less light of another tint, which may pass for another colour (a yellow face
# over purple print reads brown). Such a colour is darker by FACE_DARKER (L) or more, no
# more colourful (chroma), and its hue less than FACE_HUE degrees off: a tint turns a hue,
# it cannot reverse it. (Path-traced A, B and C: the brown faces of yellow and green cubes
# counted as cubes were 12-31 darker, hue 34-101 degrees off.)
FACE_DARKER = 8.0
FACE_HUE = 120.0


def distances2(
    pixels: NDArray[np.float32],
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    clipped: NDArray[np.bool_] | None = None,
    saturated: NDArray[np.bool_] | None = None,
    ceiling: tuple[float, float, float] | None = None,
) -> NDArray[np.float32]:
    """Squared Mahalanobis distance of N Lab pixels to each of K models: N x K.

    Judged with LOOSE_SLACK: pixels at the camera's limit (`saturated`, per pixel), and pixels
    about as light as a model learned from clipped pixels or lighter (`clipped`, per model):
    the clip hid how light that colour is and its tint. A clearly darker pixel gets no slack
    there, so a clipped yellow does not take in the brown beside it. Saturated pixels are
    compared with each model as it looks at their light under this picture's `ceiling` when
    given (see `seen_at_limit`).
    """
    delta = pixels[:, None, :] - means[None, :, :]
    if saturated is not None and ceiling is not None and saturated.any():
        delta[saturated] = pixels[saturated][:, None, :] - seen_at_limit(
            pixels[saturated], means, ceiling
        )
    result: NDArray[np.float32] = np.einsum("nki,kij,nkj->nk", delta, inverses, delta)
    loose = np.zeros(result.shape, np.bool_)
    if saturated is not None:
        loose |= saturated[:, None]
    if clipped is not None:
        loose |= clipped[None, :] & (delta[:, :, 0] >= -DIMMER_BY)
    result[loose] /= np.float32(LOOSE_SLACK)
    return result


def shade_gaps(colours: NDArray[np.floating], lit: NDArray[np.floating]) -> NDArray[np.float64]:
    """How far (in a and b) each Lab colour (last axis) lies from the Lab colour `lit` (one,
    or one per colour) as less light would show it at that colour's lightness. Less light
    scales L + 16, a and b of one surface by the same factor (Lab's cube root), so the shade
    of `lit` lies at its a and b times that factor; another surface lies off it."""
    seen = np.asarray(colours, np.float64)
    lit_at = np.asarray(lit, np.float64)
    factor = (seen[..., 0] + 16.0) / (lit_at[..., 0] + 16.0)
    gaps: NDArray[np.float64] = np.hypot(
        seen[..., 1] - lit_at[..., 1] * factor, seen[..., 2] - lit_at[..., 2] * factor
    )
    return gaps


# The deepest shade a colour is judged in (`in_shade_distances2`), as a share of its L + 16:
# about what the room's light alone leaves a cube in the wall's or a neighbour's shade.
# (Path-traced A and B, the off-colour step: 0.5, 0.6 and 0.75 read the same pictures right.)
DEEPEST_SHADE = 0.6


def in_shade_distances2(
    colours: NDArray[np.float32],
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    deepest: float,
    paths: NDArray[np.float32] | None = None,
) -> NDArray[np.float32]:
    """Squared Mahalanobis distance of a Lab colour (3) or of N (N x 3) to each of K models as
    shade shows that model at the colour's lightness (K, or N x K); infinite for a model no
    lighter than the colour, or one that takes deeper shade than the factor `deepest` (of
    L + 16). In shade a model's a and b lie on its path (`paths`, K x S x 3: its colour in
    ever deeper shade as the set-up's shadow tints it, `shadow.ShadowLine.darkened`) where
    given, else at a and b scaled by the shade's factor as `shade_gaps` has it; their spread
    scales by that factor either way."""
    seen = np.asarray(colours, np.float64).reshape(-1, 3)
    lightness = seen[:, 0]
    factor = (lightness[:, None] + 16.0) / (means[None, :, 0].astype(np.float64) + 16.0)
    usable = (factor < 1.0) & (factor >= deepest)
    safe = np.where(usable, factor, 1.0)
    if paths is None:
        shaded = means[None, :, 1:].astype(np.float64) * safe[:, :, None]
    else:
        shaded, reached = _at_lightness(paths, lightness)
        usable &= reached
    # L is matched, so only a and b differ. Scaling a and b by the factor scales their
    # spread alike: the inverse covariance's a and b block grows by 1 / factor squared.
    delta = seen[:, None, 1:] - shaded
    d2 = np.einsum("nki,kij,nkj->nk", delta, inverses[:, 1:, 1:].astype(np.float64), delta)
    d2 /= safe**2
    result: NDArray[np.float32] = np.where(usable, d2, np.inf).astype(np.float32)
    return result[0] if np.ndim(colours) == 1 else result


def _at_lightness(
    paths: NDArray[np.float32], lightness: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Each path's (K x S x 3, lightest first) a and b where it reaches each of N
    `lightness`es (N x K x 2), and whether it does (N x K)."""
    shaded = np.zeros((len(lightness), len(paths), 2), np.float64)
    reached = np.zeros((len(lightness), len(paths)), np.bool_)
    for k, path in enumerate(paths):
        # Deeper shade only darkens: the path's L falls, so reversed it rises, as interp asks.
        rising = path[::-1].astype(np.float64)
        reached[:, k] = (rising[0, 0] <= lightness) & (lightness <= rising[-1, 0])
        for c in (1, 2):
            shaded[:, k, c - 1] = np.interp(lightness, rising[:, 0], rising[:, c])
    return shaded, reached


def mix_gaps(
    colours: NDArray[np.floating], first: NDArray[np.floating], second: NDArray[np.floating]
) -> NDArray[np.float64]:
    """How far (CIE76) each Lab colour (last axis) lies from every mix of `first` and `second`
    (one colour, or one per colour): a pixel across the edge between two surfaces blends
    them, and its colour lies on the line between theirs (roughly: Lab is not linear light).
    """
    seen = np.asarray(colours, np.float64)
    start = np.asarray(first, np.float64)
    step = np.asarray(second, np.float64) - start
    along = np.clip(
        np.sum((seen - start) * step, axis=-1) / np.maximum(np.sum(step * step, axis=-1), 1e-9),
        0.0,
        1.0,
    )
    gaps: NDArray[np.float64] = np.linalg.norm(seen - (start + along[..., None] * step), axis=-1)
    return gaps


def shade_gap(colour: NDArray[np.floating], lit: NDArray[np.floating]) -> float:
    """`shade_gaps` of one Lab `colour`."""
    return float(shade_gaps(colour, lit))


def hue_apart(colour: NDArray[np.floating], other: NDArray[np.floating]) -> float:
    """How far apart two Lab colours' hue angles lie, in degrees (0-180)."""
    angle = math.degrees(
        math.atan2(float(colour[2]), float(colour[1]))
        - math.atan2(float(other[2]), float(other[1]))
    )
    return abs((angle + 180.0) % 360.0 - 180.0)


def chroma(colour: NDArray[np.floating]) -> float:
    """A Lab colour's chroma: how far it lies from grey."""
    return math.hypot(float(colour[1]), float(colour[2]))


def in_tinted_shade(seen: NDArray[np.floating], paint: NDArray[np.floating]) -> bool:
    """Whether Lab colour `seen` could be the Lab colour `paint` in less light of another
    tint (see FACE_DARKER)."""
    darker = float(paint[0] - seen[0]) >= FACE_DARKER
    return darker and chroma(seen) <= chroma(paint) and hue_apart(seen, paint) < FACE_HUE


def seen_at_limit(
    pixels: NDArray[np.float32], means: NDArray[np.float32], ceiling: tuple[float, float, float]
) -> NDArray[np.float32]:
    """Each of K Lab colours as N pixels at the camera's limit would show it: N x K x 3.

    A warm light or a longer exposure clips a white cube's red channel, which turns it
    greenish-yellow; a cube nearer the lamp than calibration's is also brighter. So each
    colour is brightened as far as the pixel's unclipped channels tell (at least not at all,
    at most BRIGHTER_AT_MOST), then held at the picture's `ceiling` (B, G, R, 0..1 levels).
    """
    top = np.array(ceiling, np.float32)
    seen = cv2.cvtColor(pixels[:, None, :].astype(np.float32), cv2.COLOR_Lab2BGR)[:, 0, :]
    model = cv2.cvtColor(means[None, :, :].astype(np.float32), cv2.COLOR_Lab2BGR)[0]
    # Channels below the limit tell the light: the least-squares factor over them.
    free = (seen < top[None, :] - AT_LIMIT).astype(np.float32)
    overlap = (seen * free) @ model.T
    power = free @ (model * model).T
    factor = np.full(overlap.shape, BRIGHTER_AT_MOST, np.float32)
    np.divide(overlap, power, out=factor, where=power > 1e-6)
    factor = np.clip(factor, 1.0, BRIGHTER_AT_MOST)
    brighter = factor[:, :, None] * model[None, :, :]
    # A colour that even so stays below the limit in every channel cannot be what a pixel
    # at the limit shows: brightening it would only make a brown pass for a yellow.
    reaches = np.any(brighter >= top[None, None, :], axis=2)
    factor[~reaches] = 1.0
    shown = np.minimum(factor[:, :, None] * model[None, :, :], top[None, None, :])
    lab = cv2.cvtColor(np.ascontiguousarray(shown, np.float32), cv2.COLOR_BGR2Lab)
    result: NDArray[np.float32] = np.asarray(lab, np.float32)
    return result


__all__ = [
    "DEEPEST_SHADE",
    "HARD_PAIRS",
    "LOOSE_SLACK",
    "chroma",
    "distances2",
    "hue_apart",
    "in_shade_distances2",
    "in_tinted_shade",
    "mix_gaps",
    "seen_at_limit",
    "shade_gap",
    "shade_gaps",
]
