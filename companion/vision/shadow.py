"""What a shadow does to the tray in this set-up, learned at calibration.

A cube hides part of the main light from the floor; what is left is the room's light. In
linear light each channel of a shadowed pixel keeps the same share of its brightness whatever
the floor's print beneath it: the picture over the empty tray, per channel, is
`1 - t * direction`, with `t` from 0 (no shadow) up to the umbra (the main light fully hidden).
The direction depends only on the colours of the main light and the room's light, so it is
one vector per set-up, learned from the shadows the calibration cubes cast. A cube's own
pixels fall on that line only by chance: their colour does not depend on the floor at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import BGRImage, FloatImage, Mask

# Darkening (length of the 3-channel deficit) below which a pixel says nothing of a shadow:
# its direction is noise.
MIN_DARKENING = 0.12
# A calibration pixel is a shadow candidate when its direction lies this close (radians)
# to the candidates' consensus; the consensus is refined this many times.
INLIER_ANGLE = 0.3
ROUNDS = 4
# Fewer candidate pixels than this and the set-up is left to the generic shadow test.
MIN_PIXELS = 40
# The angle allowed when counting: the learned spread, at least this, plus noise that
# grows as the darkening shrinks (its direction is then less sure).
MIN_SPREAD = 0.08
NOISE_ANGLE = 0.03
# A shadow may be this much deeper than the deepest seen at calibration.
DEPTH_ALLOWANCE = 1.15
# Linear level at which a channel of the empty tray counts half in the shadow test (about
# sRGB 25): the darker a channel, the more its ratio is camera noise.
DARK_LEVEL = 0.01
# How far apart (natural log) the channels of a shaded pixel may keep more or less light than
# the line leaves at its depth (`ShadowLine.keeps_hue`). In path-traced sets A and B, 99% of
# the shadow-like pixels over 1.2 cube sides from any cube spread under 0.27 and 0.21; 79%
# and 86% of those on a cube's top spread over 0.3.
HUE_SPREAD = 0.3


# A floor pixel of the empty tray lies in shade (a wall's) when its light lies this share of
# the umbra's depth (in log light) below that of the most lit tenth of its print.
SHADED_AT = 0.5
# Prints are told apart by their colour with shade taken out, in bins this wide (log light),
# and one needs this many pixels for its lit level to be known.
PRINT_BIN = 0.06
PRINT_PIXELS = 30
# Where only the room lights the floor, a cube hides up to this share of that light.
ROOM_DEEPEST = 0.9

# Depths along the shadow line at which a colour's look in shade is worked out
# (`ShadowLine.darkened`): steps of about 1 L for a white cube.
SHADE_STEPS = 41


def _linear_of(levels: NDArray[np.floating]) -> NDArray[np.float64]:
    """sRGB levels (0..1) in linear light."""
    values = np.asarray(levels, np.float64)
    result: NDArray[np.float64] = np.where(
        values <= 0.04045, values / 12.92, ((values + 0.055) / 1.055) ** 2.4
    )
    return result


def _srgb_of(light: NDArray[np.floating]) -> NDArray[np.float64]:
    """Linear light (0..1) in sRGB levels."""
    values = np.clip(np.asarray(light, np.float64), 0.0, 1.0)
    result: NDArray[np.float64] = np.where(
        values <= 0.0031308, values * 12.92, 1.055 * values ** (1 / 2.4) - 0.055
    )
    return result


def _srgb_to_linear_table() -> NDArray[np.float32]:
    linear = _linear_of(np.arange(256, dtype=np.float64) / 255.0)
    # A 256 x 1 float table: OpenCV's lookup applies it to every channel, several times
    # faster than numpy's indexing.
    table: NDArray[np.float32] = linear.astype(np.float32).reshape(256, 1)
    return table


_LINEAR = _srgb_to_linear_table()
# Linear level of the darkest pixels, so a ratio against near-black stays finite.
_FLOOR = np.float32(0.004)


def linear(image: BGRImage) -> FloatImage:
    """8-bit sRGB to linear light (0..1) per channel."""
    result: FloatImage = np.asarray(cv2.LUT(image, _LINEAR), np.float32)
    return result


def darkening(picture: BGRImage, empty: FloatImage) -> FloatImage:
    """Per pixel and channel, how much of the empty tray's light is missing (1 - ratio in
    linear light; negative where the picture is brighter). `empty` is the empty tray's
    view in linear light, the same size."""
    ratio = cv2.divide(linear(picture) + _FLOOR, empty + _FLOOR)
    result: FloatImage = np.float32(1.0) - np.asarray(ratio, np.float32)
    return result


@dataclass(frozen=True)
class ShadowLine:
    """The learned shadow: `direction` (unit B, G, R deficit), the `deepest` deficit length
    seen along it, and the `spread` (radians) of shadow pixels around it."""

    direction: tuple[float, float, float]
    deepest: float
    spread: float

    def _fit(
        self, deficit: FloatImage, floor: FloatImage
    ) -> tuple[FloatImage, FloatImage, FloatImage, FloatImage, FloatImage]:
        """How `deficit` (H x W x 3) fits the line over the empty tray's linear light `floor`:
        (channel weights, weighted deficit, its projection on the weighted line, that
        line's squared length, depth along the line)."""
        # A channel the empty tray hardly lights says little: a few levels of noise there
        # are a large ratio (a green print has next to no blue). Each channel is weighed
        # by its light, and the depth is the weighted fit of the deficit to the line.
        weight = floor / (floor + np.float32(DARK_LEVEL))
        weighted = deficit * weight
        line = weight * np.array(self.direction, np.float32)
        along = np.einsum("hwc,hwc->hw", weighted, line)
        line_length2 = np.einsum("hwc,hwc->hw", line, line)
        depth = along / np.maximum(line_length2, np.float32(1e-6))
        return weight, weighted, along, line_length2, depth

    def test(self, deficit: FloatImage, floor: FloatImage) -> Mask:
        """Pixels (H x W) whose darkening lies on this shadow line, up to its depth, given
        the empty tray's linear light beneath them (H x W x 3)."""
        _, weighted, along, line_length2, depth = self._fit(deficit, floor)
        length = np.sqrt(np.einsum("hwc,hwc->hw", weighted, weighted))
        cosine = along / np.maximum(length * np.sqrt(line_length2), np.float32(1e-6))
        allowed = np.float32(max(self.spread, MIN_SPREAD)) + np.float32(NOISE_ANGLE) / np.maximum(
            length, np.float32(0.05)
        )
        on_line = cosine >= np.cos(np.minimum(allowed, np.float32(1.2)))
        deep_enough = depth >= np.float32(0.03)
        shallow_enough = depth <= np.float32(self.deepest * DEPTH_ALLOWANCE)
        result: Mask = on_line & deep_enough & shallow_enough
        return result

    def shaded_floor(self, light: FloatImage, floor: Mask) -> Mask:
        """The `floor` pixels the empty tray (`light`: linear, H x W x 3) shows in shade, lit
        by the room alone: a wall's shade, the tower's.

        In log light, shade moves every print the same way: along the umbra's vector, the
        log of what the deepest shade keeps. Across that vector prints differ, so pixels are
        grouped by where they lie across it (PRINT_BIN); those of a group lying SHADED_AT of
        the umbra or more below its most lit tenth are in shade. A print seen only in shade
        has no lit pixels to tell it by and is taken as lit; so is a dark print's shade that
        noise spreads into bins holding none of its lit pixels. The map may miss some of a
        band, but seldom takes lit floor for shade. (Taking each bin's lit level from the
        bins round it found more of the bands but took a purple print for a magenta one's
        shade: path-traced B 111 read red cubes there.)
        """
        kept = np.clip(1.0 - self.deepest * np.array(self.direction, np.float64), 0.02, 1.0)
        umbra = np.log(kept)
        depth = float(np.linalg.norm(umbra))
        shaded = np.zeros(floor.shape, np.bool_)
        if depth < 1e-3:
            return shaded
        axis = umbra / depth
        logs = np.log(light[floor].astype(np.float64) + float(_FLOOR))
        along = logs @ axis
        across = logs - along[:, None] * axis[None, :]
        # Two directions across the axis: the bins are squares in that plane.
        first = np.cross(axis, [1.0, 0.0, 0.0])
        if np.linalg.norm(first) < 1e-6:
            # Shade that darkens the first channel alone: any other channel serves.
            first = np.cross(axis, [0.0, 1.0, 0.0])
        first /= np.linalg.norm(first)
        second = np.cross(axis, first)
        cells = np.floor(np.stack([across @ first, across @ second], axis=1) / PRINT_BIN)
        _, group, sizes = np.unique(cells, axis=0, return_inverse=True, return_counts=True)
        group = group.ravel()
        # Each group's most lit tenth: its pixels sorted by depth along the axis.
        order = np.lexsort((along, group))
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        lit = along[order][starts + (sizes // 10)]
        known = sizes[group] >= PRINT_PIXELS
        shaded[floor] = known & (along >= lit[group] + SHADED_AT * depth)
        return shaded

    @cached_property
    def room_light(self) -> ShadowLine:
        """The shade a cube throws on floor only the room lights (`shaded_floor`): it hides
        some of that light, the same share in every channel. (Made once per line: every
        reading asks.)"""
        grey = float(1.0 / np.sqrt(3.0))
        return ShadowLine((grey, grey, grey), ROOM_DEEPEST * float(np.sqrt(3.0)), self.spread)

    def keeps_hue(self, deficit: FloatImage, floor: FloatImage) -> Mask:
        """Pixels (H x W) whose channels keep the share of the tray's light this line leaves
        at their depth: shade keeps it, a dark cube on a lighter tray does not.

        `test` judges the angle of the deficit, which says little once a pixel lost most of
        its light: a brown cube on cream print has lost 70-80% in every channel, 0.08
        radians off a nearly grey line. What is left shows it: its green kept a quarter less
        than such a shadow leaves, its red a third more.
        """
        weight, _, _, _, depth = self._fit(deficit, floor)
        kept = np.float32(1.0) - deficit
        left = np.float32(1.0) - depth[:, :, None] * np.array(self.direction, np.float32)
        # (The deepest shade the line allows still leaves a few percent of each channel.)
        off = np.log(np.maximum(kept, np.float32(1e-3)) / np.maximum(left, np.float32(0.02)))
        off *= weight
        result: Mask = off.max(axis=2) - off.min(axis=2) <= np.float32(HUE_SPREAD)
        return result

    def darkened(self, lab: NDArray[np.float32]) -> NDArray[np.float32]:
        """Lab colours (K x 3) as this shadow shows them ever deeper: K x SHADE_STEPS x 3,
        from none down to DEPTH_ALLOWANCE times the deepest seen, short of where the line
        takes a channel's light away."""
        direction = np.array(self.direction, np.float64)
        deepest = min(DEPTH_ALLOWANCE * self.deepest, 0.98 / max(float(direction.max()), 1e-3))
        kept = 1.0 - np.linspace(0.0, deepest, SHADE_STEPS)[:, None] * direction[None, :]
        lit = cv2.cvtColor(np.asarray(lab, np.float32).reshape(-1, 1, 3), cv2.COLOR_Lab2BGR)
        light = _linear_of(lit.reshape(-1, 1, 3).clip(0.0, 1.0))
        shaded = _srgb_of(light * kept[None, :, :]).astype(np.float32)
        result: NDArray[np.float32] = np.asarray(
            cv2.cvtColor(shaded, cv2.COLOR_BGR2Lab), np.float32
        )
        return result


def learn(deficits: list[NDArray[np.float32]]) -> ShadowLine | None:
    """The shadow line from calibration pixels that changed but are not cube (N x 3 each):
    the consensus direction of their darkening, how deep and how spread. None when too few
    pixels agree (a set-up with hardly any shadow keeps the generic test)."""
    if not deficits:
        return None
    pixels = np.concatenate(deficits).astype(np.float64)
    length = np.linalg.norm(pixels, axis=1)
    darker = np.all(pixels > -0.05, axis=1) & (length >= MIN_DARKENING) & (length < 1.6)
    pixels, length = pixels[darker], length[darker]
    if len(pixels) < MIN_PIXELS:
        return None
    units = pixels / length[:, None]
    direction = np.median(units, axis=0)
    direction /= np.linalg.norm(direction)
    inliers = np.zeros(len(units), np.bool_)
    angle = np.zeros(len(units))
    for _ in range(ROUNDS):
        angle = np.arccos(np.clip(units @ direction, -1.0, 1.0))
        inliers = angle <= INLIER_ANGLE
        if inliers.sum() < MIN_PIXELS:
            return None
        direction = units[inliers].mean(axis=0)
        direction /= np.linalg.norm(direction)
    # Most shadow pixels must agree, or the candidates were mostly something else.
    if inliers.mean() < 0.4:
        return None
    along = pixels[inliers] @ direction
    return ShadowLine(
        direction=(float(direction[0]), float(direction[1]), float(direction[2])),
        deepest=float(np.percentile(along, 98)),
        spread=float(np.percentile(angle[inliers], 90)),
    )


__all__ = ["ShadowLine", "darkening", "learn", "linear"]
