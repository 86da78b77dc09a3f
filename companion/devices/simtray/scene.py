"""What one simulated tray picture shows: a frozen description, drawn at random per condition.

A `SetUp` is everything fixed for one camera on one table (camera pose and lens, room light,
the tray and its print, the table, white balance). A `TrayScene` is one picture under a set-up:
which cubes, how they lie, and how the camera captured it (exposure, noise, blur, JPEG).
Calibration happens per set-up, so pictures meant to be counted with one calibration share
their `SetUp`.

All lengths are millimetres, angles degrees, colour temperatures kelvin, sizes pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Colour, Counts
from companion.devices.simtray.colour import SKIN_SRGB

PrintKind = Literal["plain", "gradient", "pattern", "texture", "colourful"]
TableKind = Literal["wood", "cloth", "noise"]
RGB8 = tuple[int, int, int]

CONDITIONS: tuple[str, ...] = (
    "any",
    "neutral",
    "warm",
    "daylight",
    "tilted",
    "clustered",
    "setup-drop",
    "noisy",
    "blurred",
    "empty",
    "colourful",
    "hand",
    "no-tray",
    "dark",
    "bumped",
    "hard-pairs",
)
"""Condition names `TrayScene.random` accepts. "any" draws every parameter over its full range;
each other name pins one aspect to its hard end and draws the rest as "any" does:
warm 2700-3200 K, daylight 5800-6500 K, neutral 3800-5200 K, tilted 15-20 degrees off
vertical, clustered (cubes touching in heaps, some leaning or stacked), setup-drop (30-49
cubes), noisy (high gain noise and JPEG quality 60-70), blurred (defocus and shake), empty
(no cube), colourful (a many-coloured tray print), hand (a hand reaching into view),
no-tray (a picture of something else), dark (lens covered or lamp off: a nearly black frame),
bumped (under a given set-up: the camera knocked a little since, moved 4-12 mm and turned up
to 3 degrees, so the tray is no longer where calibration saw it), hard-pairs (only black,
brown, red, white and yellow cubes, 4-12 of them, under warm 2700-3500 K light)."""


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is and what lens it has, relative to the tray floor's centre.

    The camera looks at (target_x_mm, target_y_mm) on the floor from `height_mm` above it,
    displaced `tilt_deg` off vertical towards `tilt_azimuth_deg` (0 = +x, the picture's right);
    `yaw_deg` turns the picture about the optical axis; `hfov_deg` is the horizontal field of
    view (widened if the whole tray would not fit in the picture, unless `lens_fixed`: a
    camera knocked after calibration keeps its lens); `distortion_k1` is the lens's radial
    distortion (0 none, about -0.08 a cheap webcam's barrel).
    """

    height_mm: float
    tilt_deg: float
    tilt_azimuth_deg: float
    yaw_deg: float
    hfov_deg: float
    target_x_mm: float = 0.0
    target_y_mm: float = 0.0
    distortion_k1: float = 0.0
    lens_fixed: bool = False


@dataclass(frozen=True)
class Light:
    """The room: one main lamp (point light, or the sun through a window when distance is inf;
    in some set-ups the product's LED ring at the camera) and a diffuse fill. `ambient` is the
    fill's strength relative to the lamp on the floor."""

    kelvin: float
    azimuth_deg: float
    elevation_deg: float
    distance_mm: float
    size_mm: float
    ambient: float
    ambient_kelvin: float


@dataclass(frozen=True)
class TrayLook:
    """The tray: inner floor size, rim height, wall thickness, its printed surfaces (sRGB),
    and `specks` of dust, crumbs or lint on the floor (none to a dozen, 0.5-2.5 mm)."""

    width_mm: float
    depth_mm: float
    rim_height_mm: float
    wall_mm: float
    print_kind: PrintKind
    print_colours: tuple[RGB8, ...]
    wall_colour: RGB8
    rim_colour: RGB8
    gloss: float
    texture_seed: int
    specks: int = 0


