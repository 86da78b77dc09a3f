"""Light and paint colours for the simulated tray, in linear RGB (the space light adds up in).

Everything the renderer shades is linear RGB in the channel order R, G, B; only the simulated
sensor converts to the camera's BGR uint8 at the very end.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from companion.core.cubes import Colour

FloatArray = npt.NDArray[np.float32]


def srgb_to_linear(srgb: npt.ArrayLike) -> FloatArray:
    """Linear RGB in 0..1 from sRGB-encoded values in 0..1 (the IEC 61966-2-1 curve)."""
    c = np.asarray(srgb, dtype=np.float32)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(linear: npt.ArrayLike) -> FloatArray:
    """sRGB-encoded values in 0..1 from linear RGB (clipped to 0..1 first)."""
    c = np.clip(np.asarray(linear, dtype=np.float32), 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1.0 / 2.4) - 0.055).astype(
        np.float32
    )


def blackbody_rgb(kelvin: float) -> FloatArray:
    """Linear RGB of a black body at `kelvin` (1000-40000 K), scaled so green is 1.

    Uses Tanner Helland's fit of the Planckian locus in sRGB, which is within a few percent of
    the CIE computation over the 2700-6500 K range rooms are lit with.
    """
    if not 1000.0 <= kelvin <= 40000.0:
        raise ValueError(f"colour temperature must be 1000-40000 K, got {kelvin}")
    t = kelvin / 100.0
    if t <= 66.0:
        red = 255.0
        green = 99.4708025861 * math.log(t) - 161.1195681661
        blue = 0.0 if t <= 19.0 else 138.5177312231 * math.log(t - 10.0) - 305.0447927307
    else:
        red = 329.698727446 * (t - 60.0) ** -0.1332047592
        green = 288.1221695283 * (t - 60.0) ** -0.0755148492
        blue = 255.0
    srgb = np.clip(np.array([red, green, blue], dtype=np.float32) / 255.0, 0.0, 1.0)
    linear = srgb_to_linear(srgb)
    return (linear / max(float(linear[1]), 1e-6)).astype(np.float32)


# Painted-wood reflectance of each cube colour, as sRGB 0..255 under daylight. The values are
# typical of the matt acrylic-painted beech cubes in board games: black paint still returns a
# few percent of the light, and brown is a dark, low-saturation orange, which is what makes
# black/brown and red/brown (under warm light) the hard pairs.
PAINT_SRGB: dict[Colour, tuple[int, int, int]] = {
    Colour.BLUE: (28, 68, 150),
    Colour.BLACK: (46, 44, 43),
    Colour.RED: (182, 30, 34),
    Colour.BROWN: (104, 62, 36),
    Colour.GREEN: (38, 128, 58),
    Colour.YELLOW: (236, 196, 34),
    Colour.WHITE: (232, 229, 219),
}

# How glossy each paint is (Blinn-Phong weight); dark paints show their sheen most.
PAINT_GLOSS: dict[Colour, float] = {
    Colour.BLUE: 0.05,
    Colour.BLACK: 0.07,
    Colour.RED: 0.05,
    Colour.BROWN: 0.04,
    Colour.GREEN: 0.05,
    Colour.YELLOW: 0.04,
    Colour.WHITE: 0.03,
}


def paint_albedo(colour: Colour) -> FloatArray:
    """Linear RGB reflectance (0..1) of a cube's paint."""
    return srgb_to_linear(np.array(PAINT_SRGB[colour], dtype=np.float32) / 255.0)


SKIN_SRGB: tuple[tuple[int, int, int], ...] = (
    (241, 194, 167),
    (224, 172, 138),
    (198, 134, 103),
    (161, 102, 72),
    (110, 70, 48),
    (236, 188, 180),
)
"""A spread of skin tones, sRGB 0..255, for the hand-in-view frames."""
