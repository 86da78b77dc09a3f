"""Camera and chute feeds into the reading service, with the real Settler and chute reader."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.cubes import Colour, Counts
from companion.devices.chute.simdevice import SimulatedChute
from companion.devices.feeds import CameraFeed, ChuteFeed
from companion.devices.frames import (
    Frame,
    FrameSource,
    SourceEnded,
    SourceUnavailable,
    open_source,
)
from companion.devices.health import Health, SourceHealth
from companion.devices.readings import DropReading, Outcome, ReadingService, Timing
from companion.devices.sim_camera import SimulatedCamera, calibrate_simulated
from companion.devices.simtower import FaultKind, SimulatedTower, TowerModel
from companion.devices.tray_render import HandPose, drop_frames, hand_frames, render
from companion.settings import Settings
from companion.vision import Profile
from companion.vision.settle import Settler

# A size that renders quickly.
SIZE = (400, 300)
FAST = Timing(sensor_quiet_s=0.2, nothing_out_s=0.5, camera_wait_s=4.0, tick_s=0.01)
OFF = SourceHealth("camera", Health.OFF, "no camera")


class Collected:
    def __init__(self) -> None:
        self.readings: queue.Queue[DropReading] = queue.Queue()
        self.health: list[SourceHealth] = []

    def service(self, **initial: SourceHealth) -> ReadingService:
        return ReadingService(self.readings.put, self.health.append, timing=FAST, **initial)

    def wait_health(
        self, source: str, state: Health, limit_s: float = 8.0, after: int = 0
    ) -> SourceHealth:
        """The first health of `source` in state `state` posted (after the first `after`)."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            for health in list(self.health)[after:]:
                if health.source == source and health.state is state:
                    return health
            time.sleep(0.01)
        raise AssertionError(f"{source} never became {state}: {self.health}")


@pytest.fixture(scope="module")
def calibrated() -> tuple[int, Profile]:
    """A simulated camera set-up vision calibrates from, with its profile."""
    return calibrate_simulated(SimulatedTower(), SIZE)


def test_camera_feed_retries_until_the_camera_opens_then_reads_drops(
    calibrated: tuple[int, Profile],
) -> None:
    tower = SimulatedTower(seed=3, model=TowerModel(stick=0))
    attempts: list[int] = []

    def opener() -> FrameSource:
        attempts.append(1)
        if len(attempts) < 3:
            raise SourceUnavailable("no camera yet: plug it in")
        return SimulatedCamera(tower, size=SIZE, setup_seed=calibrated[0])

    got = Collected()
    with got.service(sensor=SourceHealth("sensor", Health.OFF, "not fitted")) as service:
        feed = CameraFeed(opener, Settler(calibrated[1]), service, retry_s=0.05).start()
        try:
            got.wait_health("camera", Health.OK)
            assert any("plug it in" in h.message for h in got.health)
            service.expect_drop(Counts.full())
            tower.drop(Counts(red=3, yellow=2))
            verdict = got.readings.get(timeout=10)
        finally:
            feed.stop()
    assert verdict.camera is not None and verdict.camera.total > 0
    assert feed.frames > 5


def test_camera_feed_reports_a_stall_and_the_recovery(calibrated: tuple[int, Profile]) -> None:
    tower = SimulatedTower(seed=3)
    got = Collected()
    with got.service() as service:
        feed = CameraFeed(
            lambda: SimulatedCamera(tower, size=SIZE, setup_seed=calibrated[0]),
            Settler(calibrated[1]),
            service,
            timeout_s=0.2,
        ).start()
        try:
            got.wait_health("camera", Health.OK)
            tower.inject(FaultKind.CAMERA_STALLED)
            stalled = got.wait_health("camera", Health.OFFLINE)
            before = len(got.health)
            tower.inject(FaultKind.CAMERA_BACK)
            got.wait_health("camera", Health.OK, after=before)
        finally:
            feed.stop()
    assert "stalled" in stalled.message


