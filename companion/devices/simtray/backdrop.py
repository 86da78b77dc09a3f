"""The part of a simulated picture fixed for a whole set-up: table, tray and lamp, no cubes.

Built once per `SetUp` by casting one ray per pixel against the tray box and the table, then
cached, so a live simulated camera only pays for the cubes and the sensor per frame. Radiance
is kept in two parts, fill and lamp, so the cubes' shadows can take the lamp's share away.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.devices.simtray.camera import PinholeCamera, camera_for
from companion.devices.simtray.colour import blackbody_rgb, srgb_to_linear
from companion.devices.simtray.scene import Light, SetUp, TrayLook
from companion.devices.simtray.textures import table_texture, tray_floor_texture, wall_texture

FloatArray = npt.NDArray[np.float32]
F64Array = npt.NDArray[np.float64]

TABLE, FLOOR, INNER_WALL, RIM_TOP, OUTER_WALL = 0, 1, 2, 3, 4
BASE_MM = 2.0
"""Thickness of the tray's bottom: the table lies this far below the floor."""


@dataclass(frozen=True, eq=False)
class LightModel:
    """The lamp as the shader sees it: a point at `position` (mm) or, when `position` is None,
    parallel light from `direction`; `colour` is the lamp's irradiance (linear RGB) at the tray
    centre on a surface facing it; `fill` the ambient irradiance from the room."""

    position: F64Array | None
    direction: F64Array
    colour: FloatArray
    fill: FloatArray
    size_mm: float
    distance_mm: float

    def towards(self, points: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Unit vectors from each point (N x 3 mm) towards the lamp, and the inverse-square
        falloff relative to the tray centre (N)."""
        if self.position is None:
            n = points.shape[0]
            dirs = np.broadcast_to(self.direction.astype(np.float32), (n, 3))
            return np.ascontiguousarray(dirs), np.ones(n, dtype=np.float32)
        delta = self.position.astype(np.float32)[None, :] - points
        dist2 = np.einsum("ij,ij->i", delta, delta)
        dist = np.sqrt(dist2)
        falloff = (self.distance_mm**2 / dist2).astype(np.float32)
        return (delta / dist[:, None]).astype(np.float32), falloff

    def penumbra(self, occluder_distance_mm: FloatArray) -> FloatArray:
        """Width (mm) of a shadow's soft edge cast by an occluder that far from the surface."""
        return (0.25 + occluder_distance_mm * self.size_mm / self.distance_mm).astype(np.float32)


def light_model(light: Light) -> LightModel:
    """The shader's lamp and fill for the room `light`."""
    el = math.radians(light.elevation_deg)
    az = math.radians(light.azimuth_deg)
    direction = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    colour = blackbody_rgb(light.kelvin)
    fill = blackbody_rgb(light.ambient_kelvin) * np.float32(light.ambient)
    if math.isinf(light.distance_mm):
        # The sun: a small angular size, no falloff.
        return LightModel(None, direction, colour, fill, 9.0, 1000.0)
    position = direction * light.distance_mm
    return LightModel(position, direction, colour, fill, light.size_mm, light.distance_mm)


@dataclass(frozen=True, eq=False)
class Backdrop:
    """Per-pixel buffers of one set-up's empty scene (H x W), all in world millimetres and
    linear RGB: the rays, the depth and kind of the surface each pixel sees, the fill and lamp
    radiance (and their sum), the camera's gain and white balance, where the tray floor's
    corners appear, and the mean radiance of the ground (what it bounces onto cube sides)."""

    setup: SetUp
    camera: PinholeCamera
    light: LightModel
    rays: FloatArray
    depth: FloatArray
    surface: npt.NDArray[np.uint8]
    fill: FloatArray
    lamp: FloatArray
    albedo: FloatArray
    gain: FloatArray
    vignette: FloatArray
    tray_corners: F64Array
    bounce: FloatArray
    radiance: FloatArray


def tray_points(tray: TrayLook) -> F64Array:
    """The tray's outer box corners (8 x 3 mm): what the camera must keep in its picture."""
    big_a = tray.width_mm / 2 + tray.wall_mm
    big_b = tray.depth_mm / 2 + tray.wall_mm
    return np.array(
        [
            [sx * big_a, sy * big_b, z]
            for sx in (-1, 1)
            for sy in (-1, 1)
            for z in (-BASE_MM, tray.rim_height_mm)
        ],
        dtype=np.float64,
    )


def floor_corners(tray: TrayLook) -> F64Array:
    """The inner floor's corners (4 x 3 mm) in picture order when the camera is not turned:
    top-left, top-right, bottom-right, bottom-left."""
    a, b = tray.width_mm / 2, tray.depth_mm / 2
    return np.array([[-a, b, 0.0], [a, b, 0.0], [a, -b, 0.0], [-a, -b, 0.0]])


@functools.lru_cache(maxsize=3)
def backdrop_for(setup: SetUp) -> Backdrop:
    """The cached backdrop of `setup` (the three most recent set-ups are kept: about 30 MB
    each at 800x600, 60 MB at 1280x720; `clear_caches()` frees them)."""
    return build_backdrop(setup)


def build_backdrop(setup: SetUp) -> Backdrop:
    """Ray-cast the empty scene of `setup` into per-pixel buffers."""
    tray = setup.tray
    camera = camera_for(setup.camera, setup.image_size, tray_points(tray))
    light = light_model(setup.light)
    rays_img = camera.rays()
    height, width = rays_img.shape[:2]
    rays = rays_img.reshape(-1, 3)
    origin = camera.centre.astype(np.float32)
    depth = np.full(rays.shape[0], np.inf, dtype=np.float32)
    surface = np.zeros(rays.shape[0], dtype=np.uint8)
    normal = np.zeros((rays.shape[0], 3), dtype=np.float32)

    def hit(
        axis: int,
        value: float,
        kind: int,
        facing: float,
        bounds: tuple[tuple[float, float], tuple[float, float]] | None = None,
        outside: tuple[float, float] | None = None,
    ) -> None:
        d = rays[:, axis]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (value - origin[axis]) / d
        ok = (t > 0) & (d * facing < 0) & (t < depth)
        others = [i for i in range(3) if i != axis]
        p0 = origin[others[0]] + t * rays[:, others[0]]
        p1 = origin[others[1]] + t * rays[:, others[1]]
        if bounds is not None:
            (lo0, hi0), (lo1, hi1) = bounds
            ok &= (p0 >= lo0) & (p0 <= hi0) & (p1 >= lo1) & (p1 <= hi1)
        if outside is not None:
            ok &= (np.abs(p0) > outside[0]) | (np.abs(p1) > outside[1])
        depth[ok] = t[ok]
        surface[ok] = kind
        n = np.zeros(3, dtype=np.float32)
        n[axis] = facing
        normal[ok] = n

    a, b, h, w = tray.width_mm / 2, tray.depth_mm / 2, tray.rim_height_mm, tray.wall_mm
    big_a, big_b = a + w, b + w
    if setup.has_tray:
        hit(2, 0.0, FLOOR, 1.0, bounds=((-a, a), (-b, b)))
        hit(0, -a, INNER_WALL, 1.0, bounds=((-b, b), (0.0, h)))
        hit(0, a, INNER_WALL, -1.0, bounds=((-b, b), (0.0, h)))
        hit(1, -b, INNER_WALL, 1.0, bounds=((-a, a), (0.0, h)))
        hit(1, b, INNER_WALL, -1.0, bounds=((-a, a), (0.0, h)))
        hit(2, h, RIM_TOP, 1.0, bounds=((-big_a, big_a), (-big_b, big_b)), outside=(a, b))
        hit(0, -big_a, OUTER_WALL, -1.0, bounds=((-big_b, big_b), (-BASE_MM, h)))
        hit(0, big_a, OUTER_WALL, 1.0, bounds=((-big_b, big_b), (-BASE_MM, h)))
        hit(1, -big_b, OUTER_WALL, -1.0, bounds=((-big_a, big_a), (-BASE_MM, h)))
        hit(1, big_b, OUTER_WALL, 1.0, bounds=((-big_a, big_a), (-BASE_MM, h)))
        hit(2, -BASE_MM, TABLE, 1.0, outside=(big_a, big_b))
    else:
        hit(2, -BASE_MM, TABLE, 1.0)
    # A ray that misses everything (cannot happen at these tilts) sees far-away table.
    missed = ~np.isfinite(depth)
    depth[missed] = 1e4
    normal[missed] = (0.0, 0.0, 1.0)
    points = origin[None, :] + depth[:, None] * rays

    albedo = _albedo(setup, points, surface)
    to_light, falloff = light.towards(points)
    lambert = np.clip(np.einsum("ij,ij->i", normal, to_light), 0.0, None) * falloff
    shadow = _rim_visibility(tray, points, surface, to_light, light, setup.has_tray)
    table_mask = surface == TABLE
    if setup.has_tray and table_mask.any():
        hard = _box_visibility(tray, points, to_light)
        # Soften the tray's shadow on the table by roughly its penumbra in pixels.
        soft = cv2.GaussianBlur(hard.reshape(height, width), (0, 0), 2.5).reshape(-1)
        shadow = np.where(table_mask, soft, shadow)
    fill_weight = (0.78 + 0.22 * normal[:, 2]) * _occlusion(tray, points, surface)
    gloss = _gloss(setup, points, normal, to_light, origin, surface)
    lamp = albedo * (lambert * shadow)[:, None] * light.colour[None, :]
    lamp += (gloss * shadow * falloff)[:, None] * light.colour[None, :]
    fill = albedo * fill_weight[:, None] * light.fill[None, :]

    lamp_img = lamp.reshape(height, width, 3).astype(np.float32)
    fill_img = fill.reshape(height, width, 3).astype(np.float32)
    vignette = _vignette(width, height, setup.vignetting)
    gain = _camera_gain(setup, light, lamp_img + fill_img, vignette)
    corners_uv, _ = camera.project(floor_corners(tray))
    # Mean radiance of the ground the cubes stand on: what it bounces onto their sides.
    ground = surface == (FLOOR if setup.has_tray else TABLE)
    bounce = (lamp[ground] + fill[ground]).mean(axis=0) if ground.any() else np.zeros(3)
    return Backdrop(
        setup=setup,
        camera=camera,
        light=light,
        rays=rays_img,
        depth=depth.reshape(height, width),
        surface=surface.reshape(height, width),
        fill=fill_img,
        lamp=lamp_img,
        albedo=albedo.reshape(height, width, 3).astype(np.float32),
        gain=gain,
        vignette=vignette,
        tray_corners=corners_uv,
        bounce=np.asarray(bounce, dtype=np.float32),
        radiance=np.asarray(lamp_img + fill_img, dtype=np.float32),
    )


def _albedo(setup: SetUp, points: FloatArray, surface: npt.NDArray[np.uint8]) -> FloatArray:
    tray = setup.tray
    albedo = np.zeros_like(points)
    floor = surface == FLOOR
    if floor.any():
        tex = tray_floor_texture(tray)
        albedo[floor] = tex.sample(points[floor, 0], points[floor, 1])
    walls = (surface == INNER_WALL) | (surface == OUTER_WALL)
    if walls.any():
        tex = wall_texture(tray)
        p = points[walls]
        # Unfold each wall onto one strip: the coordinate along the wall, then the height.
        along = np.where(
            np.abs(np.abs(p[:, 0]) - tray.width_mm / 2) < tray.wall_mm + 0.01, p[:, 1], p[:, 0]
        )
        albedo[walls] = tex.sample(along, p[:, 2])
    rim = surface == RIM_TOP
    if rim.any():
        albedo[rim] = srgb_to_linear(np.asarray(tray.rim_colour, dtype=np.float32) / 255.0)
    table = surface == TABLE
    if table.any():
        p = points[table]
        lo = np.percentile(p[:, :2], 0.5, axis=0) - 5.0
        hi = np.percentile(p[:, :2], 99.5, axis=0) + 5.0
        tex = table_texture(setup.table, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))
        albedo[table] = tex.sample(p[:, 0], p[:, 1])
    return albedo


