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

from companion.vision.arrays import all_channels, box_around, grown, pixels_at, regions
from companion.vision.images import BGRImage, FloatImage, Mask
from companion.vision.shadow import ShadowLine, darkening, linear

# How far (Lab units per channel) a pixel's neighbours may stretch its tolerance.
SHIFT_TOLERANCE = np.float32(6.0)
# Below this colour difference (CIE76 units) a pixel is never foreground, whatever the noise.
MIN_DIFFERENCE = 4.5
# Foreground needs this many times the picture's typical background difference.
NOISE_FACTOR = 4.0
# A shadow keeps at least this share of the tray's brightness (one light plus room light).
SHADOW_MIN_RATIO = 0.12
SHADOW_MAX_RATIO = 0.97
# Largest chromaticity change (r, g, b shares) still called a shadow; room light is often bluer.
SHADOW_MAX_CHROMA = 0.045
SHADOW_DARK_CHROMA = 0.06
# The light's tone curve, and how alike a picture is to the empty tray, are measured on every
# this many pixels of each row and column; the overall gains on every other of those (a few
# thousand tray pixels are plenty for a median).
SAMPLE_STEP = 4
# Level mapping: levels are pooled in bins this wide; a bin needs this many tray pixels, and
# its median may differ from the overall gain by at most this factor, to be believed.
LEVEL_BIN = 4
BINS = 256 // LEVEL_BIN
LEVEL_MIN_PIXELS = 12
# A bin fewer pixels hold than this, whose empty-tray levels spread more than this between
# the quartiles, takes its median over its neighbours' pixels too (`_unsteady`).
LEVEL_POOL_PIXELS = 48
LEVEL_WIDE = 16
LEVEL_TRUST = 1.3
# When fewer than half the tray pixels agree with the median gains (cubes cover most of the
# floor), ratios are pooled in bins this wide (log), and the commonest bin's gains replace the
# medians if this many times more pixels agree with them. (A drop of 38 cubes spread over the
# floor, path-traced A 000: 6 of 238 pixels agreed with the medians, 73 with the commonest.)
COMMON_BIN = 0.1
AGREEMENT_MARGIN = 1.5
# A pixel off the overall gain by this share is a change; patches of changes up to this many
# cubes' area are left out of the level mapping.
SMALL_CHANGE = 0.1
SMALL_CHANGE_CUBES = 4.0
# A pixel pair within this share of the overall gain in every channel is taken as tray.
LEVEL_NEAR = 0.25
# A pixel changed when it differs this many times more than it did between calibration shots.
LOCAL_NOISE_FACTOR = 3.0
# Pictures may be at most this many times noisier than the calibration pictures.
NOISY_LIMIT = 2.5
# A channel this bright (0..1) is at the camera's limit: the colour's hue and lightness are
# then off by however far the light went beyond it.
SATURATED = 0.96
# A channel this bright (0..1) may be clipped by the camera.
CLIPPED = 0.9
# CLIPPED in linear light; and how far (share of the tray's light) a channel below it may
# move where the tray clips before the pixel counts as changed (a white top on peach print
# lifts blue by 0.8). Rendered seeds 0-3 read 909 of 1200 tray pictures right at 0.25, 908
# at 0.15 and 907 at 0.4; the one set-up it matters to most swings either way (1062610985:
# 79 cubes missed and 39 invented at 0.25, 145 and 3 at 0.15 or 0.4).
LINEAR_CLIPPED = ((CLIPPED + 0.055) / 1.055) ** 2.4
CLIPPED_STEP = 0.25


def to_float(image: BGRImage) -> FloatImage:
    """BGR uint8 to BGR float32 in 0..1."""
    result: FloatImage = image.astype(np.float32) * np.float32(1.0 / 255.0)
    return result


def blur_sigma(cube_side: float) -> float:
    """Sigma (pixels) of the blur a view gets before it is compared: a fourteenth of a cube's
    side, at least 0.6."""
    return max(0.6, cube_side / 14.0)


