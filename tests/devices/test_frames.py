"""Frame sources: one Frame type, video files through OpenCV, typed errors for every fault."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.devices.frames import (
    CameraLost,
    Frame,
    FrameSource,
    FrameTimeout,
    SourceEnded,
    SourceUnavailable,
    ThreadedSource,
    as_bgr,
    iter_frames,
    open_source,
)
from companion.settings import Settings


def write_video(
    path: Path, frames: int, size: tuple[int, int] = (160, 120), fps: float = 20
) -> None:
    """A short MJPG clip whose frame i is a flat grey of level 10 * i."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, size)
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((size[1], size[0], 3), 10 * i, np.uint8))
    writer.release()


def test_video_file_gives_every_frame_in_order(tmp_path: Path) -> None:
    clip = tmp_path / "tray.avi"
    write_video(clip, 12)
    with open_source(str(clip), settings=Settings()) as source:
        assert isinstance(source, FrameSource)
        assert "tray.avi" in source.description
        frames = list(iter_frames(source))
        with pytest.raises(SourceEnded, match="12 frames"):
            source.read()
    assert [f.index for f in frames] == list(range(12))
    assert all(f.size == (160, 120) for f in frames)
    levels = [int(np.median(f.image)) for f in frames]
    assert levels == sorted(levels) and levels[-1] - levels[0] > 90
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps)
    assert not frames[0].image.flags.writeable


def test_realtime_video_is_paced_at_its_frame_rate(tmp_path: Path) -> None:
    clip = tmp_path / "slow.avi"
    write_video(clip, 6, fps=20)
    with open_source(str(clip), settings=Settings(), realtime=True) as source:
        frames = list(iter_frames(source))
    # Six frames at 20 fps span five periods of 50 ms.
    assert frames[-1].timestamp - frames[0].timestamp >= 0.2


def test_environment_variable_names_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clip = tmp_path / "env.avi"
    write_video(clip, 2)
    monkeypatch.setenv("COMPANION_CAMERA", str(clip))
    with open_source(settings=Settings()) as source:
        assert source.read().size == (160, 120)


def test_missing_video_says_what_is_accepted(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailable, match="give a camera index"):
        open_source(str(tmp_path / "absent.avi"), settings=Settings())


def test_file_that_is_no_video_is_unavailable(tmp_path: Path) -> None:
    junk = tmp_path / "notes.avi"
    junk.write_bytes(b"not a video at all" * 10)
    with pytest.raises(SourceUnavailable, match="cannot open"):
        open_source(str(junk), settings=Settings())


def test_absent_camera_index_is_unavailable_with_advice() -> None:
    with pytest.raises(SourceUnavailable, match="COMPANION_CAMERA=sim"):
        open_source("9", settings=Settings())


def test_picamera2_missing_explains_how_to_install() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(SourceUnavailable, match="python3-picamera2"):
            open_source("picamera2", settings=Settings())
    else:
        pytest.skip("picamera2 is installed here")


def test_frame_must_be_bgr_uint8() -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        Frame(image=np.zeros((4, 4), np.uint8), timestamp=0.0, index=0)
    with pytest.raises(ValueError, match="BGR uint8"):
        Frame(image=np.zeros((4, 4, 3), np.float32), timestamp=0.0, index=0)  # type: ignore[arg-type]


def test_as_bgr_accepts_grey_and_bgra() -> None:
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert as_bgr(grey).shape == (3, 4, 3)
    assert (as_bgr(grey)[:, :, 2] == grey).all()
    bgra = np.zeros((3, 4, 4), np.uint8)
    assert as_bgr(bgra).shape == (3, 4, 3)
    with pytest.raises(ValueError, match="8-bit"):
        as_bgr(np.zeros((3, 4, 3), np.uint16))


def _source(grab: Callable[[], Any], *, live: bool = True) -> ThreadedSource:
    return ThreadedSource(
        description="test camera",
        grab=grab,
        live=live,
        on_end=lambda n: CameraLost(f"test camera gone after {n}"),
    )


def test_a_frame_that_never_comes_times_out_then_recovers() -> None:
    release = threading.Event()
    picture = np.zeros((8, 8, 3), np.uint8)

    def grab() -> Any:
        release.wait(5)
        return picture

    with _source(grab) as source:
        started = time.monotonic()
        with pytest.raises(FrameTimeout, match="check its cable"):
            source.read(timeout=0.2)
        assert time.monotonic() - started < 2
        release.set()
        assert source.read(timeout=2).size == (8, 8)


def test_camera_unplugged_mid_stream_is_lost_for_good() -> None:
    taken = iter([np.zeros((8, 8, 3), np.uint8)] * 3)

    def grab() -> Any:
        return next(taken, None)

    with _source(grab, live=False) as source:
        assert [source.read().index for _ in range(3)] == [0, 1, 2]
        with pytest.raises(CameraLost, match="gone after 3"):
            source.read()
        with pytest.raises(CameraLost, match="gone after 3"):
            source.read()


def test_driver_exception_becomes_camera_lost() -> None:
    def grab() -> Any:
        raise OSError("VIDIOC_DQBUF: No such device")

    with _source(grab) as source, pytest.raises(CameraLost, match="No such device"):
        source.read()


def test_live_source_hands_out_the_newest_frame() -> None:
    count = iter(range(10_000))

    def grab() -> Any:
        time.sleep(0.002)
        return np.full((4, 4, 3), next(count) % 256, np.uint8)

    with _source(grab) as source:
        first = source.read()
        time.sleep(0.1)
        later = source.read()
    # Frames taken while nobody read were dropped, not queued up.
    assert later.index - first.index > 5


def test_closed_source_says_so() -> None:
    source = _source(lambda: np.zeros((4, 4, 3), np.uint8))
    source.read()
    source.close()
    source.close()
    with pytest.raises(CameraLost, match="closed"):
        source.read()


def test_camera_off_is_unavailable_with_the_fallback_named() -> None:
    with pytest.raises(SourceUnavailable, match="typed in"):
        open_source("off", settings=Settings())
