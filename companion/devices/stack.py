"""Every device the app uses, chosen from the settings, in one object to start and stop.

With real hardware: the camera (picamera2 or OpenCV) read through vision's Settler with the
calibration profile named in the settings, the chute sensor found by its USB id, GPIO buttons,
LED ring and tray beam. Without it (`auto` finds none, or `sim` is asked for): the simulated
tower, seen by the simulated camera (calibrated on the spot) and counted by a simulated chute
board on a pseudo-terminal, read by the very same reader and service. GPIO is off off a Pi.

    devices = Devices(load_settings(), on_reading, on_health, on_next=..., on_undo=...).start()
    devices.drop(game.state)      # the players drop the phase's cubes now
    devices.spread()              # (simulation) a hand spreads the tray's cubes apart
    devices.between_drops()       # (simulation) time passes: strays may fall
    devices.still()               # one picture now, for the calibration wizard
    devices.stop()

Callbacks come from device threads: the UI must hand them to its own thread.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.core.cubes import Counts
from companion.core.state import GameState, Stage
from companion.devices.chute.calibration import CalibrationError, ChuteCalibration
from companion.devices.drops import could_come_out, cubes_to_drop
from companion.devices.feeds import CameraFeed, ChuteFeed
from companion.devices.frames import (
    Frame,
    FrameSource,
    FrameTimeout,
    SourceEnded,
    SourceUnavailable,
    open_source,
)
from companion.devices.gpio import Callback, TowerPanel, open_panel
from companion.devices.health import Health, SourceHealth, SourceName
from companion.devices.readings import ReadingCallback, ReadingService, Timing
from companion.devices.simtower import SimulatedTower
from companion.settings import Settings

HealthCallback = Callable[[SourceHealth], None]


def _no_health(_health: SourceHealth) -> None:
    return None


STILL_WARMUP_FRAMES = 3
"""Frames read from a camera opened only for a still; the last is kept (the first ones of a
camera just opened may be dark while its exposure settles)."""


class _WatchedSource:
    """A frame source that hands every frame it reads to `keep` (the stack's latest picture)."""

    def __init__(self, source: FrameSource, keep: Callable[[Frame], None]) -> None:
        self._source = source
        self._keep = keep

    @property
    def description(self) -> str:
        return self._source.description

    def read(self, timeout: float | None = None) -> Frame:
        frame = self._source.read(timeout)
        self._keep(frame)
        return frame

    def close(self) -> None:
        self._source.close()

    def __enter__(self) -> _WatchedSource:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Devices:
    """The reading service with its camera and chute feeds, the GPIO panel, and (when any part
    is simulated) the simulated tower they share.

    `profile` overrides the settings' calibration profile for a real camera; `tower` gives the
    simulation a tower of the caller's (default: a new one, seeded 0); `workdir` holds the
    simulated chute board's pty (default: a temporary folder).
    """

    def __init__(
        self,
        settings: Settings,
        on_reading: ReadingCallback,
        on_health: HealthCallback | None = None,
        *,
        on_next: Callback | None = None,
        on_undo: Callback | None = None,
        profile: Any | None = None,
        tower: SimulatedTower | None = None,
        workdir: Path | None = None,
        timing: Timing | None = None,
    ) -> None:
        self.settings = settings
        self._on_health = on_health or _no_health
        self._on_next = on_next
        self._on_undo = on_undo
        self._profile = profile
        self._given_tower = tower
        self._workdir = workdir
        self._tempdir: tempfile.TemporaryDirectory[str] | None = None
        self.service = ReadingService(
            on_reading,
            self._on_health,
            timing=timing,
            camera=SourceHealth("camera", Health.OFF, "the camera is off"),
            sensor=SourceHealth("sensor", Health.OFF, "the chute sensor is off"),
        )
        self.tower: SimulatedTower | None = None
        self.panel: TowerPanel | None = None
        self.camera_kind = "off"
        """`real`, `sim` or `off`: which camera is in use."""
        self.sensor_kind = "off"
        """`real`, `sim` or `off`: which chute sensor is in use."""
        self._camera_spec = "off"
        self._camera_feed: CameraFeed | None = None
        self._camera_thread: threading.Thread | None = None
        self._chute_reader: Any | None = None
        self._chute_board: Any | None = None
        self._stopping = threading.Event()
        self._sim_seed = 0
        self._latest: Frame | None = None
        self._frame_arrived = threading.Condition()

    # ---- choosing ------------------------------------------------------------------------

    def _choose_camera(self) -> None:
        spec = self.settings.camera.source.strip()
        lowered = spec.lower()
        if lowered == "off":
            return
        if lowered == "auto":
            try:
                probe = open_source("real", settings=self.settings)
            except SourceUnavailable:
                lowered = spec = "sim"
            else:
                probe.close()
                spec = "real"
        self.camera_kind = "sim" if lowered == "sim" else "real"
        self._camera_spec = spec

    def _choose_sensor(self) -> None:
        backend = self.settings.sensor.backend
        if backend == "auto":
            from companion.devices.chute.ports import find_port

            plugged = self.settings.sensor.port or find_port(self.settings.sensor.vid_pid)
            simulated = self.camera_kind == "sim"
            backend = "real" if plugged or not simulated else "sim"
        self.sensor_kind = backend

    @property
    def simulated(self) -> bool:
        """True when the simulated tower stands in for the real one."""
        return self.tower is not None

    # ---- starting ------------------------------------------------------------------------

    def start(self) -> Devices:
        """Choose and start every device; never raises for missing hardware (see health)."""
        self._choose_camera()
        self._choose_sensor()
        if self.camera_kind == "sim" or self.sensor_kind == "sim":
            self.tower = self._given_tower or SimulatedTower(seed=0)
        self.service.start()
        self.panel = open_panel(
            self.settings.gpio,
            on_next=self._on_next,
            on_undo=self._on_undo,
            on_beam=self.service.beam_broken,
        )
        self._on_health(self.panel.status.health())
        if self.camera_kind != "off":
            self.panel.set_light(self.settings.camera.led_level)
            self.service.camera_health(
                SourceHealth("camera", Health.OFFLINE, "the camera is getting ready")
            )
            # Calibrating the simulated camera takes seconds: not on the caller's thread.
            self._camera_thread = threading.Thread(
                target=self._start_camera, name="camera-start", daemon=True
            )
            self._camera_thread.start()
        if self.sensor_kind != "off":
            try:
                self._start_sensor()
            except Exception as error:  # no pty, a bad port name: the game goes on without it
                self.service.sensor_health(
                    SourceHealth(
                        "sensor",
                        Health.OFF,
                        f"the chute sensor cannot be started ({error}); check sensor.port in "
                        "the settings",
                    )
                )
        return self

    def _start_camera(self) -> None:
        from companion.vision.errors import VisionError
        from companion.vision.profile import Profile
        from companion.vision.settle import Settler

        settings = self.settings
        size = (settings.camera.width, settings.camera.height)
        try:
            if self.camera_kind == "sim":
                from companion.devices.sim_camera import calibrate_simulated

                assert self.tower is not None
                self._sim_seed, profile = calibrate_simulated(self.tower, size)
            elif self._profile is not None:
                profile = self._profile
            elif settings.camera.profile:
                profile = Profile.load(settings.camera.profile)
            else:
                self.service.camera_health(
                    SourceHealth(
                        "camera",
                        Health.OFF,
                        "the camera is not calibrated: run `companion calibrate DIR --out "
                        "PROFILE.json` and name PROFILE.json as camera.profile in the settings",
                    )
                )
                return
        except (VisionError, OSError, ValueError) as error:
            self.service.camera_health(
                SourceHealth("camera", Health.OFF, f"the camera cannot be calibrated: {error}")
            )
            return
        if self._stopping.is_set():
            return
        self._camera_feed = CameraFeed(
            self._open_camera,
            Settler(profile),
            self.service,
            timeout_s=settings.camera.frame_timeout_s,
        ).start()

    def _open_camera(self) -> FrameSource:
        if self.camera_kind == "sim":
            from companion.devices.sim_camera import SimulatedCamera

            camera = self.settings.camera
            source: FrameSource = SimulatedCamera(
                self.tower, size=(camera.width, camera.height), setup_seed=self._sim_seed
            )
        else:
            source = open_source(self._camera_spec, settings=self.settings)
        return _WatchedSource(source, self._keep_frame)

    def _keep_frame(self, frame: Frame) -> None:
        with self._frame_arrived:
            self._latest = frame
            self._frame_arrived.notify_all()

    def _start_sensor(self) -> None:
        sensor = self.settings.sensor
        feed = ChuteFeed(self.service)
        if self.sensor_kind == "sim":
            from companion.devices.chute.simdevice import SimulatedChute

            assert self.tower is not None
            if self._workdir is None:
                self._tempdir = tempfile.TemporaryDirectory(prefix="companion-chute-")
                self._workdir = Path(self._tempdir.name)
            board = SimulatedChute(self._workdir / "ttyCHUTE")
            board.plug()
            board.attach(self.tower)
            self._chute_board = board
            port: str | None = str(board.link)
        else:
            port = sensor.port
        reader = feed.chute_reader(
            port=port,
            vid_pid=sensor.vid_pid,
            offline_after_s=sensor.offline_after_s,
            calibration=self._chute_calibration(),
        )
        reader.start()
        self._chute_reader = reader

    def _chute_calibration(self) -> ChuteCalibration | None:
        """The owner's chute calibration from the settings, or None for the typical values.

        An unreadable file does not stop the sensor: it counts with the typical values and its
        health says which file to fix (a wrong colour is then caught by the camera or a person).
        """
        path = self.settings.sensor.calibration
        if path is None:
            return None
        try:
            return ChuteCalibration.load(Path(path))
        except CalibrationError as error:
            self.service.sensor_health(
                SourceHealth("sensor", Health.OFFLINE, f"{error}; counting with typical colours")
            )
            return None

    # ---- using ---------------------------------------------------------------------------

    def drop(self, state: GameState) -> int:
        """The players drop the cubes due in `state` (the set-up drop or a phase's drop) now;
        returns the reading service's drop number. With the simulated tower, it drops them."""
        if state.stage not in (Stage.SETUP_DROP, Stage.DROP):
            raise ValueError(f"no drop is due: the game waits for {state.stage.value}")
        number = self.service.expect_drop(could_come_out(state))
        if self.tower is not None:
            if state.stage is not Stage.SETUP_DROP:
                believed = Counts.from_tuple(list(state.tower))
                if self.tower.inside != believed:
                    self.tower.reset_inside(believed)
            elif self.tower.inside.total:
                self.tower.reset_inside(Counts())
            self.tower.drop(cubes_to_drop(state))
        return number

    def spread(self) -> bool:
        """With the simulated tower, a hand spreads the tray's cubes apart so the camera looks
        again (at a real table the players do it themselves); returns whether it did."""
        if self.tower is None:
            return False
        self.tower.spread()
        return True

    def between_drops(self) -> None:
        """With the simulated tower: time passes between drops (strays may fall out)."""
        if self.tower is not None:
            self.tower.pass_time()

    def still(self, timeout_s: float = 5.0) -> Any:
        """One picture taken after this call (BGR uint8, height x width x 3, a copy), e.g. for
        the calibration wizard.

        While the camera feed runs, its next frame; otherwise (a camera not calibrated yet, or
        still starting) the camera is opened for this picture alone and closed again. Raises
        SourceUnavailable when no camera is in use or it cannot be opened, FrameTimeout when
        no picture comes within `timeout_s` seconds (other FrameSourceErrors as the camera
        reports them).
        """
        if self.camera_kind == "off":
            raise SourceUnavailable("no camera is in use: set camera.source in the settings")
        if self._camera_feed is not None:
            since = time.monotonic()
            with self._frame_arrived:
                fresh = self._frame_arrived.wait_for(
                    lambda: self._latest is not None and self._latest.timestamp >= since,
                    timeout_s,
                )
                if not fresh or self._latest is None:
                    raise FrameTimeout(f"the camera gave no picture within {timeout_s:g} s")
                return self._latest.image.copy()
        source = self._open_camera()
        try:
            frame = source.read(timeout_s)
            for _ in range(STILL_WARMUP_FRAMES - 1):
                try:
                    frame = source.read(timeout_s)
                except SourceEnded:
                    break  # a recorded clip shorter than the warm-up: its last frame will do
        finally:
            source.close()
        return frame.image.copy()

    def health(self) -> dict[SourceName, SourceHealth]:
        """Camera, chute sensor and GPIO health as they stand."""
        health = self.service.health()
        if self.panel is not None:
            health["gpio"] = self.panel.status.health()
        return health

    def stop(self) -> None:
        """Stop every thread, free the pins and unplug the simulated board (idempotent)."""
        self._stopping.set()
        if self._camera_thread is not None:
            self._camera_thread.join(timeout=30)
        if self._camera_feed is not None:
            self._camera_feed.stop()
            self._camera_feed = None
        if self._chute_reader is not None:
            self._chute_reader.stop()
            self._chute_reader = None
        if self._chute_board is not None:
            self._chute_board.stop()
            self._chute_board = None
        if self.panel is not None:
            self.panel.close()
        self.service.stop()
        if self._tempdir is not None:
            self._tempdir.cleanup()
            self._tempdir = None

    def __enter__(self) -> Devices:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
