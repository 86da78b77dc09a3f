"""A hand reaching into the picture: a skin-coloured forearm and hand with its shadow."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from companion.devices.simtray.backdrop import Backdrop
from companion.devices.simtray.colour import srgb_to_linear
from companion.devices.simtray.scene import HandPose

FloatArray = npt.NDArray[np.float32]


def draw_hand(backdrop: Backdrop, radiance: FloatArray, hand: HandPose) -> FloatArray:
    """`radiance` (linear RGB, H x W x 3) with `hand` drawn over it and its shadow under it."""
    height, width = radiance.shape[:2]
    mask = hand_mask(width, height, hand)
    # The hand floats above the tray: its shadow lands offset away from the lamp, soft.
    light = backdrop.light.direction
    mm_px = backdrop.camera.focal_px / max(float(backdrop.camera.centre[2]), 1.0)
    shift = hand.height_mm * mm_px / max(light[2], 0.3)
    dx, dy = -light[0] * shift, light[1] * shift
    moved = cv2.warpAffine(
        mask, np.array([[1, 0, dx], [0, 1, dy]], dtype=np.float32), (width, height)
    )
    shadow = cv2.GaussianBlur(moved, (0, 0), 4.0 + 0.1 * hand.height_mm * mm_px)
    lamp_share = backdrop.lamp / np.maximum(backdrop.lamp + backdrop.fill, 1e-6)
    out = radiance * (1.0 - 0.85 * shadow[..., None] * lamp_share)
    # Skin (and sleeve) shaded as a rounded body lit from the lamp's side: a height field
    # from the distance to the outline gives the surface normals.
    dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    bulge = np.sqrt(np.clip(dist / max(float(dist.max()), 1.0), 0.0, 1.0))
    gy, gx = np.gradient(cv2.GaussianBlur(bulge, (0, 0), 2.0) * 40.0)
    # Picture x runs along world x, picture y against world y.
    normal = np.dstack([-gx, gy, np.ones_like(gx)])
    normal /= np.linalg.norm(normal, axis=2, keepdims=True)
    lambert = np.clip(normal @ light.astype(np.float32), 0.0, 1.0)
    # A hand close to the camera is lit more strongly than the floor far below.
    near = 1.0 + 0.3 * hand.height_mm / 100.0
    irradiance = backdrop.light.colour[None, None, :] * lambert[
        ..., None
    ] * near + backdrop.light.fill[None, None, :] * (0.6 + 0.4 * bulge[..., None])
    albedo = np.empty((height, width, 3), dtype=np.float32)
    albedo[...] = srgb_to_linear(np.asarray(hand.skin, dtype=np.float32) / 255.0)
    if hand.sleeve is not None:
        cloth = sleeve_mask(width, height, hand) > 0.5
        albedo[cloth] = srgb_to_linear(np.asarray(hand.sleeve, dtype=np.float32) / 255.0)
    # Pores, creases and weave: a faint fine texture.
    texture = np.random.default_rng([hand.side, int(hand.reach * 1000)]).normal(
        1.0, 0.04, (height, width)
    )
    colour = (
        albedo * irradiance * cv2.GaussianBlur(texture.astype(np.float32), (0, 0), 1.0)[..., None]
    )
    soft = cv2.GaussianBlur(mask, (0, 0), 1.2)[..., None]
    return np.asarray(out * (1.0 - soft) + colour * soft, dtype=np.float32)


def hand_mask(width: int, height: int, hand: HandPose) -> FloatArray:
    """A mask (H x W, 0..1) of a forearm coming in from `hand.side` ending in a hand."""
    start, (dx, dy), reach, scale = _arm(width, height, hand)
    wrist = (start[0] + dx * reach, start[1] + dy * reach)
    arm_w = 0.16 * scale
    mask = np.zeros((height, width), dtype=np.float32)
    back = (start[0] - dx * scale, start[1] - dy * scale)
    cv2.line(mask, _pt(back), _pt(wrist), 1.0, int(arm_w), cv2.LINE_AA)
    palm = (wrist[0] + dx * 0.09 * scale, wrist[1] + dy * 0.09 * scale)
    cv2.ellipse(
        mask,
        _pt(palm),
        (int(0.1 * scale), int(0.085 * scale)),
        math.degrees(math.atan2(dy, dx)),
        0,
        360,
        1.0,
        -1,
        cv2.LINE_AA,
    )
    # Four fingers and a thumb, slightly spread.
    for i, spread in enumerate((-0.5, -0.17, 0.17, 0.5, -1.3)):
        a = math.atan2(dy, dx) + spread * 0.35
        length = (0.13 if i < 4 else 0.09) * scale
        base = (
            palm[0] + math.cos(a) * 0.07 * scale,
            palm[1] + math.sin(a) * 0.07 * scale,
        )
        tip = (base[0] + math.cos(a) * length, base[1] + math.sin(a) * length)
        cv2.line(mask, _pt(base), _pt(tip), 1.0, max(2, int(0.035 * scale)), cv2.LINE_AA)
    return mask


def _arm(
    width: int, height: int, hand: HandPose
) -> tuple[tuple[float, float], tuple[float, float], float, float]:
    """Where the arm enters (px), its inward unit direction, how far in the wrist is (px),
    and the picture's scale (its shorter side, px)."""
    scale = float(min(width, height))
    side = hand.side % 4
    # Entry point on the chosen edge, and the inward direction turned by the pose's angle.
    if side == 0:
        start, inward = (0.0, hand.offset * height), (1.0, 0.0)
    elif side == 1:
        start, inward = (hand.offset * width, 0.0), (0.0, 1.0)
    elif side == 2:
        start, inward = (float(width), hand.offset * height), (-1.0, 0.0)
    else:
        start, inward = (hand.offset * width, float(height)), (0.0, -1.0)
    angle = math.radians(hand.angle_deg)
    dx = inward[0] * math.cos(angle) - inward[1] * math.sin(angle)
    dy = inward[0] * math.sin(angle) + inward[1] * math.cos(angle)
    reach = hand.reach * (width if side in (0, 2) else height)
    return start, (dx, dy), reach, scale


def sleeve_mask(width: int, height: int, hand: HandPose) -> FloatArray:
    """Where a sleeve covers the forearm: from the picture's edge to a little before the
    wrist (H x W, 0..1)."""
    start, (dx, dy), reach, scale = _arm(width, height, hand)
    cuff = max(0.0, reach - 0.12 * scale)
    mask = np.zeros((height, width), dtype=np.float32)
    back = (start[0] - dx * scale, start[1] - dy * scale)
    end = (start[0] + dx * cuff, start[1] + dy * cuff)
    cv2.line(mask, _pt(back), _pt(end), 1.0, int(0.19 * scale), cv2.LINE_AA)
    return mask


def _pt(p: tuple[float, float]) -> tuple[int, int]:
    return (round(p[0]), round(p[1]))