@dataclass(frozen=True)
class TableLook:
    """The table around the tray (sRGB colours)."""

    kind: TableKind
    colours: tuple[RGB8, ...]
    texture_seed: int


@dataclass(frozen=True)
class SetUp:
    """Everything fixed for one camera on one table; pictures that share it share a calibration.

    `white_balance` is how far the camera corrects the light's colour (0 none, 1 fully);
    `vignetting` is the relative darkening at the picture's corners; `has_tray` is False for
    pictures of something else; `chromatic_px` is the lens's lateral colour fringe at the
    picture's corners (red and blue images shifted that many pixels apart).
    """

    camera: CameraPose
    light: Light
    tray: TrayLook
    table: TableLook
    image_size: tuple[int, int]
    white_balance: float
    vignetting: float
    has_tray: bool = True
    seed: int = 0
    chromatic_px: float = 0.0

    @classmethod
    def random(cls, seed: int, condition: str = "any") -> SetUp:
        """A set-up drawn at random for `condition` (see CONDITIONS); the same seed gives the
        same set-up."""
        _check_condition(condition)
        rng = np.random.default_rng([seed, 1])
        sizes = ((800, 600), (800, 600), (1280, 720), (640, 480), (1024, 768))
        image_size = sizes[int(rng.integers(len(sizes)))]
        tilt = rng.uniform(15.0, 20.0) if condition == "tilted" else rng.uniform(0.0, 20.0)
        camera = CameraPose(
            height_mm=float(rng.uniform(150.0, 300.0)),
            tilt_deg=float(tilt),
            tilt_azimuth_deg=float(rng.uniform(0.0, 360.0)),
            yaw_deg=float(rng.normal(0.0, 5.0)),
            hfov_deg=float(rng.uniform(50.0, 72.0)),
            target_x_mm=float(rng.normal(0.0, 6.0)),
            target_y_mm=float(rng.normal(0.0, 6.0)),
            distortion_k1=float(rng.uniform(-0.08, 0.0)),
        )
        kelvin_range = {
            "warm": (2700.0, 3200.0),
            "hard-pairs": (2700.0, 3500.0),
            "daylight": (5800.0, 6500.0),
            "neutral": (3800.0, 5200.0),
        }.get(condition, (2700.0, 6500.0))
        kelvin = float(rng.uniform(*kelvin_range))
        directional = rng.random() < 0.2
        light = Light(
            kelvin=kelvin,
            azimuth_deg=float(rng.uniform(0.0, 360.0)),
            elevation_deg=float(rng.uniform(35.0, 85.0)),
            distance_mm=math.inf if directional else float(rng.uniform(350.0, 1600.0)),
            size_mm=float(rng.uniform(5.0, 120.0)),
            # Indoors, light bounced off walls and ceiling keeps shadows at a third to two
            # thirds of the lit level.
            ambient=float(rng.uniform(0.3, 0.8)),
            ambient_kelvin=float(np.clip(kelvin + rng.normal(0.0, 600.0), 2500.0, 7500.0)),
        )
        tray = _random_tray(rng, condition)
        table = _random_table(rng)
        # Later additions draw from their own stream, so earlier set-ups stay as they were.
        more = np.random.default_rng([seed, 6])
        if more.random() < 0.3:
            # A window or a big shade: a broad source and soft shadows.
            light = replace(light, size_mm=float(more.uniform(120.0, 450.0)))
        if more.random() < 0.5:
            tray = replace(tray, specks=int(more.integers(1, 12)))
        if more.random() < 0.25:
            # The product's own LED ring around the lens: light from the camera's position,
            # highlights on every cube's top, short shadows hidden behind the cubes.
            light = replace(
                light,
                azimuth_deg=camera.tilt_azimuth_deg,
                elevation_deg=90.0 - camera.tilt_deg,
                distance_mm=camera.height_mm / math.cos(math.radians(camera.tilt_deg)) + 5.0,
                size_mm=float(more.uniform(40.0, 90.0)),
                ambient=float(more.uniform(0.15, 0.45)),
            )
        return cls(
            camera=camera,
            light=light,
            tray=tray,
            table=table,
            image_size=image_size,
            white_balance=float(rng.uniform(0.0, 0.85)),
            vignetting=float(rng.uniform(0.05, 0.4)),
            has_tray=condition != "no-tray",
            seed=seed,
            chromatic_px=float(more.uniform(0.0, 1.2)),
        )


