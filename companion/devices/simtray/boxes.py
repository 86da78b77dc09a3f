"""Draw solid boxes (the cubes, and props in "something else" pictures) into a backdrop.

Each visible face is rasterised into a depth buffer that starts as the backdrop's depth, so
the rim hides cubes behind it and cubes hide each other exactly (leaning and stacked ones
too). Every covered pixel is then shaded from its true 3D point: painted-wood albedo with
grain, bevelled edges that catch the light, Lambert from the lamp with shadows from the rim
and from neighbouring cubes, fill light darkened near the floor, light bounced off the floor
onto the sides, and a Blinn-Phong highlight. Boxes also cast soft shadows on the floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.devices.simtray.backdrop import (
    FLOOR,
    TABLE,
    Backdrop,
    LightModel,
    rim_visibility,
)
from companion.devices.simtray.camera import PinholeCamera
from companion.devices.simtray.scene import TrayLook

FloatArray = npt.NDArray[np.float32]
F64Array = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]

_SIGNS = np.array([[sx, sy, sz] for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0)])
# For the face on local axis k with sign s: the four corners in order around the face.
_FACE_CORNERS: dict[tuple[int, int], list[int]] = {}
for _k in range(3):
    for _s in (1, -1):
        _a1, _a2 = (_k + 1) % 3, (_k + 2) % 3
        _ring = []
        for _p1, _p2 in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            for _i, _sg in enumerate(_SIGNS):
                if _sg[_k] == _s and _sg[_a1] == _p1 and _sg[_a2] == _p2:
                    _ring.append(_i)
        _FACE_CORNERS[(_k, _s)] = _ring


@dataclass(frozen=True, eq=False)
class Box:
    """A solid box: `centre` (mm), `rotation` (local->world), `half` extents (mm, 3),
    linear-RGB `albedo`, Blinn-Phong `gloss`, wood-grain strength `grain` along local axis
    `grain_axis` with a per-box `phase`."""

    centre: F64Array
    rotation: F64Array
    half: F64Array
    albedo: FloatArray
    gloss: float
    grain: float
    grain_axis: int
    phase: float

    def corners(self) -> F64Array:
        """The eight corners (8 x 3 mm), in the order of the sign table."""
        return self.centre[None, :] + (_SIGNS * self.half[None, :]) @ self.rotation.T


@dataclass(frozen=True, eq=False)
class BoxLayer:
    """The boxes drawn over a backdrop: radiance (H x W x 3, linear RGB) of the whole
    picture, the box each pixel shows (H x W, -1 for none) and each box's visible pixels."""

    radiance: FloatArray
    owner: IntArray
    visible_px: IntArray


