"""Frame sources: a camera over OpenCV, a Pi camera over picamera2, a video file, the simulation.

Every source gives the same `Frame` and the same typed errors, so the vision pipeline and the
app never care where pictures come from. A camera that is unplugged mid-stream, or a frame that
never comes, is reported as a `FrameSourceError` whose message says what to do; nothing here
lets a device problem crash the app.

    with open_source("0") as source:          # or "sim", "tray.avi", "rtsp://...", "picamera2"
        frame = source.read(timeout=2.0)
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

import numpy as np
import numpy.typing as npt

from companion.settings import CAMERA_ENV, Settings, load_settings

if TYPE_CHECKING:
    from companion.devices.simtower import SimulatedTower

Image = npt.NDArray[np.uint8]

DEFAULT_TIMEOUT_S = 2.0
"""How long `read` waits for a frame unless told otherwise, in seconds."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture: `image` is BGR uint8 of shape (height, width, 3), read-only.

    `timestamp` is seconds on the monotonic clock (time.monotonic) when the picture was taken;
    `index` counts the pictures the source has taken from 0, so a gap means frames were skipped.
    """

    image: Image
    timestamp: float
    index: int

    def __post_init__(self) -> None:
        image = self.image
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(
                f"a frame must be BGR uint8 (height, width, 3), got {image.dtype} {image.shape}"
            )
        # Frames are shared between threads and the vision steps: nobody may draw on one.
        image.flags.writeable = False

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


class FrameSourceError(RuntimeError):
    """A frame source cannot give a frame; the message says what happened and what to do."""


class SourceUnavailable(FrameSourceError):
    """The source cannot be opened at all (no camera, no file, picamera2 missing)."""


class CameraLost(FrameSourceError):
    """The source gave frames and then stopped (unplugged, crashed, stream dropped)."""


class FrameTimeout(FrameSourceError):
    """No frame came within the time allowed; the source may recover by itself."""


class SourceEnded(FrameSourceError):
    """A video file has no more frames; not a fault."""


@runtime_checkable
class FrameSource(Protocol):
    """Anything that hands out frames. Close it (or use `with`) to free the device."""

    @property
    def description(self) -> str:
        """A short human name for the source, e.g. `camera 0` or `video tray.avi`."""
        ...

    def read(self, timeout: float | None = None) -> Frame:
        """The next frame, waiting at most `timeout` seconds (None: the source's default).

        Raises FrameTimeout, CameraLost or SourceEnded; never returns a stale frame twice.
        """
        ...

    def close(self) -> None:
        """Release the device; idempotent. Later reads raise CameraLost."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def iter_frames(source: FrameSource, timeout: float | None = None) -> Iterator[Frame]:
    """Frames until the source ends; FrameTimeout and CameraLost propagate to the caller."""
    while True:
        try:
            yield source.read(timeout)
        except SourceEnded:
            return


def as_bgr(image: npt.NDArray[Any]) -> Image:
    """A BGR uint8 (h, w, 3) version of a grey, BGR or BGRA picture (no copy when already BGR)."""
    if image.dtype != np.uint8:
        raise ValueError(f"expected 8-bit pictures, got {image.dtype}")
    if image.ndim == 2:
        return np.ascontiguousarray(np.repeat(image[:, :, None], 3, axis=2))
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    raise ValueError(f"cannot make a BGR picture from shape {image.shape}")


@dataclass
class _Outcome:
    """What the capture thread posts: a frame, or the error that ended it."""

    frame: Frame | None = None
    error: FrameSourceError | None = None


@dataclass
class ThreadedSource:
    """A source whose blocking grabs run on a thread, so `read` can time out.

    `grab` returns a picture, or None when the source has nothing more; `live` sources keep only
    the newest picture (a camera: stale frames are useless), others hand over every picture in
    order (a video file). `on_end` builds the error for a None from `grab`.
    """

    description: str
    grab: Callable[[], npt.NDArray[Any] | None]
    live: bool
    on_end: Callable[[int], FrameSourceError]
    release: Callable[[], None] = lambda: None
    default_timeout: float = DEFAULT_TIMEOUT_S
    pace_fps: float | None = None
    _queue: queue.Queue[_Outcome] = field(init=False)
    _stop: threading.Event = field(init=False, default_factory=threading.Event)
    _thread: threading.Thread | None = field(init=False, default=None)
    _final: FrameSourceError | None = field(init=False, default=None)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._queue = queue.Queue(maxsize=2)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(
                    target=self._run, name=f"frames:{self.description}", daemon=True
                )
                self._thread.start()

    def _post(self, outcome: _Outcome) -> None:
        if self.live:
            # Keep only the newest: drop what the reader has not taken yet.
            while True:
                try:
                    self._queue.put_nowait(outcome)
                    return
                except queue.Full:
                    with contextlib.suppress(queue.Empty):
                        self._queue.get_nowait()
        while not self._stop.is_set():
            try:
                self._queue.put(outcome, timeout=0.1)
                return
            except queue.Full:
                continue

    def _run(self) -> None:
        index = 0
        period = 1.0 / self.pace_fps if self.pace_fps else 0.0
        next_due = time.monotonic()
        try:
            while not self._stop.is_set():
                if period:
                    delay = next_due - time.monotonic()
                    if delay > 0 and self._stop.wait(delay):
                        break
                    next_due = max(next_due + period, time.monotonic() - period)
                try:
                    picture = self.grab()
                except FrameSourceError as error:
                    self._post(_Outcome(error=error))
                    return
                except Exception as error:  # a driver failure must not kill the app
                    self._post(
                        _Outcome(
                            error=CameraLost(
                                f"{self.description} failed: {error}; check the camera's "
                                "cable and restart watching (the chute sensor or manual entry "
                                "take over meanwhile)"
                            )
                        )
                    )
                    return
                if picture is None:
                    self._post(_Outcome(error=self.on_end(index)))
                    return
                frame = Frame(image=as_bgr(picture), timestamp=time.monotonic(), index=index)
                index += 1
                self._post(_Outcome(frame=frame))
        finally:
            # Releasing a vanished device may fail; there is nothing left to save then.
            with contextlib.suppress(Exception):
                self.release()

    def read(self, timeout: float | None = None) -> Frame:
        """The next frame within `timeout` seconds (default: `default_timeout`)."""
        if self._final is not None:
            raise self._final
        if self._stop.is_set():
            raise CameraLost(f"{self.description} is closed; open the source again")
        self._start()
        wait = self.default_timeout if timeout is None else timeout
        try:
            outcome = self._queue.get(timeout=wait)
        except queue.Empty:
            raise FrameTimeout(
                f"no frame from {self.description} in {wait:.1f} s: the camera may be "
                "unplugged, covered or busy; check its cable and light (the chute sensor or "
                "manual entry take over meanwhile)"
            ) from None
        if outcome.error is not None:
            self._final = outcome.error
            raise outcome.error
        assert outcome.frame is not None
        return outcome.frame

    def close(self) -> None:
        """Stop the capture thread and release the device (waits up to 2 s for a stuck grab)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        elif thread is None:
            with contextlib.suppress(Exception):  # never started: nothing else to free
                self.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _opencv_source(
    target: int | str, *, live: bool, size: tuple[int, int] | None, pace_fps: float | None
) -> ThreadedSource:
    import cv2

    description = f"camera {target}" if live and not isinstance(target, str) else f"{target}"
    if not live:
        description = f"video {target}"
    # OpenCV logs its own warnings for a missing camera; our error below says it better.
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        capture = cv2.VideoCapture(target)
    finally:
        cv2.utils.logging.setLogLevel(level)
    if not capture.isOpened():
        capture.release()
        if live:
            raise SourceUnavailable(
                f"cannot open {description}: check that the camera is plugged in and not used "
                f"by another program, or set {CAMERA_ENV}=sim to use the simulated tower"
            )
        raise SourceUnavailable(
            f"cannot open {description}: it is missing or not a video OpenCV can decode"
        )
    if live and size is not None:
        # MJPG first: uncompressed YUYV cannot carry 800x600 at a useful rate over USB 2.
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    if live:
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)

    def grab() -> npt.NDArray[Any] | None:
        ok, picture = capture.read()
        return picture if ok else None

    def on_end(taken: int) -> FrameSourceError:
        if not live:
            return SourceEnded(f"{description} ended after {taken} frames")
        return CameraLost(
            f"{description} stopped sending frames after {taken}: it was probably unplugged; "
            "plug it back in and restart watching (the chute sensor or manual entry take over "
            "meanwhile)"
        )

    return ThreadedSource(
        description=description,
        grab=grab,
        live=live,
        on_end=on_end,
        release=capture.release,
        pace_fps=pace_fps,
    )


def _picamera2_source(settings: Settings, size: tuple[int, int] | None) -> ThreadedSource:
    try:
        from picamera2 import Picamera2
    except ImportError as error:
        raise SourceUnavailable(
            "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
            "python3-picamera2` and create the venv with --system-site-packages "
            "(deploy/install.sh does both)"
        ) from error
    width, height = size or (settings.camera.width, settings.camera.height)
    try:
        camera = Picamera2(settings.camera.index)
        # RGB888 is stored B, G, R in memory: exactly OpenCV's order, no conversion needed.
        config = camera.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"}
        )
        camera.configure(config)
        camera.start()
        # Let auto exposure and white balance settle under the tower's own LED ring, then freeze
        # them: a drifting exposure would shift cube colours between readings.
        time.sleep(settings.camera.warmup_s)
        settled = camera.capture_metadata()
        camera.set_controls(
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": settled["ExposureTime"],
                "AnalogueGain": settled["AnalogueGain"],
                "ColourGains": settled["ColourGains"],
            }
        )
    except Exception as error:  # libcamera raises plain RuntimeErrors for a missing camera
        raise SourceUnavailable(
            f"cannot start the Pi camera {settings.camera.index}: {error}; check the ribbon "
            f"cable and that no other program uses it, or set {CAMERA_ENV}=sim"
        ) from error

    def grab() -> npt.NDArray[Any] | None:
        picture: npt.NDArray[Any] = camera.capture_array("main")
        return picture

    def release() -> None:
        camera.stop()
        camera.close()

    def on_end(taken: int) -> FrameSourceError:
        return CameraLost(f"the Pi camera stopped after {taken} frames; check its ribbon cable")

    return ThreadedSource(
        description=f"Pi camera {settings.camera.index}",
        grab=grab,
        live=True,
        on_end=on_end,
        release=release,
        default_timeout=settings.camera.frame_timeout_s,
    )


def picamera2_available() -> bool:
    """True when the picamera2 library can be imported (Raspberry Pi OS with it installed)."""
    try:
        import picamera2  # noqa: F401
    except ImportError:
        return False
    return True


def open_source(
    spec: str | None = None,
    *,
    settings: Settings | None = None,
    size: tuple[int, int] | None = None,
    realtime: bool = False,
    tower: SimulatedTower | None = None,
) -> FrameSource:
    """Open the frame source that `spec` names; every kind gives the same Frame type.

    `spec` (default: $COMPANION_CAMERA, else the settings' camera source) is one of:
    `auto` (a real camera when one opens, else the simulation), `off` (always
    SourceUnavailable), `real` (picamera2 when
    importable, else OpenCV camera `settings.camera.index`), `sim` (the simulated tower's
    tray), `picamera2`, a device index like `0`, a device path like `/dev/video0`, a URL with
    `://`, or a video file. `size` is (width, height) in pixels asked of cameras and of the
    simulation; video files keep their own size. `realtime` paces a video file at its own
    frame rate (default: as fast as it decodes). `tower` is the simulated tower a `sim`
    source shows (default: a self-playing demo tower).

    Raises SourceUnavailable with a message saying what to do.
    """
    settings = settings or load_settings()
    chosen = (spec if spec is not None else os.environ.get(CAMERA_ENV) or "").strip()
    chosen = chosen or settings.camera.source
    live_size = size or (settings.camera.width, settings.camera.height)
    lowered = chosen.lower()
    if lowered == "auto":
        try:
            return open_source("real", settings=settings, size=size)
        except SourceUnavailable:
            return open_source("sim", settings=settings, size=size, tower=tower)
    if lowered == "off":
        raise SourceUnavailable(
            f"the camera is off ({CAMERA_ENV}=off or the settings say so); counts come from "
            "the chute sensor or are typed in"
        )
    if lowered == "sim":
        from companion.devices.sim_camera import SimulatedCamera

        return SimulatedCamera(tower=tower, size=live_size)
    if lowered == "real":
        if picamera2_available():
            return _picamera2_source(settings, size)
        return _opencv_source(settings.camera.index, live=True, size=live_size, pace_fps=None)
    if lowered in ("picamera2", "picamera", "picam"):
        return _picamera2_source(settings, size)
    if chosen.isdigit():
        return _opencv_source(int(chosen), live=True, size=live_size, pace_fps=None)
    if chosen.startswith("/dev/") or "://" in chosen:
        return _opencv_source(chosen, live=True, size=live_size, pace_fps=None)
    path = Path(chosen)
    if not path.is_file():
        raise SourceUnavailable(
            f"no camera or video called {chosen!r}: give a camera index (0), a video file, a "
            "URL, `picamera2`, `real` or `sim`"
        )
    fps = _file_fps(path) if realtime else None
    return _opencv_source(str(path), live=False, size=None, pace_fps=fps)


def _file_fps(path: Path) -> float | None:
    import cv2

    capture = cv2.VideoCapture(str(path))
    try:
        fps = float(capture.get(cv2.CAP_PROP_FPS))
    finally:
        capture.release()
    return fps if fps > 0 else None
