"""Path-traced tray pictures with physically dropped cubes: a second, independent test set.

The shared tray renderer (`companion.devices.tray_render`) places cubes by rule and shades
them with a local light model; the vision code was tuned against it, so its accuracy there
says little about a real camera. This maker shares nothing with it: the cubes fall from a
chute into the tray under rigid-body physics (PyBullet), bounce, slide, come to rest in
clusters, against the walls and on each other, and the scene is rendered by a path tracer
(Mitsuba 3: soft shadows from a lamp of finite size, light bounced between cubes, walls and
floor, glossy paint), then given sensor noise, a little defocus and JPEG.

A set-up is one camera, lamp, tray and table: an empty-tray picture, one picture per colour
(3-6 cubes of it) and `drops` pictures of random drops, each with `truth.json` giving what
lies in the tray. Nothing here counts cubes.

Needs the `render` extra (`.venv/bin/pip install -e '.[render]'`); see README.md here.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS
from companion.vision.corners import order_corners

# Linear-light albedos of painted wooden cubes, chosen by eye on the rendered pictures. What
# matters is that they were set apart from the shared renderer's own colour table, not that
# they match a particular box.
ALBEDO = {
    "blue": (0.04, 0.08, 0.42),
    "black": (0.025, 0.025, 0.028),
    "red": (0.55, 0.035, 0.03),
    "brown": (0.22, 0.095, 0.04),
    "green": (0.04, 0.30, 0.07),
    "yellow": (0.78, 0.55, 0.03),
    "white": (0.78, 0.77, 0.72),
}
CUBE_M = 0.009
# A wooden cube of that size weighs about 0.6 g (only ratios of masses matter here).
CUBE_GRAMS = 0.6
# Physics runs in centimetres: Bullet's collision margins suit objects of about a unit.
TO_CM = 100.0


@dataclass(frozen=True)
class SetUp:
    """One camera, lamp, tray and table (metres, degrees, kelvin)."""

    seed: int
    width: float
    depth: float
    rim: float
    floor_colours: tuple[tuple[float, float, float], ...]
    floor_kind: str
    wall_colour: tuple[float, float, float]
    table_colour: tuple[float, float, float]
    camera_height: float
    tilt: float
    tilt_azimuth: float
    fov: float
    lamp_kelvin: float
    lamp_azimuth: float
    lamp_elevation: float
    lamp_distance: float
    lamp_radius: float
    ambient: float
    ambient_kelvin: float
    white_balance: float
    noise: float
    blur: float
    jpeg: int
    chute_corner: int
    samples: int

    @classmethod
    def load(cls, path: Path) -> SetUp:
        """The set-up a `setup.json` written by `make_setup` describes."""
        fields = json.loads(path.read_text())
        # (JSON keeps tuples as lists.)
        fields["floor_colours"] = tuple(tuple(colour) for colour in fields["floor_colours"])
        fields["wall_colour"] = tuple(fields["wall_colour"])
        fields["table_colour"] = tuple(fields["table_colour"])
        return cls(**fields)

    @classmethod
    def random(cls, seed: int, samples: int = 32) -> SetUp:
        rng = np.random.default_rng([seed, 31])

        def colour(low: float, high: float) -> tuple[float, float, float]:
            return tuple(float(v) for v in rng.uniform(low, high, 3))  # type: ignore[return-value]

        kind = str(rng.choice(["plain", "blobs", "checks", "stripes"]))
        count = 1 if kind == "plain" else int(rng.integers(2, 4))
        return cls(
            seed=seed,
            width=float(rng.uniform(0.12, 0.17)),
            depth=float(rng.uniform(0.085, 0.12)),
            rim=float(rng.uniform(0.01, 0.024)),
            floor_colours=tuple(colour(0.03, 0.7) for _ in range(count)),
            floor_kind=kind,
            wall_colour=colour(0.03, 0.6),
            table_colour=colour(0.02, 0.5),
            camera_height=float(rng.uniform(0.15, 0.30)),
            tilt=float(rng.uniform(0.0, 20.0)),
            tilt_azimuth=float(rng.uniform(0.0, 360.0)),
            fov=float(rng.uniform(50.0, 70.0)),
            lamp_kelvin=float(rng.uniform(2700.0, 6500.0)),
            lamp_azimuth=float(rng.uniform(0.0, 360.0)),
            lamp_elevation=float(rng.uniform(35.0, 85.0)),
            lamp_distance=float(rng.uniform(0.4, 1.5)),
            lamp_radius=float(rng.uniform(0.005, 0.08)),
            ambient=float(rng.uniform(0.15, 0.6)),
            ambient_kelvin=float(rng.uniform(3000.0, 7500.0)),
            white_balance=float(rng.uniform(0.3, 0.9)),
            noise=float(rng.uniform(0.004, 0.02)),
            blur=float(rng.uniform(0.0, 1.0)),
            jpeg=int(rng.integers(70, 93)),
            chute_corner=int(rng.integers(4)),
            samples=samples,
        )


def kelvin_rgb(kelvin: float) -> NDArray[np.float64]:
    """Linear RGB of a black body at `kelvin`, green = 1 (Planck's law sampled at the sRGB
    primaries' dominant wavelengths: close enough for a lamp's tint)."""
    waves = np.array([610e-9, 550e-9, 465e-9])
    h, c, k = 6.626e-34, 2.998e8, 1.381e-23
    power = 1.0 / (waves**5 * (np.exp(h * c / (waves * k * kelvin)) - 1.0))
    # Normalised to a 6500 K body, so that daylight is neutral.
    white = 1.0 / (waves**5 * (np.exp(h * c / (waves * k * 6500.0)) - 1.0))
    rgb: NDArray[np.float64] = power / white
    return rgb / rgb[1]


@dataclass(frozen=True)
class Resting:
    """A cube at rest: colour, centre (metres, tray frame) and rotation (quaternion)."""

    colour: str
    x: float
    y: float
    z: float
    quaternion: tuple[float, float, float, float]
    size: float


def drop(setup: SetUp, colours: list[str], seed: int) -> list[Resting]:
    """Drop cubes of `colours` one after another from the chute at one corner of the tray and
    let them come to rest; those that leave the tray are dropped again."""
    import pybullet as p

    rng = np.random.default_rng([setup.seed, seed, 7])
    client = p.connect(p.DIRECT)
    try:
        p.setGravity(0, 0, -9.81 * TO_CM, physicsClientId=client)
        p.setTimeStep(1.0 / 480.0, physicsClientId=client)
        half_w, half_d = setup.width / 2 * TO_CM, setup.depth / 2 * TO_CM
        rim = setup.rim * TO_CM
        floor = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=client)
        p.createMultiBody(0, floor, physicsClientId=client)
        wall = 0.3
        for sx, sy, hx, hy in (
            (half_w + wall, 0.0, wall, half_d + 2 * wall),
            (-half_w - wall, 0.0, wall, half_d + 2 * wall),
            (0.0, half_d + wall, half_w + 2 * wall, wall),
            (0.0, -half_d - wall, half_w + 2 * wall, wall),
        ):
            shape = p.createCollisionShape(
                p.GEOM_BOX, halfExtents=[hx, hy, rim / 2], physicsClientId=client
            )
            p.createMultiBody(0, shape, basePosition=[sx, sy, rim / 2], physicsClientId=client)
        for body in range(p.getNumBodies(physicsClientId=client)):
            p.changeDynamics(
                body, -1, lateralFriction=0.45, restitution=0.25, physicsClientId=client
            )
        corner_x = (1 if setup.chute_corner in (0, 3) else -1) * half_w * 0.7
        corner_y = (1 if setup.chute_corner in (0, 1) else -1) * half_d * 0.6
        bodies: list[tuple[int, str, float]] = []
        for colour in colours:
            size = CUBE_M * TO_CM * float(rng.normal(1.0, 0.02))
            shape = p.createCollisionShape(
                p.GEOM_BOX, halfExtents=[size / 2] * 3, physicsClientId=client
            )
            position = [
                corner_x + float(rng.normal(0, 0.8)),
                corner_y + float(rng.normal(0, 0.8)),
                rim + float(rng.uniform(1.0, 4.0)),
            ]
            body = p.createMultiBody(
                CUBE_GRAMS,
                shape,
                basePosition=position,
                baseOrientation=p.getQuaternionFromEuler(list(rng.uniform(0, 2 * math.pi, 3))),
                physicsClientId=client,
            )
            p.changeDynamics(
                body,
                -1,
                lateralFriction=float(rng.uniform(0.35, 0.6)),
                restitution=float(rng.uniform(0.15, 0.4)),
                rollingFriction=0.002,
                physicsClientId=client,
            )
            # Out of the chute towards the tray's middle, fast enough to scatter.
            speed = float(rng.uniform(10.0, 60.0))
            aim = math.atan2(-corner_y, -corner_x) + float(rng.normal(0, 0.6))
            p.resetBaseVelocity(
                body,
                [speed * math.cos(aim), speed * math.sin(aim), float(rng.uniform(-20, 0))],
                list(rng.normal(0, 20, 3)),
                physicsClientId=client,
            )
            bodies.append((body, colour, size))
            for _ in range(int(rng.integers(20, 120))):
                p.stepSimulation(physicsClientId=client)
        for _ in range(2400):
            p.stepSimulation(physicsClientId=client)
        resting = []
        for body, colour, size in bodies:
            (x, y, z), q = p.getBasePositionAndOrientation(body, physicsClientId=client)
            if abs(x) > half_w or abs(y) > half_d or z < 0:
                continue
            resting.append(
                Resting(colour, x / TO_CM, y / TO_CM, z / TO_CM, tuple(q), size / TO_CM)  # type: ignore[arg-type]
            )
        return resting
    finally:
        p.disconnect(physicsClientId=client)


def spread(setup: SetUp, colours: list[str], seed: int) -> list[Resting]:
    """The cubes of a drop as players leave them once they have spread a heap apart by hand:
    one layer, each flat on the floor and clear of the wall, in rows and columns no tidier
    than hands make them (each cube anywhere in its own cell, turned as far as the cell lets
    it, the cells taken at random).

    Raises ValueError when the tray cannot hold them in one layer.
    """
    rng = np.random.default_rng([setup.seed, seed, 11])
    margin = 0.7 * CUBE_M
    width, depth = setup.width - 2 * margin, setup.depth - 2 * margin
    n = len(colours)
    # The widest cells that give every cube one of its own.
    cols = max(range(1, n + 1), key=lambda c: min(width / c, depth / math.ceil(n / c)))
    rows = math.ceil(n / cols)
    cell = min(width / cols, depth / rows)
    cubes = []
    for colour, taken in zip(colours, rng.permutation(cols * rows)[:n], strict=False):
        size = CUBE_M * float(rng.normal(1.0, 0.02))
        if size * 1.02 > cell:
            raise ValueError(f"{n} cubes do not lie in one layer in a {setup.width} m tray")
        # A square turned by t spans size (cos t + sin t) along each axis of its cell.
        reach = min(1.0, cell * 0.98 / (size * math.sqrt(2)))
        turn = float(rng.uniform(-1, 1)) * max(0.0, math.asin(reach) - math.pi / 4)
        span = size * (math.cos(turn) + abs(math.sin(turn)))
        room = max(0.0, (cell - span) / 2)
        x = (int(taken) % cols + 0.5) * cell - cols * cell / 2 + float(rng.uniform(-room, room))
        y = (int(taken) // cols + 0.5) * cell - rows * cell / 2 + float(rng.uniform(-room, room))
        quaternion = (0.0, 0.0, math.sin(turn / 2), math.cos(turn / 2))
        cubes.append(Resting(colour, x, y, size / 2, quaternion, size))
    return cubes


def _floor_texture(setup: SetUp, path: Path) -> None:
    """The tray's print as an sRGB picture (1 px = 0.25 mm)."""
    rng = np.random.default_rng([setup.seed, 5])
    w, h = int(setup.width * 4000), int(setup.depth * 4000)
    linear = np.array(setup.floor_colours, np.float64)
    srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    image = np.zeros((h, w, 3), np.float64)
    image[:] = srgb[0]
    if setup.floor_kind == "blobs":
        for k in range(1, len(srgb)):
            noise = cv2.GaussianBlur(rng.normal(0, 1, (h, w)), (0, 0), 60)
            image[noise > np.quantile(noise, 0.6)] = srgb[k]
    elif setup.floor_kind == "checks":
        step = int(rng.integers(40, 120))
        ys, xs = np.indices((h, w))
        image[((xs // step + ys // step) % 2).astype(bool)] = srgb[1]
    elif setup.floor_kind == "stripes":
        step = int(rng.integers(30, 100))
        ys, xs = np.indices((h, w))
        for k in range(1, len(srgb)):
            image[((xs + ys) // step) % len(srgb) == k] = srgb[k]
    image = cv2.GaussianBlur(image, (0, 0), 1.5)
    cv2.imwrite(str(path), np.clip(image[:, :, ::-1] * 255 + 0.5, 0, 255).astype(np.uint8))


def _camera(setup: SetUp) -> tuple[list[float], list[float]]:
    tilt, azimuth = math.radians(setup.tilt), math.radians(setup.tilt_azimuth)
    reach = setup.camera_height * math.tan(tilt)
    origin = [reach * math.cos(azimuth), reach * math.sin(azimuth), setup.camera_height]
    return origin, [0.0, 0.0, 0.0]


def render(setup: SetUp, cubes: list[Resting], folder: Path) -> NDArray[np.float32]:
    """The scene in linear RGB (H x W x 3), 800 x 600, before the camera's processing."""
    import mitsuba as mi

    mi.set_variant("scalar_rgb")
    from mitsuba import ScalarTransform4f as T

    texture = folder / "floor.png"
    if not texture.exists():
        _floor_texture(setup, texture)
    lamp = kelvin_rgb(setup.lamp_kelvin)
    sky = kelvin_rgb(setup.ambient_kelvin)
    elevation, azimuth = math.radians(setup.lamp_elevation), math.radians(setup.lamp_azimuth)
    centre = [
        setup.lamp_distance * math.cos(elevation) * math.cos(azimuth),
        setup.lamp_distance * math.cos(elevation) * math.sin(azimuth),
        setup.lamp_distance * math.sin(elevation),
    ]
    # The lamp's radiance gives about the same light on the tray whatever its size and
    # distance (irradiance ~ radiance x solid angle).
    solid = math.pi * setup.lamp_radius**2 / setup.lamp_distance**2
    radiance = (1.0 / solid) * lamp
    origin, target = _camera(setup)
    half_w, half_d, rim, wall = setup.width / 2, setup.depth / 2, setup.rim, 0.003
    scene: dict[str, object] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 5},
        "sensor": {
            "type": "perspective",
            "fov": setup.fov,
            "fov_axis": "x",
            "to_world": T().look_at(origin=origin, target=target, up=[0, 1, 0]),
            "film": {"type": "hdrfilm", "width": 800, "height": 600},
            "sampler": {"type": "independent", "sample_count": setup.samples, "seed": 0},
        },
        "lamp": {
            "type": "sphere",
            "center": centre,
            "radius": setup.lamp_radius,
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": radiance.tolist()}},
        },
        "room": {
            "type": "constant",
            "radiance": {"type": "rgb", "value": (setup.ambient * sky / math.pi).tolist()},
        },
        "table": {
            "type": "rectangle",
            "to_world": T().translate([0, 0, -0.0005]),
            "bsdf": {
                "type": "roughplastic",
                "alpha": 0.3,
                "diffuse_reflectance": {"type": "rgb", "value": list(setup.table_colour)},
            },
        },
        "floor": {
            "type": "rectangle",
            "to_world": T().translate([0, 0, 0.0001]).scale([half_w, half_d, 1.0]),
            "bsdf": {
                "type": "diffuse",
                "reflectance": {"type": "bitmap", "filename": str(texture)},
            },
        },
    }
    walls = (
        ([half_w + wall / 2, 0, rim / 2], [wall / 2, half_d + wall, rim / 2]),
        ([-half_w - wall / 2, 0, rim / 2], [wall / 2, half_d + wall, rim / 2]),
        ([0, half_d + wall / 2, rim / 2], [half_w + wall, wall / 2, rim / 2]),
        ([0, -half_d - wall / 2, rim / 2], [half_w + wall, wall / 2, rim / 2]),
    )
    for number, (where, half) in enumerate(walls):
        scene[f"wall{number}"] = {
            "type": "cube",
            "to_world": T().translate(where).scale(half),
            "bsdf": {
                "type": "roughplastic",
                "alpha": 0.4,
                "diffuse_reflectance": {"type": "rgb", "value": list(setup.wall_colour)},
            },
        }
    rng = np.random.default_rng([setup.seed, len(cubes), 3])
    for number, cube in enumerate(cubes):
        x, y, z, w = cube.quaternion
        rotation = _quaternion_matrix(x, y, z, w)
        matrix = np.eye(4)
        matrix[:3, :3] = rotation * (cube.size / 2)
        matrix[:3, 3] = [cube.x, cube.y, cube.z]
        albedo = np.clip(np.array(ALBEDO[cube.colour]) * rng.normal(1.0, 0.04, 3), 0, 0.95)
        scene[f"cube{number}"] = {
            "type": "cube",
            "to_world": T(matrix.tolist()),
            "bsdf": {
                "type": "roughplastic",
                "distribution": "ggx",
                "alpha": float(rng.uniform(0.25, 0.5)),
                "diffuse_reflectance": {"type": "rgb", "value": albedo.tolist()},
            },
        }
    image = mi.render(mi.load_dict(scene))
    return np.asarray(image, np.float32)[:, :, :3]


def _quaternion_matrix(x: float, y: float, z: float, w: float) -> NDArray[np.float64]:
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def develop(setup: SetUp, linear: NDArray[np.float32], exposure: float, seed: int) -> bytes:
    """What the camera makes of the light: white balance (partly), exposure, defocus, sensor
    noise (shot and read), the sRGB curve; the JPEG file it writes."""
    rng = np.random.default_rng([setup.seed, seed, 11])
    lamp = kelvin_rgb(setup.lamp_kelvin)
    balance = (1.0 / lamp) ** setup.white_balance
    image = linear * (balance * exposure)[None, None, :].astype(np.float32)
    if setup.blur > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), setup.blur)
    shot = rng.normal(0.0, 1.0, image.shape).astype(np.float32) * np.sqrt(
        np.maximum(image, 0) * setup.noise * 0.05
    )
    read = rng.normal(0.0, setup.noise * 0.3, image.shape).astype(np.float32)
    image = np.clip(image + shot + read, 0.0, 1.0)
    srgb = np.where(image <= 0.0031308, 12.92 * image, 1.055 * image ** (1 / 2.4) - 0.055)
    bgr = np.clip(srgb[:, :, ::-1] * 255 + 0.5, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, setup.jpeg])
    if not ok:
        raise RuntimeError("OpenCV could not encode a JPEG")
    return bytes(data)