def smooth8(image: BGRImage, cube_side: float) -> BGRImage:
    """The picture blurred by `blur_sigma`, 8-bit in and out (faster than in floats; the
    rounding is far below any threshold here)."""
    blurred: BGRImage = np.asarray(cv2.GaussianBlur(image, (0, 0), blur_sigma(cube_side)), np.uint8)
    return blurred


def lab8(image: BGRImage) -> FloatImage:
    """CIE Lab as floats (L 0..100, a and b -128..127) of an 8-bit BGR picture.

    OpenCV's 8-bit conversion is several times faster than the float one; its steps of
    0.4 L and 1 a/b unit are well below the colour differences that matter here.
    """
    levels = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2Lab), np.float32)
    # Scale and offset in one pass over the picture.
    lab: FloatImage = np.asarray(cv2.transform(levels, _LAB_SCALE), np.float32)
    return lab


_LAB_SCALE = np.array(
    [[100.0 / 255.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, -128.0], [0.0, 0.0, 1.0, -128.0]], np.float32
)


def chromaticity(image: FloatImage) -> tuple[FloatImage, FloatImage]:
    """(brightness as the sum of channels, per-channel share of it); dark pixels kept stable."""
    blue, green, red = cv2.split(image)
    total: FloatImage = np.asarray(blue + green + red, np.float32)
    share: FloatImage = (image + np.float32(0.02)) / (total[:, :, None] + np.float32(0.06))
    return total, share


def channel_norm(difference: FloatImage) -> FloatImage:
    """Euclidean length of a 3-channel difference, per pixel (faster than numpy's norm)."""
    squared = cv2.transform(cv2.multiply(difference, difference), _SUM_CHANNELS)
    return np.asarray(cv2.sqrt(squared), np.float32)


_SUM_CHANNELS = np.ones((1, 3), np.float32)


def channel_max(values: FloatImage) -> FloatImage:
    """Largest of the three channels, per pixel."""
    first, second, third = cv2.split(values)
    return np.asarray(cv2.max(cv2.max(first, second), third), np.float32)


