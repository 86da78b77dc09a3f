"""The calibration profile: where the tray is and what each cube colour looks like, as JSON.

The format is documented field by field in docs/profile.md. A profile belongs to one camera
set-up (position, picture size and light); pictures from another set-up need a new one.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from companion.core.cubes import COLOURS, Colour
from companion.vision.camouflage import floor_shares
from companion.vision.corners import Corners
from companion.vision.errors import ProfileError
from companion.vision.heap import keep_working_memory
from companion.vision.images import BGRImage
from companion.vision.overhead import Overhead, camera_over
from companion.vision.realign import grey, shrunk
from companion.vision.segment import Reference, gradient
from companion.vision.shadow import ShadowLine
from companion.vision.tray_view import TrayView

PROFILE_VERSION = 1
# Resolution of the noise map: steps per CIE76 unit (so up to 255 / 8 = 32 units).
NOISE_MAP_STEPS = 8

Triple = tuple[float, float, float]


class ColourModel(BaseModel):
    """How one cube colour looks in this set-up, in CIE Lab of the light-normalised view."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mean: Triple = Field(description="Mean (L, a, b) of the cubes' inner pixels.")
    covariance: tuple[Triple, Triple, Triple] = Field(
        description="3x3 covariance of (L, a, b) over those pixels, shading included."
    )
    cube_area: float = Field(
        gt=0, description="Evidence one lone lying cube gives when counted (pixel weights summed)."
    )
    cubes_seen: int = Field(ge=1, description="Cubes in the calibration picture of this colour.")
    clipped: bool = Field(
        default=False,
        description="The camera clipped most of these cubes' pixels in their calibration "
        "picture: the colour is known only roughly and judged with a wider tolerance.",
    )