def _rim_visibility(
    tray: TrayLook,
    points: FloatArray,
    surface: npt.NDArray[np.uint8],
    to_light: FloatArray,
    light: LightModel,
    has_tray: bool,
) -> FloatArray:
    """How much of the lamp reaches each point inside the tray past the rim (0..1, soft)."""
    vis = np.ones(points.shape[0], dtype=np.float32)
    if not has_tray:
        return vis
    inside = (surface == FLOOR) | (surface == INNER_WALL)
    p, lv = points[inside], to_light[inside]
    vis[inside] = rim_visibility(tray, p, lv, light)
    return vis


def rim_visibility(
    tray: TrayLook, points: FloatArray, to_light: FloatArray, light: LightModel
) -> FloatArray:
    """Lamp visibility (0..1) for points inside the tray box (N x 3 mm) looking along
    `to_light` (N x 3 unit): 0 where the rim's inner wall blocks the lamp, soft at the edge."""
    a, b, h = tray.width_mm / 2, tray.depth_mm / 2, tray.rim_height_mm
    with np.errstate(divide="ignore", invalid="ignore"):
        sx = np.where(
            to_light[:, 0] > 1e-6,
            (a - points[:, 0]) / to_light[:, 0],
            np.where(to_light[:, 0] < -1e-6, (-a - points[:, 0]) / to_light[:, 0], np.inf),
        )
        sy = np.where(
            to_light[:, 1] > 1e-6,
            (b - points[:, 1]) / to_light[:, 1],
            np.where(to_light[:, 1] < -1e-6, (-b - points[:, 1]) / to_light[:, 1], np.inf),
        )
    s_exit = np.maximum(np.minimum(sx, sy), 0.0)
    z_exit = points[:, 2] + s_exit * to_light[:, 2]
    pen = light.penumbra(np.minimum(s_exit, 1e3).astype(np.float32))
    return np.clip(0.5 + (z_exit - h) / pen, 0.0, 1.0).astype(np.float32)