@dataclass(frozen=True)
class Capture:
    """How the camera took one picture.

    `exposure_ev` shifts exposure from the auto level; `noise` scales sensor noise (0 clean,
    1 a cheap webcam at high gain); `defocus_px` is the optical blur's sigma; `motion_px` and
    `motion_angle_deg` describe camera shake; `jpeg_quality` is 60-95 as webcams use;
    `sharpen` is the camera's own unsharp-mask strength.
    """

    exposure_ev: float
    noise: float
    defocus_px: float
    motion_px: float
    motion_angle_deg: float
    jpeg_quality: int
    sharpen: float

    @classmethod
    def random(cls, seed: int, condition: str = "any") -> Capture:
        """Capture settings drawn at random for `condition`."""
        _check_condition(condition)
        rng = np.random.default_rng([seed, 2])
        noisy = condition == "noisy"
        blurred = condition == "blurred"
        return cls(
            exposure_ev=float(-7.0 if condition == "dark" else rng.normal(0.0, 0.3)),
            noise=float(rng.uniform(0.6, 1.0) if noisy else rng.uniform(0.05, 0.5)),
            defocus_px=float(rng.uniform(1.4, 2.4) if blurred else rng.uniform(0.5, 1.1)),
            motion_px=float(rng.uniform(1.5, 4.0) if blurred else rng.uniform(0.0, 0.8)),
            motion_angle_deg=float(rng.uniform(0.0, 180.0)),
            jpeg_quality=int(rng.integers(60, 71) if noisy else rng.integers(60, 96)),
            sharpen=float(rng.uniform(0.0, 0.6)),
        )


@dataclass(frozen=True)
class Arrangement:
    """How cubes lie: the chance a cube lands touching another (`cluster_tendency`), leans on
    a neighbour or the rim (`lean_fraction`), lies on top of another (`stack_fraction`) or
    against the rim (`rim_fraction`); the cube edge `size_mm` and its per-cube spread."""

    cluster_tendency: float
    lean_fraction: float
    stack_fraction: float
    rim_fraction: float
    size_mm: float = 9.0
    size_jitter_mm: float = 0.25

    @classmethod
    def random(cls, seed: int, condition: str = "any") -> Arrangement:
        """An arrangement drawn at random for `condition`."""
        _check_condition(condition)
        rng = np.random.default_rng([seed, 3])
        clustered = condition in ("clustered", "setup-drop")
        return cls(
            cluster_tendency=float(rng.uniform(0.7, 0.95) if clustered else rng.uniform(0.1, 0.6)),
            lean_fraction=float(rng.uniform(0.05, 0.15) if clustered else rng.uniform(0.0, 0.06)),
            stack_fraction=float(rng.uniform(0.03, 0.1) if clustered else rng.uniform(0.0, 0.04)),
            rim_fraction=float(rng.uniform(0.05, 0.25)),
            size_mm=float(rng.uniform(8.6, 9.4)),
            size_jitter_mm=float(rng.uniform(0.1, 0.3)),
        )


