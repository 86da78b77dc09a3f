"""Frames per second from each frame source at 800x600, and the chute sensor's reading latency.

Prints, on one core (OpenCV threads set to 1):
- frames/s delivered by the simulated camera (the renderer drawing the still tray with fresh
  sensor noise per frame, and while cubes roll in), by an 800x600 MJPG video file, and by a
  real camera when one opens here;
- the median time from the simulated chute board's last cube of a drop to the reading service's
  verdict reaching the app's callback (sensor only, default timing), over several drops.

    .venv/bin/python benchmarks/devices.py [--frames N] [--drops N]
"""

from __future__ import annotations

import argparse
import queue
import statistics
import tempfile
import time
from pathlib import Path

import cv2

from companion.core.cubes import COLOURS, Counts
from companion.devices.chute.simdevice import SimulatedChute
from companion.devices.feeds import ChuteFeed
from companion.devices.frames import FrameSource, SourceUnavailable, iter_frames, open_source
from companion.devices.health import Health, SourceHealth
from companion.devices.readings import DropReading, ReadingService, Timing
from companion.devices.sim_camera import SimulatedCamera
from companion.devices.simtower import SimulatedTower, TowerModel
from companion.settings import Settings

SIZE = (800, 600)


def fps(source: FrameSource, frames: int) -> float:
    """Frames per second over `frames` reads after one warm-up read."""
    source.read()
    started = time.perf_counter()
    for _ in range(frames):
        source.read()
    return frames / (time.perf_counter() - started)


def simulated_fps(frames: int, drops: int = 4) -> tuple[float, float]:
    """(still tray, cubes rolling in) frames/s of the simulated camera at SIZE.

    Rolling frames are rendered together when a landing is first seen (with motion blur), so
    their rate is the whole sequence's count over the time from the landing to its last frame.
    """
    tower = SimulatedTower(seed=1)
    with SimulatedCamera(tower, size=SIZE) as camera:
        tower.drop(Counts.full())
        for _ in range(13):  # let the cubes settle first
            camera.read()
        still = fps(camera, frames)
    tower = SimulatedTower(seed=1, model=TowerModel(stick=0.3))
    rolling_frames = 12
    spent = 0.0
    with SimulatedCamera(tower, size=SIZE, rolling_frames=rolling_frames) as camera:
        camera.read()
        for i in range(drops):
            colour = COLOURS[i % len(COLOURS)]
            tower.drop(
                Counts.full() if i == 0 else Counts().with_count(colour, tower.outside[colour])
            )
            started = time.perf_counter()
            for _ in range(rolling_frames):
                camera.read()
            spent += time.perf_counter() - started
    return still, drops * rolling_frames / spent


def video_fps(folder: Path, frames: int) -> float:
    """Frames/s decoding an 800x600 MJPG clip of the simulated tray through open_source."""
    clip = folder / "tray.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 30, SIZE)
    tower = SimulatedTower(seed=2)
    with SimulatedCamera(tower, size=SIZE) as camera:
        tower.drop(Counts.full())
        pictures = [camera.read().image for _ in range(30)]
    for i in range(frames + 1):
        writer.write(pictures[i % len(pictures)])
    writer.release()
    with open_source(str(clip), settings=Settings()) as source:
        source.read()
        started = time.perf_counter()
        count = sum(1 for _ in iter_frames(source))
        return count / (time.perf_counter() - started)


def camera_fps(frames: int) -> str:
    """Frames/s of the real camera, or why there is none."""
    try:
        source = open_source("real", settings=Settings(), size=SIZE)
    except SourceUnavailable as error:
        return f"no camera here ({str(error).split(':')[0]})"
    with source:
        try:
            return f"{fps(source, frames):.1f}"
        except Exception as error:  # a camera that opens but gives nothing
            return f"camera gave no frames ({error})"


def sensor_latency(folder: Path, drops: int) -> list[float]:
    """Seconds from each drop's last cube at the simulated board to the verdict callback."""
    arrived: queue.Queue[tuple[DropReading, float]] = queue.Queue()
    service = ReadingService(
        lambda reading: arrived.put((reading, time.monotonic())),
        timing=Timing(),
        camera=SourceHealth("camera", Health.OFF, "no camera"),
    )
    board = SimulatedChute(folder / "ttyCHUTE")
    board.plug()
    feed = ChuteFeed(service)
    reader = feed.chute_reader(port=str(board.link))
    latencies: list[float] = []
    with service:
        reader.start()
        try:
            deadline = time.monotonic() + 10
            while service.health()["sensor"].state is not Health.OK:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the simulated chute never came online: {reader.status}")
                time.sleep(0.01)
            tower = SimulatedTower(seed=5)
            for i in range(drops):
                colour = COLOURS[i % len(COLOURS)]
                cubes = (
                    Counts.full() if i == 0 else Counts().with_count(colour, tower.outside[colour])
                )
                service.expect_drop()
                landing = tower.drop(cubes)
                board.feed(landing.exits)
                _, at = arrived.get(timeout=30)
                if landing.exits:
                    latencies.append(at - board.cube_times[-1])
        finally:
            reader.stop()
            board.stop()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60, help="frames timed per source")
    parser.add_argument("--drops", type=int, default=12, help="drops timed for the sensor")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(f"frame sources at {SIZE[0]}x{SIZE[1]}, one core, {args.frames} frames each")
    still, rolling = simulated_fps(args.frames)
    print(f"  simulated camera, still tray:    {still:6.1f} frames/s")
    print(f"  simulated camera, cubes rolling: {rolling:6.1f} frames/s")
    with tempfile.TemporaryDirectory(prefix="bench-devices-") as folder:
        print(
            f"  video file (MJPG):               {video_fps(Path(folder), args.frames):6.1f} frames/s"
        )
        print(f"  real camera:                     {camera_fps(args.frames)}")
        latencies = sensor_latency(Path(folder), args.drops)
    print(
        f"chute sensor, last cube to reading at the app (sensor settle {Timing().sensor_quiet_s} s): "
        f"median {statistics.median(latencies) * 1000:.0f} ms, "
        f"min {min(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
        f"over {len(latencies)} drops"
    )


if __name__ == "__main__":
    main()
