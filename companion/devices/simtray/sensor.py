"""The simulated camera: from scene radiance to the BGR uint8 picture and JPEG bytes.

The chain follows a real camera's order: lens (vignetting, defocus, shake), a Bayer colour
filter mosaic with shot and read noise at 12 bits, demosaicing, white balance and exposure
gains, the sRGB tone curve, the camera's sharpening, and JPEG compression.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from companion.devices.simtray.colour import linear_to_srgb
from companion.devices.simtray.scene import Capture

FloatArray = npt.NDArray[np.float32]
ByteImage = npt.NDArray[np.uint8]

_LEVELS = 4096
_TONE = np.round(
    255.0
    * np.clip(
        # sRGB with a gentle S (cameras add contrast in the mid-tones).
        (lambda s: s + 0.06 * np.sin(2 * np.pi * s) * (1 - s) * s * 4)(
            linear_to_srgb(np.arange(_LEVELS, dtype=np.float32) / (_LEVELS - 1))
        ),
        0.0,
        1.0,
    )
).astype(np.uint8)


def develop(
    radiance: FloatArray,
    gain: FloatArray,
    vignette: FloatArray,
    capture: Capture,
    rng: np.random.Generator,
    chromatic_px: float = 0.0,
) -> ByteImage:
    """The camera's BGR uint8 picture (H x W x 3) of `radiance` (linear RGB, H x W x 3) with
    per-channel `gain` (white balance and exposure), the lens's `vignette` (H x W) and its
    lateral colour fringe (`chromatic_px` apart at the corners)."""
    scale = np.float32(2.0**capture.exposure_ev)
    light = radiance * vignette[..., None]
    if chromatic_px > 0.2:
        light = _lateral_colour(light, chromatic_px)
    if capture.defocus_px > 0.3:
        light = np.asarray(cv2.GaussianBlur(light, (0, 0), capture.defocus_px), np.float32)
    if capture.motion_px > 0.5:
        kernel = line_kernel(capture.motion_px, capture.motion_angle_deg)
        light = np.asarray(cv2.filter2D(light, -1, kernel), dtype=np.float32)
    # The mosaic sees the light before white balance; gains are applied after demosaicing.
    raw = np.empty(light.shape[:2], dtype=np.float32)
    raw[0::2, 0::2] = light[0::2, 0::2, 0]
    raw[0::2, 1::2] = light[0::2, 1::2, 1]
    raw[1::2, 0::2] = light[1::2, 0::2, 1]
    raw[1::2, 1::2] = light[1::2, 1::2, 2]
    # The sensor's exposure uses the smallest channel gain, and white balance only ever
    # amplifies the others afterwards (as cameras do), so the channel the light is richest in
    # does not clip before the picture does.
    base = float(np.min(gain))
    raw *= scale * np.float32(base)
    full_well = 5000.0 * (1.0 - 0.92 * min(max(capture.noise, 0.0), 1.0))
    read = 0.0015 + 0.01 * capture.noise
    sigma = np.sqrt(np.maximum(raw, 0.0) / np.float32(full_well) + np.float32(read * read))
    raw += sigma * rng.standard_normal(raw.shape, dtype=np.float32)
    counts = np.clip(raw * (_LEVELS - 1), 0, _LEVELS - 1).astype(np.uint16)
    bgr = cv2.cvtColor(counts, cv2.COLOR_BayerBG2BGR).astype(np.float32)
    balance = np.array([gain[2], gain[1], gain[0]], dtype=np.float32) / np.float32(base)
    bgr *= balance[None, None, :]
    levels = np.clip(bgr, 0, _LEVELS - 1).astype(np.uint16)
    out: ByteImage = _TONE[levels]
    if capture.sharpen > 0.05:
        soft = cv2.GaussianBlur(out, (0, 0), 1.2)
        sharp = cv2.addWeighted(out, 1.0 + capture.sharpen, soft, -capture.sharpen, 0.0)
        out = np.asarray(sharp, dtype=np.uint8)
    return out


def to_jpeg(image: ByteImage, quality: int) -> bytes:
    """JPEG bytes of a BGR uint8 picture at `quality` (1-100)."""
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("OpenCV could not encode the picture as JPEG")
    return bytes(buffer.tobytes())


def from_jpeg(data: bytes) -> ByteImage:
    """The BGR uint8 picture in JPEG `data`."""
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("not a readable JPEG")
    return np.asarray(image, dtype=np.uint8)


def _lateral_colour(light: FloatArray, fringe_px: float) -> FloatArray:
    """Red imaged slightly larger and blue slightly smaller than green, about the centre, so
    edges near the corners get colour fringes `fringe_px` wide, as simple lenses give."""
    height, width = light.shape[:2]
    half_diagonal = math.hypot(width, height) / 2
    out = light.copy()
    for channel, sign in ((0, 1.0), (2, -1.0)):
        scale = 1.0 + sign * (fringe_px / 2) / half_diagonal
        warp = cv2.getRotationMatrix2D(((width - 1) / 2, (height - 1) / 2), 0.0, scale)
        out[..., channel] = cv2.warpAffine(
            np.ascontiguousarray(light[..., channel]),
            warp,
            (width, height),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return out


def line_kernel(length_px: float, angle_deg: float) -> FloatArray:
    """A normalised motion-blur kernel: a line `length_px` long at `angle_deg` (picture x
    towards picture y), centred."""
    size = math.ceil(length_px) * 2 + 1
    kernel = np.zeros((size, size), dtype=np.float32)
    c = size // 2
    dx = math.cos(math.radians(angle_deg)) * length_px / 2
    dy = math.sin(math.radians(angle_deg)) * length_px / 2
    cv2.line(
        kernel,
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    total = float(kernel.sum())
    if total <= 0:
        kernel[c, c] = 1.0
        total = 1.0
    return kernel / np.float32(total)