def draw_boxes(backdrop: Backdrop, boxes: list[Box]) -> BoxLayer:
    """The backdrop with `boxes` (and their shadows) drawn in."""
    height, width = backdrop.depth.shape
    radiance = backdrop.radiance.copy()
    if boxes:
        # Shadows and bounced light only change the ground near the boxes: work in that box.
        (x0, y0, x1, y1), shadow, contact = _floor_shadows(backdrop, boxes)
        lamp = backdrop.lamp[y0:y1, x0:x1]
        fill = backdrop.fill[y0:y1, x0:x1]
        bleed = _bleed(backdrop, boxes, (x0, y0, x1, y1))
        radiance[y0:y1, x0:x1] = (
            lamp * (1.0 - shadow)[..., None] + fill * (1.0 - contact)[..., None] + bleed
        )
    ids = np.zeros((height, width), dtype=np.int32)
    if not boxes:
        return BoxLayer(radiance, ids - 1, np.zeros(0, dtype=np.int32))
    zbuf = backdrop.depth.copy()
    # Project every corner of every box in one go.
    uv_all, _ = backdrop.camera.project(np.vstack([b.corners() for b in boxes]))
    for index, box in enumerate(boxes):
        _raster_box(backdrop, box, uv_all[index * 8 : index * 8 + 8], index, zbuf, ids)
    flat = ids.reshape(-1)
    sel = np.flatnonzero(flat)
    if sel.size:
        code = flat[sel] - 1
        shaded = _shade(backdrop, boxes, sel, code // 6, code % 6, zbuf.reshape(-1)[sel])
        radiance.reshape(-1, 3)[sel] = shaded
    # Floor division sends the empty id 0 to -1, "no box", on its own.
    owner = (ids - 1) // 6
    visible = np.bincount((flat[sel] - 1) // 6, minlength=len(boxes)).astype(np.int32)
    return BoxLayer(radiance, owner, visible)


def _raster_box(
    backdrop: Backdrop, box: Box, uv: F64Array, index: int, zbuf: FloatArray, ids: IntArray
) -> None:
    """Draw the faces of `box` (corners projected at `uv`, 8 x 2 px) that face the camera
    into the depth buffer `zbuf` and the face-id buffer `ids`, nearer surfaces winning."""
    cam = backdrop.camera
    height, width = zbuf.shape
    for k in range(3):
        for s in (1, -1):
            normal = box.rotation[:, k] * s
            face_centre = box.centre + normal * box.half[k]
            if float(np.dot(normal, cam.centre - face_centre)) <= 1e-9:
                continue
            pts = uv[_FACE_CORNERS[(k, s)]]
            x0 = max(math.floor(pts[:, 0].min()), 0)
            x1 = min(math.ceil(pts[:, 0].max()) + 1, width)
            y0 = max(math.floor(pts[:, 1].min()), 0)
            y1 = min(math.ceil(pts[:, 1].max()) + 1, height)
            if x1 <= x0 or y1 <= y0:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
            fixed = np.round((pts - [x0, y0]) * 16.0).astype(np.int32)
            cv2.fillConvexPoly(mask, fixed, 1, cv2.LINE_8, 4)
            # Depth of the face's plane along each pixel's own ray (exact with lens distortion).
            denom = float(np.dot(normal, face_centre) - np.dot(normal, cam.centre))
            inv = (backdrop.rays[y0:y1, x0:x1] @ normal.astype(np.float32)) / np.float32(denom)
            depth = np.where(inv > 1e-9, 1.0 / np.maximum(inv, 1e-9), np.inf).astype(np.float32)
            zone = zbuf[y0:y1, x0:x1]
            take = (mask > 0) & (depth < zone - 1e-3)
            zone[take] = depth[take]
            ids[y0:y1, x0:x1][take] = index * 6 + k * 2 + (0 if s == 1 else 1) + 1


def _shade(
    backdrop: Backdrop,
    boxes: list[Box],
    sel: npt.NDArray[np.intp],
    box_of: IntArray,
    face_of: IntArray,
    depth: FloatArray,
) -> FloatArray:
    cam = backdrop.camera
    light = backdrop.light
    rays = backdrop.rays.reshape(-1, 3)[sel]
    points = (cam.centre[None, :] + depth[:, None].astype(np.float64) * rays).astype(np.float32)
    rot = np.stack([b.rotation for b in boxes]).astype(np.float32)[box_of]
    centre = np.stack([b.centre for b in boxes]).astype(np.float32)[box_of]
    half = np.stack([b.half for b in boxes]).astype(np.float32)[box_of]
    local = np.einsum("nji,nj->ni", rot, points - centre)
    axis = face_of // 2
    sign = np.where(face_of % 2 == 0, 1.0, -1.0).astype(np.float32)
    rows = np.arange(sel.size)
    a1 = (axis + 1) % 3
    a2 = (axis + 2) % 3
    u = local[rows, a1]
    v = local[rows, a2]
    h1 = half[rows, a1]
    h2 = half[rows, a2]
    # Rounded edges: within a bevel's width of an edge the normal turns towards the next face.
    bevel = np.minimum(0.55, 0.07 * np.minimum(h1, h2) * 2).astype(np.float32)
    w1 = np.clip(1.0 - (h1 - np.abs(u)) / bevel, 0.0, 1.0) ** 1.5
    w2 = np.clip(1.0 - (h2 - np.abs(v)) / bevel, 0.0, 1.0) ** 1.5
    n_local = np.zeros_like(local)
    n_local[rows, axis] = sign
    n_local[rows, a1] = w1 * np.sign(u)
    n_local[rows, a2] = w2 * np.sign(v)
    n_local /= np.linalg.norm(n_local, axis=1, keepdims=True)
    normal = np.einsum("nij,nj->ni", rot, n_local)

    to_light, falloff = light.towards(points)
    lambert = np.clip(np.einsum("ij,ij->i", normal, to_light), 0.0, None)
    vis = np.ones(sel.size, dtype=np.float32)
    if backdrop.setup.has_tray:
        vis = rim_visibility(backdrop.setup.tray, points, to_light, light)
    vis *= _box_shadows(boxes, box_of, points, to_light, lambert > 0)

    albedo = np.stack([b.albedo for b in boxes]).astype(np.float32)[box_of]
    albedo = albedo * _grain(boxes, box_of, axis, local)[:, None]
    ground = 0.0 if backdrop.setup.has_tray else -2.0
    height_above = np.maximum(points[:, 2] - ground, 0.0)
    occlusion = 1.0 - 0.5 * np.exp(-height_above / 1.6)
    sky = (0.78 + 0.22 * normal[:, 2]) * occlusion
    # Light bounced off the floor reaches the sides and is tinted by the floor's print.
    under = np.clip(-normal[:, 2] * 0.5 + 0.5 * (1.0 - np.abs(normal[:, 2])), 0.0, 1.0)
    bounce = backdrop.bounce
    irradiance = (
        light.fill[None, :] * sky[:, None]
        + light.colour[None, :] * (lambert * falloff * vis)[:, None]
        + 0.35 * bounce[None, :] * (under * occlusion)[:, None]
    )
    view = cam.centre[None, :].astype(np.float32) - points
    view /= np.linalg.norm(view, axis=1, keepdims=True)
    half_vec = view + to_light
    half_vec /= np.linalg.norm(half_vec, axis=1, keepdims=True)
    gloss = np.array([b.gloss for b in boxes], dtype=np.float32)[box_of]
    # Satin acrylic paint: a few percent of the light in a broad lobe (energy-normalised
    # Blinn-Phong with exponent 20 peaks at about 1.1 times the reflectance; the weights in
    # PAINT_GLOSS are a little above the 4% of a dielectric, so scale them down).
    spec = gloss * np.clip(np.einsum("ij,ij->i", normal, half_vec), 0.0, 1.0) ** 20 * 0.8
    spec *= (lambert > 0) * falloff * vis
    radiance = albedo * irradiance + spec[:, None] * light.colour[None, :]
    return np.asarray(radiance, dtype=np.float32)


def _grain(boxes: list[Box], box_of: IntArray, axis: IntArray, local: FloatArray) -> FloatArray:
    """Albedo factor from the wood under the paint: streaks along the grain on the long faces,
    growth rings and a darker tone on the two end-grain faces."""
    grain = np.array([b.grain for b in boxes], dtype=np.float32)[box_of]
    gaxis = np.array([b.grain_axis for b in boxes], dtype=np.int64)[box_of]
    phase = np.array([b.phase for b in boxes], dtype=np.float32)[box_of]
    rows = np.arange(local.shape[0])
    along = local[rows, gaxis]
    across_axis = np.where((gaxis + 1) % 3 == axis, (gaxis + 2) % 3, (gaxis + 1) % 3)
    across = local[rows, across_axis]
    streak = np.sin(2.0 * np.pi * (across + 0.35 * np.sin(along * 0.45 + phase)) / 0.9 + phase)
    end_axis_u = local[rows, (gaxis + 1) % 3] + 3.0 * np.cos(phase)
    end_axis_v = local[rows, (gaxis + 2) % 3] + 3.0 * np.sin(phase)
    rings = np.sin(2.0 * np.pi * np.sqrt(end_axis_u**2 + end_axis_v**2) / 0.8)
    end = axis == gaxis
    factor = np.where(end, 0.9 + grain * 0.6 * rings, 1.0 + grain * streak)
    return factor.astype(np.float32)


def _box_shadows(
    boxes: list[Box],
    box_of: IntArray,
    points: FloatArray,
    to_light: FloatArray,
    lit: npt.NDArray[np.bool_],
) -> FloatArray:
    """1 where a point's ray towards the lamp passes no other nearby box, 0 where one blocks.
    Only `lit` points (facing the lamp) are tested; the rest cannot be shadowed further."""
    vis = np.ones(points.shape[0], dtype=np.float32)
    if len(boxes) < 2:
        return vis
    centres = np.stack([b.centre for b in boxes])
    reach = np.array([float(np.linalg.norm(b.half)) for b in boxes])
    tops = np.array([float(b.corners()[:, 2].max()) for b in boxes])
    candidates = np.flatnonzero(lit)
    order = candidates[np.argsort(box_of[candidates], kind="stable")]
    starts = np.searchsorted(box_of[order], np.arange(len(boxes) + 1))
    pix_parts: list[npt.NDArray[np.intp]] = []
    occ_parts: list[npt.NDArray[np.intp]] = []
    for i in range(len(boxes)):
        rows = order[starts[i] : starts[i + 1]]
        if rows.size == 0:
            continue
        # Only a box within reach of the ray from this box's centre towards the lamp can
        # shade it: test the distance of each centre from that ray.
        offset = centres - centres[i]
        ray_dir = to_light[rows[0]].astype(np.float64)
        along = offset @ ray_dir
        across = np.linalg.norm(offset - along[:, None] * ray_dir[None, :], axis=1)
        limit = reach + reach[i]
        near = (along > -limit) & (across < limit)
        near[i] = False
        heights = points[rows, 2]
        for j in np.flatnonzero(near):
            # The ray climbs towards the lamp, so a box can only shade points below its top.
            below = rows[heights < tops[j]]
            if below.size:
                pix_parts.append(below)
                occ_parts.append(np.full(below.size, j, dtype=np.intp))
    if not pix_parts:
        return vis
    pix = np.concatenate(pix_parts)
    occ = np.concatenate(occ_parts)
    rot = np.stack([b.rotation for b in boxes]).astype(np.float32)
    half = np.stack([b.half for b in boxes]).astype(np.float32)
    rel = points[pix] - centres.astype(np.float32)[occ]
    ray = to_light[pix]
    t_near = np.full(pix.size, -np.inf, dtype=np.float32)
    t_far = np.full(pix.size, np.inf, dtype=np.float32)
    # Slab test in each occluder's own frame, one local axis at a time.
    for axis in range(3):
        column = rot[:, :, axis][occ]
        o = np.sum(rel * column, axis=1)
        d = np.sum(ray * column, axis=1)
        d = np.where(np.abs(d) < 1e-7, np.float32(1e-7), d)
        extent = half[occ, axis]
        lo = (-extent - o) / d
        hi = (extent - o) / d
        t_near = np.maximum(t_near, np.minimum(lo, hi))
        t_far = np.minimum(t_far, np.maximum(lo, hi))
    blocked = (t_far > np.maximum(t_near, 0.05)) & (t_far > 0.05)
    vis[pix[blocked]] = 0.0
    return vis


def _floor_shadows(
    backdrop: Backdrop, boxes: list[Box]
) -> tuple[tuple[int, int, int, int], FloatArray, FloatArray]:
    """The picture region (x0, y0, x1, y1) the boxes affect on the ground, and within it soft
    masks (0..1) of their cast shadows (lamp light taken away) and of the dark contact zone
    around each box's base (fill light taken away)."""
    cam = backdrop.camera
    light = backdrop.light
    height, width = backdrop.depth.shape
    setup = backdrop.setup
    ground = 0.0 if setup.has_tray else -2.0
    tray = setup.tray
    clip = None
    if setup.has_tray:
        a, b = tray.width_mm / 2, tray.depth_mm / 2
        clip = np.array([[-a, -b], [a, -b], [a, b], [-a, b]], dtype=np.float32)
    shadows: list[F64Array] = []
    contacts: list[F64Array] = []
    extent = [cam.project(b.corners())[0] for b in boxes]
    for box in boxes:
        corners = box.corners()
        cast = _cast(corners, light.position, light.direction, ground)
        hull = cv2.convexHull(np.vstack([cast, corners[:, :2]]).astype(np.float32))
        poly = hull.reshape(-1, 2)
        if clip is not None:
            _, inter = cv2.intersectConvexConvex(poly, clip)
            if inter is None:
                continue
            poly = inter.reshape(-1, 2)
        shadows.append(_on_ground(cam, poly, ground))
        if setup.has_tray:
            shadows.extend(_wall_shadows(cam, corners, light, tray))
        # The corners on (or nearly on) the floor: four for a flat box, two for a leaning one.
        base = corners[corners[:, 2] < ground + 0.7 * float(box.half.min())]
        if base.shape[0] >= 3:
            foot = cv2.convexHull(base[:, :2].astype(np.float32)).reshape(-1, 2)
            contacts.append(_on_ground(cam, foot, ground))
    mm_px = cam.focal_px / max(float(cam.centre[2]), 1.0)
    height_mm = max(float(np.mean([b.centre[2] for b in boxes])), 1.0)
    pen_mm = float(light.penumbra(np.array([height_mm], dtype=np.float32))[0])
    sigma_shadow = max(0.6, 0.5 * pen_mm * mm_px)
    sigma_contact = max(1.0, 1.6 * mm_px)
    size_px = mm_px * 2.0 * float(np.mean([b.half.mean() for b in boxes]))
    margin = int(3.0 * max(sigma_shadow, sigma_contact, 0.8 * size_px)) + 4
    pts = np.vstack(extent + shadows)
    x0 = int(np.clip(np.floor(pts[:, 0].min()) - margin, 0, width - 1))
    x1 = int(np.clip(np.ceil(pts[:, 0].max()) + margin, x0 + 1, width))
    y0 = int(np.clip(np.floor(pts[:, 1].min()) - margin, 0, height - 1))
    y1 = int(np.clip(np.ceil(pts[:, 1].max()) + margin, y0 + 1, height))
    shadow: FloatArray = np.zeros((y1 - y0, x1 - x0), dtype=np.float32)
    contact: FloatArray = np.zeros((y1 - y0, x1 - x0), dtype=np.float32)
    for uv in shadows:
        _fill(uv, (x0, y0), shadow)
    for uv in contacts:
        _fill(uv, (x0, y0), contact)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), sigma_shadow), np.float32)
    contact = np.asarray(cv2.GaussianBlur(contact, (0, 0), sigma_contact), np.float32)
    return (x0, y0, x1, y1), np.clip(shadow, 0.0, 1.0), np.clip(contact * 0.6, 0.0, 0.6)


