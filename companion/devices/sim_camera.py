"""The simulated camera: pictures of the simulated tower's tray, drawn by the tray renderer.

It shows what the tower has let out: after every landing, a short sequence of the cubes rolling
in, then the still tray with fresh sensor noise in every frame. When a hand spreads the tray's
cubes (the tower's `spread`), a hand passes over the tray and leaves the same cubes apart. A
CAMERA_LOST fault from the tower unplugs it (reads raise CameraLost, as a real camera's would);
a new SimulatedCamera on the same tower is the camera plugged back in, and it opens only once
the tower says so.
Without a tower it plays a demo on its own: a drop every few seconds.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.frames import (
    DEFAULT_TIMEOUT_S,
    CameraLost,
    Frame,
    FrameTimeout,
    Image,
    SourceUnavailable,
)
from companion.devices.simtower import (
    FaultEvent,
    FaultKind,
    SimulatedTower,
    Spread,
    TowerEvent,
)
from companion.devices.tray_render import (
    RenderedTray,
    SetUp,
    TrayScene,
    drop_frames,
    hand_frames,
    render,
)

if TYPE_CHECKING:
    from companion.vision.profile import Profile

SPREAD_SEEDS = 100_000
"""Layout seeds of spread trays start here, clear of the landings' (their landing numbers)."""

DEFAULT_CONDITION = "neutral"
"""The light and camera set-up of the simulation: the tower's own even LED light."""


def simulated_setup(seed: int, size: tuple[int, int], condition: str = DEFAULT_CONDITION) -> SetUp:
    """The camera set-up the simulated camera uses for `seed` at `size` (width, height) pixels;
    calibrate vision with pictures of this same set-up."""
    return dataclasses.replace(SetUp.random(seed, condition), image_size=size)


def base_scene(setup: SetUp, seed: int, condition: str = DEFAULT_CONDITION) -> TrayScene:
    """The empty tray under `setup` with the camera's fixed capture settings; every picture
    the simulated camera takes is this scene with other cubes (`with_counts`)."""
    return TrayScene.random(seed, condition, counts=Counts(), setup=setup)