def exposure_for(linear: NDArray[np.float32], setup: SetUp) -> float:
    """The camera's exposure, fixed for the set-up from its empty-tray picture (a locked
    auto-exposure): the brightest twentieth of it at 0.75 of the range."""
    lamp = kelvin_rgb(setup.lamp_kelvin)
    balanced = linear * ((1.0 / lamp) ** setup.white_balance)[None, None, :]
    level = float(np.quantile(balanced.max(axis=2), 0.95))
    return 0.75 / max(level, 1e-6)


def picture_points(setup: SetUp, points: NDArray[np.float64]) -> NDArray[np.float64]:
    """World points (N x 3, metres) to picture pixels (N x 2), as the sensor sees them."""
    origin, target = (np.array(point, np.float64) for point in _camera(setup))
    forward = target - origin
    forward /= np.linalg.norm(forward)
    # Mitsuba's look_at: left = up x forward; the picture's x grows to the right.
    left = np.cross([0.0, 1.0, 0.0], forward)
    left /= np.linalg.norm(left)
    up = np.cross(forward, left)
    local = points - origin
    xs, ys, zs = local @ -left, local @ up, local @ forward
    focal = 400.0 / math.tan(math.radians(setup.fov) / 2)
    return np.stack([400.0 + focal * xs / zs, 300.0 - focal * ys / zs], axis=1)