@dataclass(frozen=True)
class Reference:
    """The empty tray, prepared once per profile for fast comparison (view pixels)."""

    sample: FloatImage
    """The blurred view, BGR 0..1, every SAMPLE_STEP-th pixel of every SAMPLE_STEP-th row."""
    inside_sample: Mask
    """`inside` at the same pixels."""
    levels_sample: Mask
    """The pixels the level mapping learns from, at the same pixels: the floor and a cube's
    side round it (the walls' foot), less what lies there at or next to a clipped patch (see
    `_near_clipped`). Not more: the rim and the table beyond it are lit otherwise, and
    learning from them refused more good calibration sets."""
    floor_sample: NDArray[np.intp]
    """Flat indices of the tray's pixels on every other row and column."""
    surround_sample: NDArray[np.intp]
    """Flat indices of the view's pixels round the floor (walls, rim, the table beyond it) on
    every other row and column."""
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
    """Pixels whose change never counts: beyond the picture's edge, and while calibrating,
    those that change between shots with nothing there (highlights on the rim, clipping)."""
    shadow: ShadowLine | None = None
    """This set-up's shadow (None while calibrating, or when calibration saw too little)."""
    linear: FloatImage | None = None
    """The blurred empty view in linear light."""
    local_noise: FloatImage | None = None
    """Per pixel, the colour difference seen between calibration shots with nothing there."""
    shaded: Mask | None = None
    """The floor the empty tray shows in shade, lit by the room alone (a wall's shade:
    `ShadowLine.shaded_floor`), when counting with a shadow line."""
    levels: BGRImage | None = None
    """The blurred empty view, 8-bit BGR, when counting: a channel at the camera's limit is
    then taken as the tray's where the tray would come near the limit too (`_unclip`). None
    while calibrating: a colour model learns what the camera shows of a cube, clipping and
    all."""

    @classmethod
    def prepare(
        cls,
        empty_view: BGRImage,
        inside: Mask,
        cube_side: float,
        noise: float | None = None,
        unstable: Mask | None = None,
        local_noise: FloatImage | None = None,
        shadow: ShadowLine | None = None,
        counting: bool = False,
    ) -> Reference:
        """Blur and convert the empty-tray view once (`counting`: for reading pictures, not
        for calibrating)."""
        blurred = smooth8(empty_view, cube_side)
        bgr = to_float(blurred)
        brightness, share = chromaticity(bgr)
        peak = channel_max(bgr)
        sample = np.ascontiguousarray(bgr[::SAMPLE_STEP, ::SAMPLE_STEP])
        inside_sample = np.ascontiguousarray(inside[::SAMPLE_STEP, ::SAMPLE_STEP])
        every_other = np.zeros_like(inside)
        every_other[::2, ::2] = True
        lab = lab8(blurred)
        kernel = np.ones((3, 3), np.uint8)
        # At most SHIFT_TOLERANCE either way: on a fine print (stripes) the neighbourhood
        # spans both inks, and a grey cube lies between them. The noise map covers the rest
        # of what a sub-pixel shift does at such edges.
        low = np.maximum(np.asarray(cv2.erode(lab, kernel), np.float32), lab - SHIFT_TOLERANCE)
        high = np.minimum(np.asarray(cv2.dilate(lab, kernel), np.float32), lab + SHIFT_TOLERANCE)
        # The walls' foot round the floor, less what lies at or next to a clipped patch.
        foot = grown(inside_sample, cube_side / SAMPLE_STEP) & ~_near_clipped(empty_view, cube_side)
        light = linear(blurred)
        shaded = None if shadow is None or not counting else shadow.shaded_floor(light, inside)
        return cls(
            sample,
            inside_sample,
            inside_sample | foot,
            np.flatnonzero(every_other & inside),
            np.flatnonzero(every_other & ~inside),
            lab,
            brightness,
            share,
            inside,
            cube_side,
            peak,
            low,
            high,
            noise,
            unstable,
            shadow,
            light,
            local_noise,
            shaded,
            blurred if counting else None,
        )


def _near_clipped(view: BGRImage, cube_side: float) -> Mask:
    """At the sample's pixels: within the blur's reach of a pixel the camera clipped.

    Clipped light, and clipped light mixed with its neighbours' by the blur, hardly moves
    with the exposure. A yellow rim clipped in red, next to a red floor, taught the level
    mapping that red barely brightens at the floor's brightest levels: in a picture 16%
    brighter, the floor's highlight read as red cubes.
    """
    clipped = view.max(axis=2) >= np.uint8(SATURATED * 255)
    # The blur (smooth8) reaches about 2.5 sigma.
    near: Mask = grown(clipped, 2.5 * blur_sigma(cube_side))[::SAMPLE_STEP, ::SAMPLE_STEP]
    return near


@dataclass(frozen=True)
class Comparison:
    """A view compared with the empty tray (all arrays in view pixels)."""

    lab: FloatImage
    """The view after light normalisation, blurred, CIE Lab (L 0..100)."""
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
    surround: float
    """Share of the view round the floor that still looks like the empty tray's (0..1)."""
    structure: float
    """Correlation of the picture's brightness pattern with the empty tray's (-1..1)."""
    threshold: float
    """The colour difference that counted as changed in this picture."""
    deficit: FloatImage
    """Per channel, the share of the empty tray's light missing here (linear light)."""
    saturated: Mask | None = None
    """Pixels with a channel at the camera's limit: their colour is only roughly known."""
    ceiling: tuple[float, float, float] = (1.0, 1.0, 1.0)
    """Per channel (B, G, R, 0..1 levels), where the camera's limit lies in the normalised
    view: no colour can look brighter than that here."""
    tables: NDArray[np.uint8] | None = None
    """The per-channel tables (256 x 1 x 3) that mapped the picture's levels onto the empty
    tray's: a closer look at the picture itself normalises its light with them."""
    off_hue: Mask | None = None
    """Shadow-like pixels whose channels the learned shadow would not have darkened so
    unevenly (`ShadowLine.keeps_hue`): more likely a dark cube's top than shade. None when
    no shadow was learned."""


