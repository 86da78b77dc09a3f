"""Feeds into the reading service: the camera through vision's Settler, the chute sensor's reader.

Each feed runs on its own thread (the chute reader has its own), survives its device coming and
going, and tells the service both what it read and how healthy it is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from companion.devices.frames import (
    CameraLost,
    FrameSource,
    FrameSourceError,
    FrameTimeout,
    SourceEnded,
    SourceUnavailable,
)
from companion.devices.health import Health, SourceHealth
from companion.devices.readings import ReadingService
from companion.vision.settle import SettledReading, Settler, Status, StatusChange

SourceOpener = Callable[[], FrameSource]


class CameraFeed:
    """Reads frames on a thread, settles them with vision's Settler, posts to the service.

    A source that cannot be opened or is lost is retried every `retry_s` seconds until
    `stop()`; a frame later than `timeout_s` marks the camera offline until frames come back.
    """

    def __init__(
        self,
        open_frames: SourceOpener,
        settler: Settler,
        service: ReadingService,
        *,
        retry_s: float = 2.0,
        timeout_s: float = 2.0,
    ) -> None:
        self._open = open_frames
        self._settler = settler
        self._service = service
        self.retry_s = retry_s
        self.timeout_s = timeout_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0
        """Frames read so far (for diagnostics and benchmarks)."""

    def start(self) -> CameraFeed:
        """Start the feed's thread (idempotent); returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera-feed", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop reading and close the source (waits up to the frame timeout plus 2 s)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.timeout_s + 2)
            self._thread = None

    def _health(self, state: Health, message: str) -> None:
        self._service.camera_health(SourceHealth("camera", state, message))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                source = self._open()
            except FrameSourceError as error:
                self._health(Health.OFFLINE, str(error))
                self._stop.wait(self.retry_s)
                continue
            try:
                ended = self._stream(source)
            finally:
                source.close()
            if ended:
                return
            self._stop.wait(self.retry_s)

    def _stream(self, source: FrameSource) -> bool:
        """Read until the source fails (False: retry) or ends or we are stopped (True)."""
        watching = f"{source.description} is watching the tray"
        self._health(Health.OK, watching)
        stalled = False
        while not self._stop.is_set():
            try:
                frame = source.read(self.timeout_s)
            except FrameTimeout as error:
                self._settler.lost(time.monotonic(), str(error))
                self._health(Health.OFFLINE, str(error))
                stalled = True
                continue
            except SourceEnded as error:
                self._health(Health.OFF, str(error))
                return True
            except (CameraLost, SourceUnavailable) as error:
                self._settler.lost(time.monotonic(), str(error))
                self._health(Health.OFFLINE, str(error))
                return False
            if stalled:
                stalled = False
                self._health(Health.OK, watching)
            self.frames += 1
            for event in self._settler.feed(frame.image, frame.timestamp):
                self._take(event, source)
        return True

    def _take(self, event: SettledReading | StatusChange, source: FrameSource) -> None:
        if isinstance(event, SettledReading):
            self._service.camera_reading(
                event.reading, at=event.timestamp, moved_by_hand=event.moved_by_hand
            )
            return
        if event.status is Status.CAMERA_LOST:
            self._health(Health.OFFLINE, event.message)
        elif event.status is Status.DARK:
            self._health(Health.UNSURE, f"{event.message}; turn the light on")
        else:
            self._health(Health.OK, f"{source.description} is watching the tray")


class ChuteFeed:
    """Passes the chute reader's running totals and link health to the service.

    Give `on_reading` and `on_status` to a `companion.devices.chute.reader.ChuteReader` (or
    build one with `chute_reader`). The reader counts per drop by itself; the service only
    needs running totals, so the cubes of unknown colour are summed here across its drops.
    """

    def __init__(self, service: ReadingService) -> None:
        self._service = service
        self._reader: Any | None = None
        self._lock = threading.Lock()
        self._unknown_carried = 0
        self._last: Any | None = None

    def chute_reader(self, **options: Any) -> Any:
        """A ChuteReader wired to this feed (`options` go to its constructor); not started."""
        from companion.devices.chute.reader import ChuteReader

        self._reader = ChuteReader(self.on_reading, self.on_status, **options)
        return self._reader

    def on_reading(self, reading: Any) -> None:
        """Take one ChuteReading (counts since its drop began, totals since start)."""
        with self._lock:
            last = self._last
            if last is not None:
                base = reading.totals.minus(reading.counts)
                if base != last.totals.minus(last.counts):
                    # The reader began a new drop of its own: its unknown count starts again.
                    self._unknown_carried += last.unknown
            self._last = reading
            unknown = self._unknown_carried + reading.unknown
        self._service.sensor_totals(
            reading.totals,
            reading.at_s,
            unknown=unknown,
            confidence=reading.confidence,
            reasons=tuple(reading.reasons),
            settled=reading.settled,
        )

    def on_status(self, status: Any) -> None:
        """Take one ChuteStatus and tell the service how the sensor is."""
        from companion.devices.chute.reader import LinkState

        if status.state is LinkState.ONLINE:
            health = Health.UNSURE if status.sensor_ok is False else Health.OK
        elif status.state is LinkState.STOPPED:
            health = Health.OFF
        else:
            health = Health.OFFLINE
        self._service.sensor_health(SourceHealth("sensor", health, status.message))
        if health is Health.OK and self._reader is not None and self._last is None:
            # The reader posts only on change: give the service its starting totals now.
            self.on_reading(self._reader.reading())