class SimulatedCamera:
    """A FrameSource showing `tower`'s tray (a self-playing demo tower when None).

    `size` is (width, height) in pixels; `fps` paces frames like a real camera (None: as fast
    as they render); `rolling_frames` is how many frames cubes take to fall in and settle,
    shown at `rolling_fps`. `demo_every_s` is the demo's time between drops.
    """

    def __init__(
        self,
        tower: SimulatedTower | None = None,
        *,
        size: tuple[int, int] = (800, 600),
        setup_seed: int = 0,
        condition: str = DEFAULT_CONDITION,
        fps: float | None = None,
        rolling_frames: int = 12,
        rolling_fps: float = 15.0,
        demo_every_s: float = 6.0,
    ) -> None:
        self._demo = tower is None
        self.tower = tower if tower is not None else SimulatedTower(seed=0)
        if not self.tower.camera_connected:
            raise SourceUnavailable(
                "the simulated camera is unplugged (a fault injected in the simulated tower); "
                "it can be opened again once the tower plugs it back in"
            )
        self.setup = simulated_setup(setup_seed, size, condition)
        self._base = base_scene(self.setup, setup_seed, condition)
        self._fps = fps if fps is not None else (15.0 if self._demo else None)
        self._rolling_frames = rolling_frames
        self._rolling_fps = rolling_fps
        self._demo_every_s = demo_every_s
        self._lock = threading.Lock()
        self._scene = self._scene_for(self.tower.tray, 0)
        self._rolling: list[RenderedTray] = []
        # Changes to the tray waiting to be seen, in order: when (monotonic s: the last cube
        # of a landing reaches the tray, or a hand reaches in), the tray afterwards, and
        # whether a hand made it (else cubes fell in).
        self._changes: list[tuple[float, TrayScene, bool]] = []
        self._spreads = 0
        self._lost: str | None = None
        # Set while frames flow; cleared by a CAMERA_STALLED fault until CAMERA_BACK.
        self._stalled = threading.Event()
        self._stalled.set()
        self._closed = False
        self._index = 0
        self._next_due = time.monotonic()
        self._last_demo = time.monotonic()
        self._unsubscribe = self.tower.subscribe(self._on_event)

    @property
    def base(self) -> TrayScene:
        """The empty tray as this camera sees it (its set-up and fixed capture settings)."""
        return self._base

    @property
    def description(self) -> str:
        """`simulated camera`, and whether it plays the demo."""
        return "simulated camera (demo)" if self._demo else "simulated camera"

    def _scene_for(self, counts: Counts, layout_seed: int) -> TrayScene:
        # One capture (exposure, noise, lens) for every picture: a real camera's is locked.
        return self._base.with_counts(counts, seed=layout_seed)

    def _on_event(self, event: TowerEvent) -> None:
        with self._lock:
            if isinstance(event, FaultEvent):
                if event.kind is FaultKind.CAMERA_LOST:
                    self._lost = (
                        "the simulated camera was unplugged; plug it back in (the chute sensor "
                        "or manual entry take over meanwhile)"
                    )
                elif event.kind is FaultKind.CAMERA_STALLED:
                    self._stalled.clear()
                elif event.kind is FaultKind.CAMERA_BACK:
                    self._stalled.set()
                return
            if isinstance(event, Spread):
                # After whatever is still falling in: the hand spreads the tray as it will lie.
                self._spreads += 1
                due = max([time.monotonic()] + [change[0] for change in self._changes])
                seed = SPREAD_SEEDS + self._spreads
                spread = self._scene_for(self.tower.tray, seed).spread_apart(seed)
                self._changes.append((due, spread, True))
                return
            # The tray after this landing, laid out afresh (a new seed per landing), seen once the
            # last cube has left the tower: the chute sensor counts cubes before they land.
            last = event.exits[-1].at_s if event.exits else 0.0
            due = time.monotonic() + last
            self._changes.append((due, self._scene_for(self.tower.tray, event.number), False))

    def _demo_step(self) -> None:
        tower = self.tower
        if tower.drops == 0:
            tower.drop(Counts.full())
            return
        colour = COLOURS[(tower.drops - 1) % len(COLOURS)]
        tower.drop(Counts().with_count(colour, tower.outside[colour]))
        tower.pass_time()

    def read(self, timeout: float | None = None) -> Frame:
        """The next picture of the tray; while a CAMERA_STALLED fault lasts, FrameTimeout after
        `timeout` seconds (default DEFAULT_TIMEOUT_S), as a hung camera gives."""
        wait = DEFAULT_TIMEOUT_S if timeout is None else timeout
        if not self._stalled.wait(wait):
            raise FrameTimeout(
                f"no frame from the simulated camera in {wait:.1f} s: it is stalled (a fault "
                "injected in the simulated tower); the chute sensor or manual entry take over"
            )
        if self._demo and time.monotonic() - self._last_demo >= self._demo_every_s:
            self._last_demo = time.monotonic()
            self._demo_step()
        with self._lock:
            if self._closed:
                raise CameraLost("the simulated camera is closed; open the source again")
            if self._lost is not None:
                raise CameraLost(self._lost)
            change: tuple[float, TrayScene, bool] | None = None
            while self._changes and self._changes[0][0] <= time.monotonic():
                change = self._changes.pop(0)
            if change is not None:
                _, after, by_hand = change
                self._rolling = (
                    hand_frames(self._scene, frames=self._rolling_frames)
                    if by_hand
                    else drop_frames(after, frames=self._rolling_frames, fps=self._rolling_fps)
                )
                self._scene = after
            picture = self._rolling.pop(0) if self._rolling else None
            scene = self._scene
            index = self._index
            self._index += 1
        if picture is None:
            picture = render(scene, frame=index)
        if self._fps:
            delay = self._next_due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            # One period after this frame at the earliest: a slow render is not made up for
            # with a burst of frames.
            self._next_due = max(self._next_due, time.monotonic()) + 1.0 / self._fps
        return Frame(image=picture.image, timestamp=time.monotonic(), index=index)

    def close(self) -> None:
        """Stop following the tower (idempotent)."""
        with self._lock:
            self._closed = True
        self._unsubscribe()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def calibration_pictures(
    camera: SimulatedCamera, per_colour: int = 5
) -> tuple[Image, dict[Colour, Image]]:
    """The pictures vision calibrates from, taken by `camera`'s set-up: the empty tray and
    `per_colour` cubes of each colour alone (BGR uint8), spread out as the calibration guide
    asks (heaped, two or three of five show as lone cubes and the colour is learned from
    those alone)."""
    empty = render(camera.base).image
    colours = {
        colour: render(
            camera.base.with_counts(Counts().with_count(colour, per_colour)).spread_apart(900 + i)
        ).image
        for i, colour in enumerate(COLOURS)
    }
    return empty, colours


def write_calibration_pictures(
    folder: Path, *, size: tuple[int, int] = (800, 600), setup_seed: int = 0
) -> Path:
    """Write `empty.png` and one PNG per colour as the simulated camera (`open_source("sim")`
    with these settings) sees them, in the layout `companion calibrate DIR` reads; returns
    `folder`. So the demo can be watched: calibrate from these, then watch `sim`."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    camera = SimulatedCamera(SimulatedTower(), size=size, setup_seed=setup_seed)
    try:
        empty, colours = calibration_pictures(camera)
    finally:
        camera.close()
    cv2.imwrite(str(folder / "empty.png"), empty)
    for colour, picture in colours.items():
        cv2.imwrite(str(folder / f"{colour.value}.png"), picture)
    return folder


def calibrate_simulated(
    tower: SimulatedTower, size: tuple[int, int], seeds: Sequence[int] = tuple(range(10))
) -> tuple[int, Profile]:
    """The first set-up seed (of `seeds`) whose pictures vision calibrates from, with its
    profile: not every drawn set-up suits the colour models (a warm light can make yellow
    look green), as not every real table would.

    Raises CalibrationError naming the seeds tried and the last reason when none works.
    """
    from companion.vision import calibrate
    from companion.vision.errors import CalibrationError

    reasons: list[str] = []
    for seed in seeds:
        probe = SimulatedCamera(tower, size=size, setup_seed=seed)
        try:
            return seed, calibrate(*calibration_pictures(probe))
        except CalibrationError as error:
            reasons.append(f"set-up {seed}: {error}")
        finally:
            probe.close()
    raise CalibrationError(
        f"no simulated set-up of {list(seeds)} at {size[0]}x{size[1]} calibrates; "
        f"the last said {reasons[-1] if reasons else 'nothing'}"
    )