# The inner walls: (axis of the normal, the wall's coordinate on it, the other floor axis).
def _walls(tray: TrayLook) -> tuple[tuple[int, float, int], ...]:
    a, b = tray.width_mm / 2, tray.depth_mm / 2
    return ((0, -a, 1), (0, a, 1), (1, -b, 0), (1, b, 0))


def _wall_shadows(
    cam: PinholeCamera, corners: F64Array, light: LightModel, tray: TrayLook
) -> list[F64Array]:
    """Picture polygons (N x 2 px) of a box's shadow on those inner walls it reaches: its
    corners pushed away from the lamp onto each wall's plane, clipped to the wall."""
    out: list[F64Array] = []
    span = {0: tray.width_mm / 2, 1: tray.depth_mm / 2}
    for axis, value, along in _walls(tray):
        if light.position is None:
            ray = np.broadcast_to(-light.direction, corners.shape)
        else:
            ray = corners - light.position[None, :]
        going = ray[:, axis]
        # Only a wall the light shines towards (across the tray) can take the shadow.
        if np.any(going * np.sign(value) <= 1e-6):
            continue
        s = (value - corners[:, axis]) / going
        if np.any(s < -0.5):
            continue
        hit = corners + s[:, None] * ray
        flat = np.column_stack([hit[:, along], hit[:, 2]]).astype(np.float32)
        hull = cv2.convexHull(flat).reshape(-1, 2)
        limit = span[along]
        wall = np.array(
            [
                [-limit, 0.0],
                [limit, 0.0],
                [limit, tray.rim_height_mm],
                [-limit, tray.rim_height_mm],
            ],
            dtype=np.float32,
        )
        _, inter = cv2.intersectConvexConvex(hull, wall)
        if inter is None or len(inter) < 3:
            continue
        poly = inter.reshape(-1, 2).astype(np.float64)
        world = np.zeros((poly.shape[0], 3))
        world[:, axis] = value
        world[:, along] = poly[:, 0]
        world[:, 2] = poly[:, 1]
        uv, _ = cam.project(world)
        out.append(uv)
    return out


