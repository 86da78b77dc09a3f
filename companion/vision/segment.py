"""Separating cubes from the empty tray: light normalisation, colour difference, shadows.

All steps work on the top-down tray view. The reference is the empty tray under the same
camera and light; what differs from it is a cube, a hand, or a shadow (which only darkens
the tray without changing its hue, so it is set apart here and left to the colour models).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import BGRImage, FloatImage, Mask

# Below this colour difference (CIE76 units) a pixel is never foreground, whatever the noise.
MIN_DIFFERENCE = 7.0
# Foreground needs this many times the picture's typical background difference.
NOISE_FACTOR = 4.0
# A shadow keeps at least this share of the tray's brightness (one light plus room light).
SHADOW_MIN_RATIO = 0.12
SHADOW_MAX_RATIO = 0.97
# Largest chromaticity change (r, g, b shares) still called a shadow; room light is often bluer.
SHADOW_MAX_CHROMA = 0.045
SHADOW_DARK_CHROMA = 0.06
# Tone correction: the exponents believed, and the share of pixel pairs fitted (the rest
# are cubes, hands and shadows).
TONE_SLOPES = (0.75, 1.35)
TONE_KEEP = 0.6
# The shoulder correction: bands of levels, and the residual (0..1) that still counts as tray.
SHOULDER_BANDS = 12
SHOULDER_TRAY = 0.08
# Pictures may be at most this many times noisier than the calibration pictures.
NOISY_LIMIT = 2.5
# A channel this bright (0..1) may be clipped by the camera.
CLIPPED = 0.9


def to_float(image: BGRImage) -> FloatImage:
    """BGR uint8 to BGR float32 in 0..1."""
    result: FloatImage = image.astype(np.float32) * np.float32(1.0 / 255.0)
    return result


def smooth8(image: BGRImage, cube_side: float) -> BGRImage:
    """`smooth` on an 8-bit picture (faster; the rounding is far below any threshold here)."""
    sigma = max(0.6, cube_side / 14.0)
    blurred: BGRImage = np.asarray(cv2.GaussianBlur(image, (0, 0), sigma), np.uint8)
    return blurred


def lab8(image: BGRImage) -> FloatImage:
    """CIE Lab as floats (L 0..100, a and b -128..127) of an 8-bit BGR picture.

    OpenCV's 8-bit conversion is several times faster than the float one; its steps of
    0.4 L and 1 a/b unit are well below the colour differences that matter here.
    """
    lab = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2Lab), np.float32)
    lab -= np.array([0.0, 128.0, 128.0], np.float32)
    lab[:, :, 0] *= np.float32(100.0 / 255.0)
    return lab


def chromaticity(image: FloatImage) -> tuple[FloatImage, FloatImage]:
    """(brightness as the sum of channels, per-channel share of it); dark pixels kept stable."""
    blue, green, red = cv2.split(image)
    total: FloatImage = np.asarray(blue + green + red, np.float32)
    share: FloatImage = (image + np.float32(0.02)) / (total[:, :, None] + np.float32(0.06))
    return total, share


def channel_norm(difference: FloatImage) -> FloatImage:
    """Euclidean length of a 3-channel difference, per pixel (faster than numpy's norm)."""
    first, second, third = cv2.split(difference)
    squared = cv2.add(
        cv2.add(cv2.multiply(first, first), cv2.multiply(second, second)),
        cv2.multiply(third, third),
    )
    return np.asarray(cv2.sqrt(squared), np.float32)


def channel_max(values: FloatImage) -> FloatImage:
    """Largest of the three channels, per pixel."""
    first, second, third = cv2.split(values)
    return np.asarray(cv2.max(cv2.max(first, second), third), np.float32)


@dataclass(frozen=True)
class Reference:
    """The empty tray, prepared once per profile for fast comparison (view pixels)."""

    bgr: FloatImage
    lab: FloatImage
    brightness: FloatImage
    share: FloatImage
    inside: Mask
    cube_side: float
    peak: FloatImage
    """The brightest channel per pixel, 0..1."""
    lab_low: FloatImage
    """Per-channel Lab minimum over each pixel's 3x3 neighbourhood."""
    lab_high: FloatImage
    """Per-channel Lab maximum over each pixel's 3x3 neighbourhood."""
    noise: float | None = None
    """Typical colour difference between two shots of this set-up (None while calibrating)."""
    unstable: Mask | None = None
    """Pixels that change between shots with nothing there (highlights on the rim, clipping)."""

    @classmethod
    def prepare(
        cls,
        empty_view: BGRImage,
        inside: Mask,
        cube_side: float,
        noise: float | None = None,
        unstable: Mask | None = None,
    ) -> Reference:
        """Blur and convert the empty-tray view once."""
        blurred = smooth8(empty_view, cube_side)
        bgr = to_float(blurred)
        brightness, share = chromaticity(bgr)
        peak = channel_max(bgr)
        lab = lab8(blurred)
        kernel = np.ones((3, 3), np.uint8)
        low = np.asarray(cv2.erode(lab, kernel), np.float32)
        high = np.asarray(cv2.dilate(lab, kernel), np.float32)
        return cls(bgr, lab, brightness, share, inside, cube_side, peak, low, high, noise, unstable)


@dataclass(frozen=True)
class Comparison:
    """A view compared with the empty tray (all arrays in view pixels)."""

    bgr: FloatImage
    """The view after light normalisation, blurred, BGR 0..1."""
    lab: FloatImage
    difference: FloatImage
    """Colour difference to the empty tray, CIE76 units."""
    changed: Mask
    """Clearly different from the empty tray (cube, hand, or shadow)."""
    shadow_like: Mask
    """Changed, but only darker with the same hue: a shadow unless a cube colour explains it."""
    ratio: FloatImage
    """Brightness over the empty tray's brightness, per pixel."""
    gains: tuple[float, float, float]
    """Per-channel factor the picture's light was divided by to match the empty tray."""
    matching: float
    """Share of the tray that still looks like the empty tray (0..1)."""
    structure: float
    """Correlation of the picture's brightness pattern with the empty tray's (-1..1)."""
    threshold: float
    """The colour difference that counted as changed in this picture."""


def light_gains(bgr: FloatImage, reference: Reference) -> NDArray[np.float64]:
    """Per-channel brightness factors of this picture against the empty tray.

    Medians over the tray: right as long as cubes cover less than half of it, and refined
    on the pixels that then match.
    """
    inside = reference.inside
    sample = (slice(None, None, 5), slice(None, None, 5))
    pic = bgr[sample][inside[sample]].astype(np.float64) + 0.01
    ref = reference.bgr[sample][inside[sample]].astype(np.float64) + 0.01
    ratio = pic / ref
    gains = np.median(ratio, axis=0)
    close = np.all(np.abs(ratio / gains - 1.0) < 0.15, axis=1)
    if close.sum() > 0.2 * len(ratio):
        gains = np.median(ratio[close], axis=0)
    result: NDArray[np.float64] = np.clip(gains, 1e-3, None)
    return result


def tone_tables(
    raw: FloatImage, gains: NDArray[np.float64], reference: Reference
) -> NDArray[np.uint8]:
    """Per-channel tables (256 x 1 x 3) mapping this picture's levels onto the empty tray's.

    Cameras compress highlights and shadows, so an exposure change is not one factor for all
    levels: each channel gets a power curve (factor and exponent) fitted to the pixel pairs
    by trimmed least squares, so cubes (a minority of the pixels) cannot bend it.
    """
    sample = (slice(None, None, 6), slice(None, None, 6))
    pic = np.clip(raw[sample].reshape(-1, 3) / gains.astype(np.float32), 0.0, 1.0)
    ref = reference.bgr[sample].reshape(-1, 3)
    tables = np.empty((256, 1, 3), np.uint8)
    for channel in range(3):
        # The table is indexed by the raw level; the curve is fitted on gain-scaled levels.
        levels = np.minimum(np.arange(256, dtype=np.float64) / 255.0 / gains[channel], 1.0)
        x, y = pic[:, channel].astype(np.float64), ref[:, channel].astype(np.float64)
        usable = (x > 0.04) & (y > 0.04) & (x < 0.99) & (y < 0.99)
        lx, ly = np.log(x[usable]), np.log(y[usable])
        keep = np.ones(len(lx), np.bool_)
        slope, offset = 1.0, 0.0
        for _ in range(3):
            if keep.sum() < 50 or np.ptp(lx[keep]) < 0.3:
                break
            slope, offset = np.polyfit(lx[keep], ly[keep], 1)
            slope = float(np.clip(slope, TONE_SLOPES[0], TONE_SLOPES[1]))
            offset = float(np.median(ly[keep] - slope * lx[keep]))
            residual = np.abs(ly - (offset + slope * lx))
            keep = residual <= np.quantile(residual, TONE_KEEP)
        curve = np.exp(offset) * np.power(np.maximum(levels, 1e-6), slope)
        shoulder = _shoulder(x, y, np.exp(offset) * np.power(np.maximum(x, 1e-6), slope))
        curve += np.interp(levels, np.arange(256) / 255.0, shoulder)
        tables[:, 0, channel] = np.round(np.clip(curve, 0.0, 1.0) * 255.0).astype(np.uint8)
    return tables


def _shoulder(
    x: NDArray[np.float64], y: NDArray[np.float64], fitted: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per-level correction (256 values) of a fitted tone curve where the camera's highlight
    and shadow shoulders bend away from it; only bands where most pixel pairs are the tray
    (small residual) are corrected, so bands full of cubes are left alone."""
    residual = y - fitted
    band = np.minimum((x * SHOULDER_BANDS).astype(np.int32), SHOULDER_BANDS - 1)
    offsets = np.zeros(SHOULDER_BANDS, np.float64)
    # Highlights only: the shadows' toe is where dark cubes live, and they must stay dark.
    for b in range(SHOULDER_BANDS // 2, SHOULDER_BANDS):
        inside = residual[band == b]
        if len(inside) < 20:
            continue
        tray = np.abs(inside) < SHOULDER_TRAY
        if tray.mean() >= 0.5:
            offsets[b] = float(np.median(inside[tray]))
    smoothed = np.convolve(np.pad(offsets, 1, mode="edge"), [0.25, 0.5, 0.25], mode="valid")
    smoothed[: SHOULDER_BANDS // 2] = 0.0
    centres = (np.arange(SHOULDER_BANDS) + 0.5) / SHOULDER_BANDS
    result: NDArray[np.float64] = np.interp(np.arange(256) / 255.0, centres, smoothed)
    return result


def compare(view: BGRImage, reference: Reference) -> Comparison:
    """Normalise the view's light to the empty tray's, and mark what changed and what is shadow."""
    blurred = smooth8(view, reference.cube_side)
    raw = to_float(blurred)
    gains = light_gains(raw, reference)
    # Gains and tone curve in one 8-bit table per channel, applied to the picture at once.
    tables = tone_tables(raw, gains, reference)
    mapped = np.asarray(cv2.LUT(blurred, tables), np.uint8)
    bgr = to_float(mapped)
    lab = lab8(mapped)
    # Compared with the range of the tray's colour one pixel around: sharp print edges and
    # the rim shift by a fraction of a pixel between shots (demosaicing, JPEG), cubes do not.
    below = np.maximum(reference.lab_low - lab, np.float32(0.0))
    above = np.maximum(lab - reference.lab_high, np.float32(0.0))
    difference = channel_norm(below + above)
    inside = reference.inside
    # Every other pixel of every other row is plenty for a median and four times faster.
    typical = float(np.median(difference[::2, ::2][inside[::2, ::2]]))
    if reference.noise is not None:
        # A picture far from the set-up (noise, another scene) must not raise the bar so high
        # that nothing looks changed.
        typical = min(typical, NOISY_LIMIT * max(reference.noise, 1.0))
    threshold = max(MIN_DIFFERENCE, NOISE_FACTOR * typical)
    brightness, share = chromaticity(bgr)
    ratio = brightness / (reference.brightness + np.float32(1e-3))
    hue_shift = channel_max(np.abs(share - reference.share))
    # Where the tray is nearly white the camera clips, and a small exposure change between
    # shots cannot be undone by the gains: bright and same hue there means unchanged.
    clipped = (
        (reference.peak >= CLIPPED)
        & (channel_max(raw) >= CLIPPED)
        & (hue_shift <= SHADOW_MAX_CHROMA)
    )
    changed = (difference > threshold) & ~clipped
    if reference.unstable is not None:
        changed &= ~reference.unstable
    shadow_like = (
        changed
        & (ratio >= SHADOW_MIN_RATIO)
        & (ratio <= SHADOW_MAX_RATIO)
        # Deep shadows are lit by the room (often another colour than the lamp) and their
        # few photons make the hue noisy: the darker, the more hue shift is allowed.
        & (hue_shift <= SHADOW_MAX_CHROMA + SHADOW_DARK_CHROMA * (1.0 - ratio))
    )
    matching = float(np.mean(difference[::2, ::2][inside[::2, ::2]] <= threshold))
    g = (float(gains[0]), float(gains[1]), float(gains[2]))
    structure = correlation(raw, reference.bgr)
    return Comparison(
        bgr, lab, difference, changed, shadow_like, ratio, g, matching, structure, threshold
    )


def correlation(first: FloatImage, second: FloatImage) -> float:
    """Pearson correlation of two pictures' brightness (every other pixel), -1..1.

    Light and exposure changes keep it high; another scene or a covered lens does not.
    """
    a = first[::2, ::2].sum(axis=2).ravel()
    b = second[::2, ::2].sum(axis=2).ravel()
    a = a - a.mean()
    b = b - b.mean()
    scale = float(np.sqrt(np.dot(a, a) * np.dot(b, b)))
    return float(np.dot(a, b)) / scale if scale > 0 else 0.0