@dataclass(frozen=True)
class HandPose:
    """A hand reaching into the picture from `side` (0 left, 1 top, 2 right, 3 bottom of the
    picture), `reach` of the way across it (0..1), at `angle_deg` from straight in, `height_mm`
    above the floor, with a skin tone (sRGB) and, when `sleeve` is set, a sleeve of that
    colour (sRGB) over the forearm."""

    side: int
    reach: float
    angle_deg: float
    offset: float
    height_mm: float
    skin: RGB8
    sleeve: RGB8 | None = None

    @classmethod
    def random(cls, seed: int) -> HandPose:
        """A hand pose drawn at random."""
        rng = np.random.default_rng([seed, 4])
        return cls(
            side=int(rng.integers(4)),
            reach=float(rng.uniform(0.25, 0.7)),
            angle_deg=float(rng.normal(0.0, 18.0)),
            offset=float(rng.uniform(0.25, 0.75)),
            height_mm=float(rng.uniform(25.0, 90.0)),
            skin=SKIN_SRGB[int(rng.integers(len(SKIN_SRGB)))],
            sleeve=_sleeve(np.random.default_rng([seed, 4, 1])),
        )


@dataclass(frozen=True)
class TrayScene:
    """One simulated picture of the tray with known truth. Frozen; render with `render()`.

    `counts` is exactly what lies in the tray; `seed` fixes where each cube lies and the
    sensor noise; `condition` names what `random` was asked for.
    """

    seed: int
    counts: Counts
    setup: SetUp
    capture: Capture
    arrangement: Arrangement
    hand: HandPose | None = None
    condition: str = "any"

    def __post_init__(self) -> None:
        if self.counts.total > 60:
            raise ValueError(f"at most 60 cubes fit a tray picture, asked for {self.counts.total}")

    def knocked(self, seed: int) -> TrayScene:
        """This scene with its camera knocked before the shot, the cubes where they lay: the
        knock `random` draws for "bumped" from `seed` (moved 4-12 mm, turned 1-3 degrees)."""
        return replace(self, setup=_bumped(self.setup, np.random.default_rng([seed, 5])))

    @classmethod
    def random(
        cls,
        seed: int,
        condition: str = "any",
        *,
        counts: Counts | None = None,
        setup: SetUp | None = None,
        image_size: tuple[int, int] | None = None,
    ) -> TrayScene:
        """A scene drawn at random for `condition` (one of CONDITIONS).

        `counts` fixes what lies in the tray (otherwise drawn: most drops 1-15 cubes, the
        set-up drop 30-49, never more than 7 of a colour); `setup` fixes the camera, light and
        tray (otherwise drawn from the same seed); `image_size` (width, height) in pixels
        overrides the set-up's picture size.
        """
        _check_condition(condition)
        rng = np.random.default_rng([seed, 5])
        if setup is None:
            setup = SetUp.random(seed, condition)
        elif condition == "no-tray" and setup.has_tray:
            # Something else in front of the same camera, under the same light.
            setup = replace(setup, has_tray=False)
        if condition == "bumped":
            setup = _bumped(setup, rng)
        if image_size is not None:
            width, height = image_size
            if not (16 <= width <= 8192 and 16 <= height <= 8192):
                raise ValueError(f"picture size must be 16-8192 pixels a side, got {image_size}")
            setup = replace(setup, image_size=(int(width), int(height)))
        if counts is None:
            counts = random_counts(rng, condition)
        hand = HandPose.random(seed) if condition == "hand" else None
        return cls(
            seed=seed,
            counts=counts,
            setup=setup,
            capture=Capture.random(seed, condition),
            arrangement=Arrangement.random(seed, condition),
            hand=hand,
            condition=condition,
        )

    def with_counts(self, counts: Counts, seed: int | None = None) -> TrayScene:
        """The same set-up and capture with other cubes (and optionally another layout seed)."""
        return replace(self, counts=counts, seed=self.seed if seed is None else seed)

    def spread_apart(self, seed: int) -> TrayScene:
        """The same cubes as a hand leaves them when it spreads a heap for the camera: laid
        out afresh from `seed` in one layer, none drawn to another, leaning or on top."""
        flat = replace(
            self.arrangement, cluster_tendency=0.0, lean_fraction=0.0, stack_fraction=0.0
        )
        return replace(self, arrangement=flat, seed=seed)

    # Convenience views of the conditions, so callers need not know the nesting.
    @property
    def image_size(self) -> tuple[int, int]:
        """(width, height) of the picture in pixels."""
        return self.setup.image_size

    @property
    def light_kelvin(self) -> float:
        """The main light's colour temperature in kelvin."""
        return self.setup.light.kelvin

    @property
    def jpeg_quality(self) -> int:
        """JPEG quality the camera used (60-95)."""
        return self.capture.jpeg_quality