class ShadowModel(BaseModel):
    """What a shadow does to the tray here: in linear light, a shadowed pixel over the empty
    tray is `1 - t * direction` per channel (B, G, R), t up to `deepest`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    direction: Triple = Field(description="Unit vector of the light a shadow takes away, B G R.")
    deepest: float = Field(gt=0, description="Deepest shadow seen at calibration (length of t).")
    spread: float = Field(ge=0, description="Angle (radians) of shadow pixels around direction.")
    area: float = Field(
        default=0.0,
        ge=0,
        description="Shade one lone lying cube leaves beside it that no cube colour claims "
        "when counted, view pixels.",
    )
    offset: tuple[float, float] = Field(
        default=(0.0, 0.0),
        description="Where a cube's shadow lies from the cube: its centre less the cube's, "
        "view pixels (x, y).",
    )


class Profile(BaseModel):
    """Everything `read_tray` needs for one camera set-up; JSON via `save` and `load`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[1] = Field(default=1, description="Format version.")
    picture_width: int = Field(gt=0, description="Width of the calibration pictures, pixels.")
    picture_height: int = Field(gt=0, description="Height of the calibration pictures, pixels.")
    tray_found: bool = Field(
        description="False when no tray outline was found and the whole picture is used."
    )
    tray_corners: tuple[
        tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]
    ] = Field(
        description="Tray outline in picture pixels: top-left, top-right, bottom-right, bottom-left."
    )
    view_width: int = Field(gt=0, description="Width of the top-down tray view, pixels.")
    view_height: int = Field(gt=0, description="Height of the top-down tray view, pixels.")
    cube_side: float = Field(gt=0, description="Side of a cube in the view, pixels.")
    lone_cube_area: float = Field(
        default=0.0,
        ge=0,
        description="Changed area one lone lying cube shows when counted (the square its "
        "colour covers, the shaded side faces, blurred edges; not its shadow), view pixels; "
        "0 when calibration saw no cube lying alone.",
    )
    noise: float = Field(ge=0, description="Typical colour difference between two shots, CIE76.")
    empty_view_png: str = Field(description="The empty tray in the view, PNG bytes in base64.")
    unstable_png: str = Field(
        default="",
        description="Pixels of the view that changed in most calibration pictures with no cube "
        "there (rim highlights, clipping): PNG mask in base64, ignored when counting.",
    )
    noise_map_png: str = Field(
        default="",
        description="Per view pixel, the colour difference (CIE76) it shows between shots with "
        "nothing on it (wall shade, print edges, dark noise): PNG in base64, "
        f"{NOISE_MAP_STEPS} steps per unit. Empty string: none.",
    )
    colours: dict[Colour, ColourModel] = Field(description="One model per cube colour, all seven.")
    moved_pictures: tuple[str, ...] = Field(
        default=(),
        description='Calibration pictures ("empty" and colour names) that showed the tray '
        "elsewhere than the last one, white (a knock on the camera or the tray while the "
        "cubes went in); they were lined up with it before learning.",
    )
    shadow: ShadowModel | None = Field(
        default=None,
        description="The set-up's shadow, learned from the calibration cubes' shadows; null when "
        "they cast too little to learn from (a generic shadow test is used then).",
    )

    _prepared: Prepared | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _all_colours(self) -> Profile:
        missing = [c.value for c in COLOURS if c not in self.colours]
        if missing:
            raise ValueError(f"colour models missing for {', '.join(missing)}")
        # (The wizard names each picture lined up: a name of no picture is a broken file.)
        pictures = ("empty", *(c.value for c in COLOURS))
        unknown = [name for name in self.moved_pictures if name not in pictures]
        if unknown:
            raise ValueError(f"moved_pictures names no calibration picture: {', '.join(unknown)}")
        return self

    @property
    def view(self) -> TrayView:
        """The perspective warp from picture pixels to the tray view."""
        corners: Corners = self.tray_corners
        return TrayView(corners=corners, width=self.view_width, height=self.view_height)

    def empty_view(self) -> BGRImage:
        """The empty tray as seen in the view."""
        data = base64.b64decode(self.empty_view_png)
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is None or image.shape[:2] != (self.view_height, self.view_width):
            raise ProfileError("the profile's empty-tray picture is damaged; calibrate again")
        result: BGRImage = np.asarray(image, np.uint8)
        return result

    def unstable(self) -> NDArray[np.bool_] | None:
        """The unstable-pixel mask of the view, or None when the profile has none."""
        mask = self._grey_view(self.unstable_png, "unstable-pixel mask")
        return None if mask is None else np.asarray(mask) > 0

    def noise_map(self) -> NDArray[np.float32] | None:
        """The per-pixel noise map of the view (CIE76 units), or None when the profile has none."""
        steps = self._grey_view(self.noise_map_png, "noise map")
        if steps is None:
            return None
        result: NDArray[np.float32] = np.asarray(steps, np.float32) / np.float32(NOISE_MAP_STEPS)
        return result

    def _grey_view(self, png: str, what: str) -> NDArray[np.uint8] | None:
        """A view-sized 8-bit grey picture stored as PNG in base64 (None when empty)."""
        if not png:
            return None
        data = base64.b64decode(png)
        grey = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
        if grey is None or grey.shape != (self.view_height, self.view_width):
            raise ProfileError(f"the profile's {what} is damaged; calibrate again")
        result: NDArray[np.uint8] = np.asarray(grey, np.uint8)
        return result

    def prepared(self) -> Prepared:
        """Arrays derived once from the profile for fast counting."""
        if self._prepared is None:
            self._prepared = Prepared.build(self)
        return self._prepared

    def save(self, path: str | Path) -> None:
        """Write the profile as JSON (overwrites)."""
        Path(path).write_text(self.model_dump_json(indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """Read a profile; ProfileError with a clear message when it cannot be used."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ProfileError(
                f"profile {file} does not exist; run `companion calibrate`"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise ProfileError(f"profile {file} cannot be read: {error}") from None
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise ProfileError(
                f"profile {file} is not JSON ({error.msg}, line {error.lineno})"
            ) from None
        if isinstance(raw, dict) and raw.get("version") != PROFILE_VERSION:
            raise ProfileError(
                f"profile {file} has format version {raw.get('version')!r}; this app reads "
                f"version {PROFILE_VERSION}: calibrate again"
            )
        try:
            profile = cls.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "profile"
            raise ProfileError(f"profile {file} is not valid: {where}: {first['msg']}") from None
        profile.empty_view()
        return profile


# Width of the band along the edge of what the camera shows, in cube sides.
EDGE_WIDTH = 0.3


class Prepared:
    """Derived arrays: the empty-tray reference and the inverse colour covariances."""

    def __init__(
        self,
        reference: Reference,
        means: np.ndarray[tuple[int, int], np.dtype[np.float32]],
        inverses: np.ndarray[tuple[int, int, int], np.dtype[np.float32]],
        areas: np.ndarray[tuple[int], np.dtype[np.float64]],
        seen: NDArray[np.bool_],
        clipped: NDArray[np.bool_],
        empty_grey: NDArray[np.float32],
        flicker: NDArray[np.bool_] | None,
        overhead: Overhead | None,
        shadow_offset: tuple[float, float],
    ) -> None:
        self.reference = reference
        self.means = means
        self.inverses = inverses
        self.clipped = clipped
        """Per colour: known only roughly (clipped at calibration)."""
        self.areas = areas
        self.seen = seen
        """View pixels that come from inside the picture."""
        self.empty_grey = empty_grey
        """The empty tray in grey, and shrunk, to tell whether the camera moved (realign)."""
        self.empty_small = shrunk(empty_grey)
        self.overhead = overhead
        """Where the camera is over the view, for a nominal lens."""
        self.shadow_offset = shadow_offset
        """Where a lone cube's shadow lies from it, view pixels (`ShadowModel.offset`)."""
        self.print_edges = gradient(np.ascontiguousarray(reference.lab[:, :, 0]))
        """The empty tray's lightness gradient (L units per pixel): its print's edges."""
        self.edge_width = max(2, round(reference.cube_side * EDGE_WIDTH))
        # The edge of what the camera shows: the view's own edge, or the picture's where the
        # view reaches beyond it.
        framed = np.zeros(seen.shape, np.uint8)
        framed[1:-1, 1:-1] = seen[1:-1, 1:-1]
        reach = 2 * self.edge_width - 1
        core = cv2.erode(framed, np.ones((reach, reach), np.uint8)).astype(np.bool_)
        self.edge: NDArray[np.intp] = np.flatnonzero(seen & ~core)
        """Flat indices of the view pixels in the band along that edge."""
        # The floor's own border shifts with the rim's edge between shots, and the unstable
        # pixels (`flicker`) change alike in most of them.
        floor = cv2.erode(reference.inside.astype(np.uint8), np.ones((3, 3), np.uint8))
        steady = floor.astype(np.bool_)
        if flicker is not None:
            steady &= ~flicker
        self.steady_floor: NDArray[np.bool_] = _shared(steady)
        """The floor less the pixels that change between shots with nothing there."""
        # (One array: the closer look warps them all at once, in about half the time of one
        # warp each.)
        planes = [reference.lab_low, reference.lab_high, steady.astype(np.float32)]
        planes.append(self.print_edges)
        if reference.linear is not None:
            planes.append(reference.linear)
        self.floor_planes = np.dstack(planes)
        """Per view pixel: the empty tray's Lab range (`Reference.lab_low`, then `lab_high`),
        1 on the steady floor and 0 elsewhere, the print's edges, and the empty tray in linear
        light (`Reference.linear`, B, G, R): eleven channels."""
        self.shade_paths = None if reference.shadow is None else reference.shadow.darkened(means)
        """Per colour, its look in ever deeper shade as this set-up's shadow tints it
        (`shadow.ShadowLine.darkened`); None where no shadow line was learned."""
        self.hiding = floor_shares(reference.lab[self.steady_floor], means)
        """Per colour: the share of that floor that looks like its cubes (camouflage)."""
        self._grown: dict[int, NDArray[np.bool_]] = {}

    def floor_grown(self, pixels: int) -> NDArray[np.bool_]:
        """The floor grown by `pixels` across (odd), worked out once: every reading asks."""
        if pixels not in self._grown:
            kernel = np.ones((pixels, pixels), np.uint8)
            grown = cv2.dilate(self.reference.inside.astype(np.uint8), kernel).astype(np.bool_)
            self._grown[pixels] = _shared(grown)
        return self._grown[pixels]

    @classmethod
    def build(cls, profile: Profile) -> Prepared:
        """Prepare the reference and the colour models of a profile."""
        # A prepared profile is for counting picture after picture.
        keep_working_memory()
        view = profile.view
        # A view pixel from beyond the picture's edge repeats the edge: whatever changes
        # there is no cube of this tray's.
        seen = view.seen(profile.picture_width, profile.picture_height)
        unstable = profile.unstable()
        empty = profile.empty_view()
        reference = Reference.prepare(
            empty,
            view.tray_mask() & seen,
            profile.cube_side,
            profile.noise,
            # Only what lies beyond the picture never counts. Where the set-up flickered
            # at calibration (a shaded band along a wall, a glint) the noise map asks a
            # change to stand out further: a cube there still does, and is counted.
            ~seen,
            profile.noise_map(),
            None
            if profile.shadow is None
            else ShadowLine(
                profile.shadow.direction, profile.shadow.deepest, profile.shadow.spread
            ),
            counting=True,
        )
        means = np.array([profile.colours[c].mean for c in COLOURS], np.float32)
        inverses = np.array(
            [np.linalg.inv(np.array(profile.colours[c].covariance)) for c in COLOURS], np.float32
        )
        areas = np.array([profile.colours[c].cube_area for c in COLOURS], np.float64)
        clipped = np.array([profile.colours[c].clipped for c in COLOURS], np.bool_)
        overhead = camera_over(view.homography, (profile.picture_width, profile.picture_height))
        offset = (0.0, 0.0) if profile.shadow is None else profile.shadow.offset
        return cls(
            reference,
            means,
            inverses,
            areas,
            seen,
            clipped,
            grey(empty),
            unstable,
            overhead,
            offset,
        )


def _shared(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """`mask` made read-only: every reading with the profile uses the same array."""
    mask.flags.writeable = False
    return mask


def encode_noise_map(noise: NDArray[np.float32]) -> str:
    """A per-pixel noise map (CIE76 units) as PNG in base64, NOISE_MAP_STEPS steps per unit."""
    steps = np.clip(np.round(noise * NOISE_MAP_STEPS), 0, 255).astype(np.uint8)
    return encode_png(steps)


def encode_png(image: BGRImage) -> str:
    """PNG bytes of a picture in base64 text, for the JSON profile."""
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ProfileError("could not encode the empty-tray picture")
    return base64.b64encode(data.tobytes()).decode("ascii")