def floor_outline(setup: SetUp) -> NDArray[np.float64]:
    """The tray floor's corners (4 x 2, picture pixels), where it meets the inner walls:
    top-left, top-right, bottom-right, bottom-left as the picture shows them."""
    half_w, half_d = setup.width / 2, setup.depth / 2
    corners = np.array(
        [
            [-half_w, -half_d, 0.0],
            [half_w, -half_d, 0.0],
            [half_w, half_d, 0.0],
            [-half_w, half_d, 0.0],
        ]
    )
    # Ordered as calibration orders the outline it finds, corner for corner.
    shown = order_corners(picture_points(setup, corners).astype(np.float32))
    return np.array(shown, np.float64)


def truth(setup: SetUp, cubes: list[Resting]) -> dict[str, object]:
    """What lies in the tray: counts, and each cube's picture position and how it lies (on
    the floor, or on another cube: its centre more than 0.7 sides up; and whether another
    rests on it)."""
    centres = np.array([[c.x, c.y, c.z] for c in cubes], np.float64).reshape(-1, 3)
    shown = picture_points(setup, centres)
    items = []
    for number, cube in enumerate(cubes):
        raised = cube.z > 0.7 * cube.size + 0.0005
        covered = any(
            other.z > cube.z + 0.5 * cube.size
            and math.hypot(other.x - cube.x, other.y - cube.y) < 1.2 * cube.size
            for other in cubes
        )
        items.append(
            {
                "colour": cube.colour,
                "x": round(float(shown[number, 0]), 1),
                "y": round(float(shown[number, 1]), 1),
                "on_another": bool(raised),
                "under_another": bool(covered),
            }
        )
    counts = {colour.value: sum(1 for c in cubes if c.colour == colour.value) for colour in COLOURS}
    return {"counts": counts, "cubes": items}