def _box_visibility(tray: TrayLook, points: FloatArray, to_light: FloatArray) -> FloatArray:
    """1 where the ray from a point towards the lamp misses the tray's outer box, else 0."""
    big_a = tray.width_mm / 2 + tray.wall_mm
    big_b = tray.depth_mm / 2 + tray.wall_mm
    lo = np.array([-big_a, -big_b, -BASE_MM], dtype=np.float32)
    hi = np.array([big_a, big_b, tray.rim_height_mm], dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / np.where(np.abs(to_light) < 1e-7, 1e-7, to_light)
        t0 = (lo[None, :] - points) * inv
        t1 = (hi[None, :] - points) * inv
    t_near = np.max(np.minimum(t0, t1), axis=1)
    t_far = np.min(np.maximum(t0, t1), axis=1)
    blocked = (t_far > np.maximum(t_near, 1e-3)) & (t_far > 0)
    return np.where(blocked, 0.0, 1.0).astype(np.float32)


def _occlusion(tray: TrayLook, points: FloatArray, surface: npt.NDArray[np.uint8]) -> FloatArray:
    """Share of the room's fill light each point sees (1 in the open, less in corners)."""
    occ = np.ones(points.shape[0], dtype=np.float32)
    a, b, h = tray.width_mm / 2, tray.depth_mm / 2, tray.rim_height_mm
    floor = surface == FLOOR
    if floor.any():
        p = points[floor]
        blocked = np.zeros(p.shape[0], dtype=np.float32)
        for dist in (a - p[:, 0], a + p[:, 0], b - p[:, 1], b + p[:, 1]):
            d = np.maximum(dist, 0.05)
            blocked += 0.5 * (1.0 - d / np.sqrt(d * d + h * h))
        occ[floor] = np.clip(1.0 - blocked, 0.3, 1.0)
    walls = surface == INNER_WALL
    if walls.any():
        z = points[walls, 2]
        occ[walls] = 0.55 + 0.2 * np.clip(z / h, 0.0, 1.0) - 0.2 * np.exp(-z / 2.0)
    table = surface == TABLE
    if table.any():
        p = points[table]
        dx = np.maximum(np.abs(p[:, 0]) - a - tray.wall_mm, 0.0)
        dy = np.maximum(np.abs(p[:, 1]) - b - tray.wall_mm, 0.0)
        d = np.sqrt(dx * dx + dy * dy)
        occ[table] = 1.0 - 0.35 * np.exp(-d / (0.8 * h + 1.0))
    return occ


def _gloss(
    setup: SetUp,
    points: FloatArray,
    normal: FloatArray,
    to_light: FloatArray,
    origin: FloatArray,
    surface: npt.NDArray[np.uint8],
) -> FloatArray:
    """A laminated print's sheen on the tray floor (Blinn-Phong), zero elsewhere."""
    out = np.zeros(points.shape[0], dtype=np.float32)
    if setup.tray.gloss <= 0.0:
        return out
    floor = surface == FLOOR
    view = origin[None, :] - points[floor]
    view /= np.linalg.norm(view, axis=1, keepdims=True)
    half = view + to_light[floor]
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    cos = np.clip(np.einsum("ij,ij->i", normal[floor], half), 0.0, 1.0)
    out[floor] = setup.tray.gloss * 4.0 * cos**60
    return out


def _vignette(width: int, height: int, strength: float) -> FloatArray:
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xx - width / 2) ** 2 + (yy - height / 2) ** 2) / ((width / 2) ** 2 + (height / 2) ** 2)
    return np.asarray(1.0 - strength * r2 * (0.6 + 0.4 * r2), dtype=np.float32)


def _camera_gain(
    setup: SetUp, light: LightModel, radiance: FloatArray, vignette: FloatArray
) -> FloatArray:
    """Per-channel gain (R, G, B) mapping radiance to sensor level: white balance that corrects
    `white_balance` of the lamp's tint, then exposure frozen on the empty tray so the picture's
    mean lands at a typical auto-exposure level."""
    wb = np.power(light.colour, -setup.white_balance).astype(np.float32)
    wb /= wb[1]
    seen = radiance * wb[None, None, :] * vignette[..., None]
    luminance = seen @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
    # Centre-weighted metering, as webcams and phone cameras meter by default.
    height, width = luminance.shape
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xx / width - 0.5) ** 2 + (yy / height - 0.5) ** 2) / 0.3**2
    weight = np.exp(-0.5 * r2)
    level = float(np.sum(luminance * weight) / np.sum(weight))
    # ...and like them it also backs off so the brightest part of the centre does not clip.
    centre = seen[height // 4 : 3 * height // 4, width // 4 : 3 * width // 4].max(axis=2)
    bright = float(np.percentile(centre, 97))
    scale = min(0.17 / max(level, 1e-6), 0.85 / max(bright, 1e-6))
    return (wb * np.float32(scale)).astype(np.float32)