def light_gains(sample: FloatImage, reference: Reference) -> NDArray[np.float64]:
    """Per-channel brightness factors of this picture (its `sample`, as the reference's)
    against the empty tray.

    Medians over the tray: right as long as cubes cover less than half of it, and refined
    on the pixels that then match. Where few pixels match the medians, cubes cover most of
    the floor (a drop spread out by hand); the floor's own pixels then still agree with each
    other more than the cubes' do, so the ratio most of them share is taken instead.
    """
    every_other = (slice(None, None, 2), slice(None, None, 2))
    inside = reference.inside_sample[every_other]
    pic = pixels_at(sample[every_other], inside).astype(np.float64) + 0.01
    ref = pixels_at(reference.sample[every_other], inside).astype(np.float64) + 0.01
    ratio = pic / ref
    gains = np.median(ratio, axis=0)
    close = _agreeing(ratio, gains)
    if close.sum() < 0.5 * len(ratio):
        commonest = _commonest(ratio)
        agreeing = _agreeing(ratio, commonest)
        # Only when clearly more pixels agree: elsewhere the medians stand as they were.
        if agreeing.sum() > AGREEMENT_MARGIN * close.sum():
            gains, close = commonest, agreeing
    if close.sum() > 0.2 * len(ratio):
        gains = np.median(np.compress(close, ratio, axis=0), axis=0)
    result: NDArray[np.float64] = np.clip(gains, 1e-3, None)
    return result


def _agreeing(ratio: NDArray[np.float64], gains: NDArray[np.float64]) -> Mask:
    """The pixels whose ratios to the empty tray lie within 15% of `gains` in every channel."""
    return all_channels(np.abs(ratio / gains - 1.0) < 0.15)


def _commonest(ratio: NDArray[np.float64]) -> NDArray[np.float64]:
    """The per-channel ratios the most pixels share, to within a bin of COMMON_BIN (log)."""
    bins = np.round(np.log(ratio) / COMMON_BIN).astype(np.int64)
    kinds, counts = np.unique(bins, axis=0, return_counts=True)
    commonest: NDArray[np.float64] = np.exp(kinds[int(np.argmax(counts))] * COMMON_BIN)
    return commonest