def make_setup(seed: int, folder: Path, drops: int, samples: int = 32) -> None:
    """Render one set-up into `folder`: calibration pictures and `drops` drops with truth."""
    setup = SetUp.random(seed, samples)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "setup.json").write_text(json.dumps(asdict(setup), indent=1))
    rng = np.random.default_rng([seed, 99])
    calibration = folder / "calibration"
    calibration.mkdir(exist_ok=True)
    empty = render(setup, [], folder)
    exposure = exposure_for(empty, setup)
    (calibration / "empty.jpg").write_bytes(develop(setup, empty, exposure, 0))
    record: dict[str, object] = {}
    for number, colour in enumerate(COLOURS):
        cubes = drop(setup, [colour.value] * int(rng.integers(3, 7)), 100 + number)
        picture = develop(setup, render(setup, cubes, folder), exposure, 100 + number)
        (calibration / f"{colour.value}.jpg").write_bytes(picture)
    for number in range(drops):
        many = rng.random() < 0.1
        total = int(rng.integers(30, 45)) if many else int(rng.integers(1, 16))
        colours = [COLOURS[int(k)].value for k in rng.integers(0, 7, total)]
        cubes = drop(setup, colours, number)
        picture = develop(setup, render(setup, cubes, folder), exposure, number)
        name = f"drop{number:02d}.jpg"
        (folder / name).write_bytes(picture)
        record[name] = truth(setup, cubes)
    (folder / "truth.json").write_text(json.dumps(record, indent=1))