def _bleed(backdrop: Backdrop, boxes: list[Box], region: tuple[int, int, int, int]) -> FloatArray:
    """Light the boxes' lit sides throw onto the ground around them, tinted by their paint
    (radiance over `region` = x0, y0, x1, y1): a white cube brightens the floor beside it, a
    red one reddens it. Worked out at a quarter of the resolution, as it is smooth."""
    cam = backdrop.camera
    x0, y0, x1, y1 = region
    q = 4
    small = np.zeros(((y1 - y0) // q + 1, (x1 - x0) // q + 1, 3), dtype=np.float32)
    for box in boxes:
        uv, _ = cam.project(box.corners())
        hull = cv2.convexHull(((uv - [x0, y0]) / q * 16.0).astype(np.int32))
        colour = tuple(float(c) for c in box.albedo)
        cv2.fillConvexPoly(small, hull, colour, cv2.LINE_8, 4)
    mm_px = cam.focal_px / max(float(cam.centre[2]), 1.0)
    size_px = mm_px * 2.0 * float(np.mean([b.half.mean() for b in boxes]))
    small = np.asarray(cv2.GaussianBlur(small, (0, 0), max(0.8, 0.8 * size_px / q)), np.float32)
    spread = cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    kind = FLOOR if backdrop.setup.has_tray else TABLE
    ground = (backdrop.surface[y0:y1, x0:x1] == kind)[..., None]
    light = backdrop.light
    on_sides = 0.5 * light.colour + light.fill
    bleed = backdrop.albedo[y0:y1, x0:x1] * spread * (0.3 * on_sides)[None, None, :] * ground
    return np.asarray(bleed, dtype=np.float32)


def _cast(
    corners: F64Array, position: F64Array | None, direction: F64Array, ground: float
) -> F64Array:
    """Where each corner's shadow falls on the plane z = ground (N x 2 mm)."""
    if position is None:
        s = (corners[:, 2] - ground) / max(direction[2], 1e-3)
        return np.asarray(corners[:, :2] - s[:, None] * direction[None, :2], dtype=np.float64)
    lift = np.maximum(position[2] - corners[:, 2], 1e-3)
    s = (position[2] - ground) / lift
    cast = position[None, :2] + (corners[:, :2] - position[None, :2]) * s[:, None]
    return np.asarray(cast, dtype=np.float64)


def _on_ground(cam: PinholeCamera, poly: npt.ArrayLike, ground: float) -> F64Array:
    """Picture coordinates (N x 2 px) of a polygon (N x 2 mm) lying at height `ground`."""
    flat = np.asarray(poly, dtype=np.float64).reshape(-1, 2)
    world = np.column_stack([flat, np.full(flat.shape[0], ground)])
    uv, _ = cam.project(world)
    return uv


def _fill(uv: F64Array, origin: tuple[int, int], target: FloatArray) -> None:
    """Fill the picture polygon `uv` (N x 2 px) into `target`, whose (0, 0) is `origin`."""
    fixed = np.round((uv - np.asarray(origin, dtype=np.float64)) * 16.0).astype(np.int32)
    cv2.fillConvexPoly(target, fixed, 1.0, cv2.LINE_8, 4)