def test_video_of_another_size_is_reported_not_crashed(
    tmp_path: Path, calibrated: tuple[int, Profile]
) -> None:
    clip = tmp_path / "small.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for _ in range(5):
        writer.write(np.full((48, 64, 3), 128, np.uint8))
    writer.release()
    got = Collected()
    with got.service() as service:
        feed = CameraFeed(
            lambda: open_source(str(clip), settings=Settings()), Settler(calibrated[1]), service
        ).start()
        try:
            lost = got.wait_health("camera", Health.OFFLINE)
            ended = got.wait_health("camera", Health.OFF)
        finally:
            feed.stop()
    assert "64x48" in lost.message and "profile expects" in lost.message
    assert "ended after 5 frames" in ended.message


@pytest.fixture
def board(tmp_path: Path) -> Iterator[SimulatedChute]:
    device = SimulatedChute(tmp_path / "ttyCHUTE", heartbeat_s=0.2)
    device.plug()
    yield device
    device.stop()


def test_chute_feed_counts_drops_and_doubts_unknown_colours(board: SimulatedChute) -> None:
    got = Collected()
    with got.service(camera=OFF) as service:
        feed = ChuteFeed(service)
        reader = feed.chute_reader(
            port=str(board.link), offline_after_s=1.0, settle_s=0.2, backoff_s=(0.05, 0.2)
        )
        reader.start()
        try:
            got.wait_health("sensor", Health.OK)
            service.expect_drop()
            board.feed([(Colour.RED, 0.05), (Colour.BLUE, 0.1), (Colour.RED, 0.15)])
            first = got.readings.get(timeout=5)
            service.expect_drop()
            board.feed([(Colour.GREEN, 0.05)])
            board.feed_unknown(0.1)
            second = got.readings.get(timeout=5)
            before = len(got.health)
            board.unplug()
            gone = got.wait_health("sensor", Health.OFFLINE, after=before)
        finally:
            reader.stop()
    assert (first.outcome, first.source, first.counts) == (
        Outcome.ACCEPTED,
        "sensor",
        Counts(red=2, blue=1),
    )
    assert second.outcome is Outcome.CONFIRM and second.counts == Counts(green=1)
    assert any("colour the chute sensor missed" in r for r in second.reasons)
    assert "USB" in gone.message


class _Clip:
    """Rendered frames handed out at the camera's pace, stamped on the monotonic clock."""

    description = "test clip"

    def __init__(self, images: list[np.ndarray], fps: float = 15.0) -> None:
        self._images = images
        self._fps = fps
        self._next = 0

    def read(self, timeout: float | None = None) -> Frame:
        if self._next == len(self._images):
            raise SourceEnded(f"the clip ended after {self._next} frames")
        time.sleep(1 / self._fps)
        frame = Frame(self._images[self._next], time.monotonic(), self._next)
        self._next += 1
        return frame

    def close(self) -> None:
        pass

    def __enter__(self) -> _Clip:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def test_cubes_spread_by_hand_reach_the_service_as_a_second_look(
    calibrated: tuple[int, Profile],
) -> None:
    base = SimulatedCamera(SimulatedTower(), size=SIZE, setup_seed=calibrated[0]).base
    dropped = base.with_counts(Counts(red=2, yellow=1), seed=21)
    # Spread out by hand, a cube that lay out of sight shows: the camera sees one more.
    spread = base.with_counts(Counts(red=2, yellow=1, blue=1), seed=22)
    images = [render(base, frame=k).image for k in range(8)]
    images += [shot.image for shot in drop_frames(dropped, frames=10)]
    images += [render(dropped, frame=100 + k).image for k in range(14)]
    images += [shot.image for shot in hand_frames(replace(dropped, hand=HandPose.random(3)))]
    images += [render(spread, frame=200 + k).image for k in range(14)]
    got = Collected()
    with got.service(sensor=SourceHealth("sensor", Health.OFF, "not fitted")) as service:
        feed = CameraFeed(lambda: _Clip(images), Settler(calibrated[1]), service).start()
        try:
            got.wait_health("camera", Health.OK)
            number = service.expect_drop(Counts.full())
            first = got.readings.get(timeout=20)
            again = got.readings.get(timeout=20)
        finally:
            feed.stop()
    assert (first.drop, first.kind, first.camera) == (number, "drop", dropped.counts)
    assert (again.drop, again.kind, again.camera) == (number, "second look", spread.counts)