def tone_tables(
    raw_sample: FloatImage, gains: NDArray[np.float64], reference: Reference
) -> NDArray[np.uint8]:
    """Per-channel tables (256 x 1 x 3) mapping this picture's levels onto the empty tray's.

    Cameras bend an exposure change with their tone curve and clip highlights, so it is not
    one factor for all levels. Each level of the picture is mapped to the median level the
    same tray pixels have in the empty tray, and the mapping is made to rise monotonically
    (weighted pool-adjacent-violators). Where the empty tray is clipped this maps a whole
    range of levels to the clipped one, as it should: that detail was never seen. A level a
    dozen scattered pixels hold is read with its neighbours' pixels, or its median would jump
    with each frame's noise. Levels with little tray behind them (dark cubes live there), or
    whose tray pixels disagree with the picture's overall gain, follow the gain instead, so
    cubes cannot bend the mapping.

    The tray pixels are the floor and a cube's side round it (`Reference.levels_sample`): the
    foot of a dark wall holds levels the floor lacks, and the toe of the camera's curve moves
    those unlike the gain. Followed by the gain, a purple wall turns to black cubes.
    """
    ref_sample = reference.sample
    inside = reference.levels_sample & ~_small_changes(
        raw_sample, ref_sample, gains, reference.cube_side / SAMPLE_STEP
    )
    pic = np.clip(np.round(pixels_at(raw_sample, inside) * 255.0), 0, 255).astype(np.int32)
    ref = pixels_at(ref_sample, inside).astype(np.float64) * 255.0
    # Only pixel pairs near the overall gain in all three channels are surely tray: a cube
    # differs from the floor beneath it in at least one channel by more than that.
    near = all_channels(np.abs((pic + 2.0) / (ref * gains + 2.0) - 1.0) < LEVEL_NEAR)
    if near.sum() >= 50:
        pic, ref = np.compress(near, pic, axis=0), np.compress(near, ref, axis=0)
    levels = np.arange(256, dtype=np.float64)
    tables = np.empty((256, 1, 3), np.uint8)
    for channel in range(3):
        by_gain = np.minimum(levels / gains[channel], 255.0)
        x = pic[:, channel]
        bins = x // LEVEL_BIN
        # Each bin's median at once from a histogram of the empty tray's (8-bit) levels.
        y = np.round(ref[:, channel]).astype(np.int32)
        hist = np.bincount(bins * 256 + y, minlength=BINS * 256).reshape(BINS, 256)
        counts = hist.sum(axis=1)
        used = counts >= LEVEL_MIN_PIXELS
        below = np.cumsum(hist[used], axis=1)
        medians = np.argmax(below > (counts[used] // 2)[:, None], axis=1).astype(np.float64)
        centres = np.bincount(bins, weights=x, minlength=len(counts))[used] / counts[used]
        unsteady = _unsteady(below, counts[used], centres)
        if unsteady.any():
            offsets = _pooled_offsets(x, ref[:, channel], bins, gains[channel])[used]
            steadier = np.clip(centres / gains[channel] + offsets, 0.0, 255.0)
            medians[unsteady] = steadier[unsteady]
        expected = centres / gains[channel]
        # Tray pixels move with the light; a level far from that is mostly cubes.
        trusted = (expected / LEVEL_TRUST <= medians + 4.0) & (
            medians + 4.0 <= expected * LEVEL_TRUST + 8.0
        )
        centres, medians = centres[trusted], medians[trusted]
        weights = counts[used][trusted].astype(np.float64)
        if len(centres) < 2:
            curve = by_gain
        else:
            fitted = _monotone(np.array(medians), np.array(weights))
            curve = np.interp(levels, centres, fitted)
            # Beyond the levels the tray shows, follow the gain from the nearest known level.
            low, high = centres[0], centres[-1]
            below = levels < low
            curve[below] = fitted[0] * levels[below] / max(low, 1.0)
            above = levels > high
            curve[above] = fitted[-1] + (levels[above] - high) / gains[channel]
        tables[:, 0, channel] = np.round(np.clip(curve, 0.0, 255.0)).astype(np.uint8)
    return tables


def _small_changes(
    raw: FloatImage, empty: FloatImage, gains: NDArray[np.float64], cube_side: float
) -> Mask:
    """Cube-sized patches where `raw` differs from the `empty` tray under the overall gain,
    grown a little (`cube_side` in these pictures' pixels): left out of the level mapping,
    or a white cube on a beige floor would teach it that the cube's levels are the floor's.
    Patches bigger than a few cubes are kept in: those are the light itself changing (a
    highlight, clipping), which the mapping is for."""
    expected = empty * gains.astype(np.float32)[None, None, :]
    relative = np.abs(raw - expected) / (expected + np.float32(0.02))
    differs = (channel_max(np.ascontiguousarray(relative)) > SMALL_CHANGE).astype(np.uint8)
    n, labels, stats, _ = regions(differs, 8)
    largest = SMALL_CHANGE_CUBES * cube_side**2
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] <= largest)
    small = small[small > 0]
    if n <= 1 or len(small) == 0:
        none: Mask = np.zeros(differs.shape, np.bool_)
        return none
    chosen = np.zeros(n, np.bool_)
    chosen[small] = True
    return grown(chosen[labels], round(cube_side * 0.3) // 2)


def _unclip(mapped: BGRImage, raw: BGRImage, gains: NDArray[np.float64], empty: BGRImage) -> None:
    """Take a channel as the `empty` tray's (in `mapped`, in place) where the picture (`raw`)
    is at the camera's limit in it and the tray would come near it under this light (`gains`).

    A brighter exposure clips the print's brightest channel, and the level mapping cannot
    bring back what the camera cut off: a picture of an empty tray with orange print, a
    third brighter than at calibration, read as 22 green cubes. The channel tells nothing
    there; a cube still shows in the other two.
    """
    top = SATURATED * 255.0
    if int(raw.max()) < top:
        return
    for channel in range(3):
        # The gain is measured on the tray's middle levels, and the camera reaches its limit
        # sooner than it says: a red floor brought to 90% of the limit by the gain showed at
        # the limit, and the ring where it got there read as red cubes.
        near_limit = empty[:, :, channel] * float(gains[channel]) >= CLIPPED * 255.0
        lost = (raw[:, :, channel] >= top) & near_limit
        mapped[:, :, channel][lost] = empty[:, :, channel][lost]


def _unsteady(
    below: NDArray[np.int64], counts: NDArray[np.int64], centres: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """Which bins' medians jump with each frame's noise: held by few pixels (a cube's shadow,
    the edge of a printed dot) whose empty-tray levels spread widely. (`below`: each bin's
    cumulative histogram of empty-tray levels.) Near the clip a wide spread is the clip itself,
    many tray levels made one, and those bins are left as they are."""
    quarter = np.argmax(below > (counts // 4)[:, None], axis=1)
    three_quarters = np.argmax(below > (3 * counts // 4)[:, None], axis=1)
    unsteady: NDArray[np.bool_] = (
        (counts < LEVEL_POOL_PIXELS)
        & (three_quarters - quarter > LEVEL_WIDE)
        & (centres < CLIPPED * 255.0)
    )
    return unsteady


def _pooled_offsets(
    x: NDArray[np.int32], ref: NDArray[np.float64], bins: NDArray[np.int32], gain: float
) -> NDArray[np.float64]:
    """Per bin, the median offset of the empty tray's level from the gain's over the bin's
    own pixels and its two neighbours'. Offsets, not levels: a full neighbour bin must not
    pull a sparse one to its own level."""
    offsets = np.clip(np.round(ref - x / gain), -128, 127).astype(np.int32) + 128
    histogram = np.bincount(bins * 256 + offsets, minlength=BINS * 256).reshape(BINS, 256)
    padded = np.pad(histogram, ((1, 1), (0, 0)))
    rising = np.cumsum(padded[:-2] + padded[1:-1] + padded[2:], axis=1)
    middle: NDArray[np.float64] = np.argmax(rising > (rising[:, -1] // 2)[:, None], axis=1) - 128.0
    return middle


def _monotone(values: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """The non-decreasing sequence nearest to `values` in weighted least squares."""
    if bool(np.all(values[1:] >= values[:-1])):
        return values  # already rising, as a tray's levels mostly are
    blocks: list[list[float]] = []  # [mean, weight, length]
    for value, weight in zip(values.tolist(), weights.tolist(), strict=True):
        blocks.append([value, weight, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean2, weight2, length2 = blocks.pop()
            mean1, weight1, length1 = blocks.pop()
            total = weight1 + weight2
            blocks.append([(mean1 * weight1 + mean2 * weight2) / total, total, length1 + length2])
    result: NDArray[np.float64] = np.repeat(
        [b[0] for b in blocks], [int(b[2]) for b in blocks]
    ).astype(np.float64)
    return result


def _levels_kept(
    picture: NDArray[np.uint8], empty: NDArray[np.float32], deficit: NDArray[np.float32]
) -> NDArray[np.bool_]:
    """Per pixel (channels last), whether every channel that neither the picture (as the
    camera gave it, before the light is matched: matching may lift it to the clip) nor the
    empty tray clips keeps the tray's level (`deficit`: see `shadow.darkening`). An exposure
    step moves a clipped channel only; a white cube on a peach print lifts the blue and green
    the print holds well below it."""
    open_channels = (picture < CLIPPED * 255) & (empty < LINEAR_CLIPPED)
    kept: NDArray[np.bool_] = np.all(~open_channels | (np.abs(deficit) <= CLIPPED_STEP), axis=-1)
    return kept


def compare(view: BGRImage, reference: Reference) -> Comparison:
    """Normalise the view's light to the empty tray's, and mark what changed and what is shadow."""
    blurred = smooth8(view, reference.cube_side)
    sample = to_float(np.ascontiguousarray(blurred[::SAMPLE_STEP, ::SAMPLE_STEP]))
    gains = light_gains(sample, reference)
    # Gains and tone curve in one 8-bit table per channel, applied to the picture at once.
    tables = tone_tables(sample, gains, reference)
    mapped = np.asarray(cv2.LUT(blurred, tables), np.uint8)
    if reference.levels is not None:
        _unclip(mapped, blurred, gains, reference.levels)
    lab = lab8(mapped)
    # Compared with the range of the tray's colour one pixel around: sharp print edges and
    # the rim shift by a fraction of a pixel between shots (demosaicing, JPEG), cubes do not.
    # How far each channel lies outside that range: the picture less itself held within it.
    # (OpenCV's arithmetic: several times faster than numpy's on these arrays.)
    held = cv2.min(cv2.max(lab, reference.lab_low), reference.lab_high)
    difference = channel_norm(np.asarray(cv2.subtract(lab, held), np.float32))
    # Every other pixel of every other row is plenty for a median and four times faster.
    floor_differences = difference.ravel()[reference.floor_sample]
    typical = float(np.median(floor_differences))
    if reference.noise is not None:
        # A picture far from the set-up (noise, another scene) must not raise the bar so high
        # that nothing looks changed.
        typical = min(typical, NOISY_LIMIT * max(reference.noise, 1.0))
    threshold = max(MIN_DIFFERENCE, NOISE_FACTOR * typical)
    limit: FloatImage | float = threshold
    if reference.local_noise is not None:
        # Where shots differ anyway (wall shade, print edges, dark noise) a cube must stand
        # out further than that.
        limit = np.maximum(threshold, LOCAL_NOISE_FACTOR * reference.local_noise)
    changed = difference > limit
    if reference.unstable is not None:
        changed &= ~reference.unstable
    # The finer tests only matter where something changed: the box around it (most of a
    # tray is empty floor). Outside it the picture is the tray: ratio 1, no darkening.
    ratio = np.ones(changed.shape, np.float32)
    deficit = np.zeros(mapped.shape, np.float32)
    saturated = np.zeros_like(changed)
    shadow_like = np.zeros_like(changed)
    off_hue = None if reference.shadow is None else np.zeros_like(changed)
    box = box_around(changed)
    if box is not None:
        brightness, share = chromaticity(to_float(mapped[box]))
        ratio[box] = brightness / (reference.brightness[box] + np.float32(1e-3))
        hue_shift = channel_max(np.abs(share - reference.share[box]))
        # Where the tray is nearly white the camera clips, and a small exposure change
        # between shots cannot be undone by the gains: bright, same hue and every channel
        # below the clip at the tray's level there means unchanged.
        # (In 8-bit levels: the picture's own float copy is only made of its sample.)
        brightest = channel_max(np.ascontiguousarray(blurred[box]))
        saturated[box] = brightest >= SATURATED * 255
        assert reference.linear is not None
        deficit[box] = darkening(mapped[box], reference.linear[box])
        clipped = (
            (reference.peak[box] >= CLIPPED)
            & (brightest >= CLIPPED * 255)
            & (hue_shift <= SHADOW_MAX_CHROMA)
        )
        # (Levels are weighed only there: on most trays nothing comes near the clip.)
        if clipped.any():
            clipped[clipped] = _levels_kept(
                blurred[box][clipped], reference.linear[box][clipped], deficit[box][clipped]
            )
        changed[box] &= ~clipped
        local_ratio = ratio[box]
        if reference.shadow is not None:
            darker = reference.shadow.test(deficit[box], reference.linear[box])
            if reference.shaded is not None:
                # Where a wall already shades the floor only the room lights it, and a cube
                # beside it hides some of that light: an even darkening in every channel.
                room = reference.shadow.room_light
                darker |= reference.shaded[box] & room.test(deficit[box], reference.linear[box])
        else:
            # Deep shadows are lit by the room (often another colour than the lamp) and
            # their few photons make the hue noisy: the darker, the more hue shift allowed.
            darker = (local_ratio <= SHADOW_MAX_RATIO) & (
                hue_shift <= SHADOW_MAX_CHROMA + SHADOW_DARK_CHROMA * (1.0 - local_ratio)
            )
        shadow_like[box] = changed[box] & (local_ratio >= SHADOW_MIN_RATIO) & darker
        if reference.shadow is not None and off_hue is not None:
            # (Judged only where the shadow test passed: little of the box is shade.)
            shade = shadow_like[box]
            lost, light = deficit[box][shade][:, None], reference.linear[box][shade][:, None]
            kept = reference.shadow.keeps_hue(lost, light)[:, 0]
            if reference.shaded is not None:
                room = reference.shadow.room_light
                kept |= reference.shaded[box][shade] & room.keeps_hue(lost, light)[:, 0]
            off_hue[box][shade] = ~kept
    matching = float(np.mean(floor_differences <= threshold))
    around = difference.ravel()[reference.surround_sample]
    # (A view that is all floor has nothing round it to vouch for the tray.)
    surround = float(np.mean(around <= threshold)) if around.size else 0.0
    g = (float(gains[0]), float(gains[1]), float(gains[2]))
    top = tables[255, 0].astype(np.float64) / 255.0
    ceiling = (float(top[0]), float(top[1]), float(top[2]))
    structure = correlation(sample, reference.sample, step=1)
    return Comparison(
        lab,
        difference,
        changed,
        shadow_like,
        ratio,
        g,
        matching,
        surround,
        structure,
        threshold,
        deficit,
        saturated,
        ceiling,
        tables,
        off_hue,
    )


def gradient(lightness: FloatImage) -> FloatImage:
    """Length of the lightness gradient per pixel (L units per pixel)."""
    across = cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    down = cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    return np.asarray(cv2.magnitude(across, down), np.float32)


def correlation(first: NDArray[np.float32], second: NDArray[np.float32], step: int = 4) -> float:
    """Pearson correlation of two pictures' brightness (every `step`th pixel), -1..1.

    Light and exposure changes keep it high; another scene or a covered lens does not.
    Colour pictures' channels are summed; grey ones are taken as they are.
    """
    a = first[::step, ::step]
    b = second[::step, ::step]
    if a.ndim == 3:
        # (Channel by channel: numpy's sum along so short an axis is several times slower.)
        a = a[:, :, 0] + a[:, :, 1] + a[:, :, 2]
        b = b[:, :, 0] + b[:, :, 1] + b[:, :, 2]
    a, b = a.ravel(), b.ravel()
    a = a - a.mean()
    b = b - b.mean()
    scale = float(np.sqrt(np.dot(a, a) * np.dot(b, b)))
    return float(np.dot(a, b)) / scale if scale > 0 else 0.0