def _sleeve(rng: np.random.Generator) -> RGB8 | None:
    """Half the time a sleeve over the forearm, in any colour clothes come in."""
    if rng.random() < 0.5:
        return None
    clothes = (
        (40, 50, 80),
        (90, 90, 95),
        (25, 25, 28),
        (225, 225, 220),
        (150, 40, 45),
        (60, 100, 60),
        (70, 95, 140),
        (190, 170, 140),
        (120, 60, 110),
        (200, 120, 50),
    )
    return _jitter(rng, clothes[int(rng.integers(len(clothes)))], 15.0)


def _bumped(setup: SetUp, rng: np.random.Generator) -> SetUp:
    """`setup` with its camera knocked: moved 4-12 mm across the tray and turned 1-3 degrees,
    with the lens it had (the field of view the set-up's camera was widened to, if it was:
    a knock does not zoom, though the tray may then reach the picture's edge)."""
    # Imported here: both modules build on this one's set-ups.
    from companion.devices.simtray.backdrop import tray_points
    from companion.devices.simtray.camera import camera_for

    lens = camera_for(setup.camera, setup.image_size, tray_points(setup.tray))
    hfov = math.degrees(2.0 * math.atan(setup.image_size[0] / 2.0 / lens.focal_px))
    angle = rng.uniform(0.0, 2 * math.pi)
    shift = rng.uniform(4.0, 12.0)
    camera = replace(
        setup.camera,
        hfov_deg=hfov,
        lens_fixed=True,
        target_x_mm=setup.camera.target_x_mm + shift * math.cos(angle),
        target_y_mm=setup.camera.target_y_mm + shift * math.sin(angle),
        yaw_deg=setup.camera.yaw_deg + float(rng.choice([-1.0, 1.0]) * rng.uniform(1.0, 3.0)),
    )
    return replace(setup, camera=camera)


def random_counts(rng: np.random.Generator, condition: str) -> Counts:
    """Cube counts as drops give them: most drops 1-15 cubes, the set-up drop 30-49, none for
    "empty" and "no-tray"; never more than 7 of one colour."""
    if condition in ("empty", "no-tray", "dark"):
        return Counts()
    total = int(rng.integers(30, 50)) if condition == "setup-drop" else _drop_size(rng)
    if condition == "clustered":
        # A cluster needs cubes to touch: at least a handful.
        total = max(total, 5)
    colours = np.arange(len(COLOURS))
    if condition == "hard-pairs":
        total = int(rng.integers(4, 13))
        hard = (Colour.BLACK, Colour.BROWN, Colour.RED, Colour.WHITE, Colour.YELLOW)
        colours = np.array([c.position for c in hard])
    # Draw cubes without replacement from the box, like the tower releases them.
    pool = np.repeat(colours, CUBES_PER_COLOUR)
    chosen = rng.choice(pool, size=total, replace=False)
    return Counts.from_tuple([int(np.sum(chosen == i)) for i in range(len(COLOURS))])


def _drop_size(rng: np.random.Generator) -> int:
    # Mostly small drops, a few bigger ones; an empty tray one time in twenty.
    if rng.random() < 0.05:
        return 0
    return int(np.clip(round(rng.gamma(2.2, 3.2)), 1, 20))


def _check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; choose one of {', '.join(CONDITIONS)}")


_PRINT_PALETTE: tuple[RGB8, ...] = (
    (201, 182, 146),  # parchment
    (92, 134, 160),  # sea blue
    (60, 92, 120),  # deep sea
    (176, 150, 112),  # cardboard
    (124, 146, 96),  # meadow
    (210, 196, 168),  # pale sand
    (140, 110, 90),  # dark cardboard
    (70, 70, 74),  # charcoal
    (228, 222, 206),  # off-white
    (150, 60, 50),  # brick
    (190, 150, 60),  # ochre
    (40, 96, 70),  # bottle green
)

_VIVID_PALETTE: tuple[RGB8, ...] = (
    (200, 40, 40),
    (40, 80, 170),
    (40, 140, 70),
    (235, 200, 50),
    (120, 70, 40),
    (240, 240, 235),
    (30, 30, 30),
    (200, 120, 40),
    (130, 60, 140),
    (90, 170, 200),
)


def _pick(rng: np.random.Generator, palette: tuple[RGB8, ...], n: int) -> tuple[RGB8, ...]:
    picks = rng.choice(len(palette), size=n, replace=False)
    return tuple(_jitter(rng, palette[int(i)]) for i in picks)


def _jitter(rng: np.random.Generator, rgb: RGB8, amount: float = 14.0) -> RGB8:
    values = np.clip(np.asarray(rgb, dtype=np.float64) + rng.normal(0.0, amount, 3), 0, 255)
    return (int(values[0]), int(values[1]), int(values[2]))


def _random_tray(rng: np.random.Generator, condition: str) -> TrayLook:
    if condition == "colourful":
        kind: PrintKind = "colourful"
    else:
        kinds: tuple[PrintKind, ...] = ("plain", "gradient", "pattern", "texture", "colourful")
        kind = kinds[int(rng.choice(5, p=[0.3, 0.2, 0.2, 0.22, 0.08]))]
    palette = _VIVID_PALETTE if kind == "colourful" else _PRINT_PALETTE
    colours = _pick(rng, palette, 4 if kind == "colourful" else 2)
    wall = _jitter(rng, _PRINT_PALETTE[int(rng.integers(len(_PRINT_PALETTE)))])
    return TrayLook(
        width_mm=float(rng.uniform(120.0, 170.0)),
        depth_mm=float(rng.uniform(85.0, 120.0)),
        rim_height_mm=float(rng.uniform(10.0, 24.0)),
        wall_mm=float(rng.uniform(2.0, 4.0)),
        print_kind=kind,
        print_colours=colours,
        wall_colour=wall,
        rim_colour=_jitter(rng, wall, 25.0),
        gloss=float(rng.choice([0.0, 0.01, 0.03], p=[0.5, 0.3, 0.2])),
        texture_seed=int(rng.integers(1 << 30)),
    )


def _random_table(rng: np.random.Generator) -> TableLook:
    kinds: tuple[TableKind, ...] = ("wood", "cloth", "noise")
    kind = kinds[int(rng.choice(3, p=[0.5, 0.3, 0.2]))]
    if kind == "wood":
        base = ((150, 100, 60), (190, 150, 105), (110, 70, 45), (205, 180, 140))
        light = _jitter(rng, base[int(rng.integers(len(base)))], 10.0)
        dark = tuple(int(c * rng.uniform(0.55, 0.8)) for c in light)
        colours: tuple[RGB8, ...] = (light, (dark[0], dark[1], dark[2]))
    elif kind == "cloth":
        cloth = ((40, 90, 50), (60, 60, 110), (120, 40, 40), (200, 200, 195), (50, 50, 55))
        colours = (_jitter(rng, cloth[int(rng.integers(len(cloth)))], 12.0),)
    else:
        colours = _pick(rng, _PRINT_PALETTE + _VIVID_PALETTE[:4], 3)
    return TableLook(kind=kind, colours=colours, texture_seed=int(rng.integers(1 << 30)))
