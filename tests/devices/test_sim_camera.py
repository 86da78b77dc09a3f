"""The simulated camera: the simulated tower's tray through the renderer, with camera faults."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.core.cubes import COLOURS, Counts
from companion.devices.frames import (
    CameraLost,
    FrameSource,
    FrameTimeout,
    SourceUnavailable,
    open_source,
)
from companion.devices.readings import cubes_may_hide
from companion.devices.sim_camera import (
    SimulatedCamera,
    calibrate_simulated,
    write_calibration_pictures,
)
from companion.devices.simtower import FaultKind, SimulatedTower, TowerModel
from companion.devices.tray_render import render
from companion.settings import Settings
from companion.vision import Profile, calibrate, read_tray
from companion.vision.settle import SettledReading, Settler, Status, StatusChange

SIZE = (320, 240)


def change(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels whose blurred grey level differs by more than sensor noise does."""
    grey = [cv2.GaussianBlur(cv2.cvtColor(x, cv2.COLOR_BGR2GRAY), (5, 5), 0) for x in (a, b)]
    return float(np.mean(cv2.absdiff(grey[0], grey[1]) > 25))


def test_open_source_sim_shows_the_given_tower() -> None:
    tower = SimulatedTower(seed=1)
    with open_source("sim", settings=Settings(), size=SIZE, tower=tower) as source:
        assert isinstance(source, FrameSource)
        frame = source.read()
        assert frame.size == SIZE
        assert frame.index == 0
        assert source.read().index == 1


def test_cubes_roll_in_then_lie_still() -> None:
    # Every cube leaves at once, so the camera sees them land straight away.
    model = TowerModel(stick=0, first_exit_s=0, gap_s=(0, 0))
    tower = SimulatedTower(seed=1, model=model)
    with SimulatedCamera(tower, size=SIZE, rolling_frames=6) as camera:
        empty = camera.read().image
        tower.drop(Counts(red=4, white=3))
        rolling = [camera.read().image for _ in range(6)]
        still = [camera.read().image for _ in range(3)]
    noise = change(still[0], still[1])
    assert noise < 0.001
    assert change(empty, still[0]) > 0.01
    assert max(change(a, b) for a, b in itertools.pairwise(rolling)) > 0.002


def test_cubes_are_seen_only_after_they_left_the_tower() -> None:
    tower = SimulatedTower(seed=1, model=TowerModel(stick=0, first_exit_s=0.3))
    with SimulatedCamera(tower, size=SIZE, rolling_frames=2) as camera:
        empty = camera.read().image
        tower.drop(Counts(blue=5))
        assert change(empty, camera.read().image) < 0.001
        time.sleep(0.6)
        camera.read()
        camera.read()
        assert change(empty, camera.read().image) > 0.005


def test_a_hand_spreads_the_heaped_set_up_drop_and_the_camera_counts_every_cube() -> None:
    # Tower seed 0's set-up drop leaves 36 cubes in the tray, some heaped out of the camera's
    # sight; spread apart by hand, every one shows. Every cube leaves the tower at once, so
    # the frames, and what vision makes of them, do not depend on the machine's speed.
    tower = SimulatedTower(seed=0, model=TowerModel(first_exit_s=0, gap_s=(0, 0)))
    setup_seed, profile = calibrate_simulated(tower, (640, 480))
    settler = Settler(profile)
    with SimulatedCamera(tower, size=(640, 480), setup_seed=setup_seed) as camera:

        def watch(frames: int) -> list[SettledReading | StatusChange]:
            events: list[SettledReading | StatusChange] = []
            for _ in range(frames):
                frame = camera.read()
                events += settler.feed(frame.image, frame.index / 15)
            return events

        watch(8)
        tower.drop(Counts.full())
        dropped = [e for e in watch(30) if isinstance(e, SettledReading)]
        tower.spread()
        after = watch(30)
    truth = tower.tray
    assert truth.total == 36
    assert len(dropped) == 1 and dropped[0].reading.counts != truth
    assert cubes_may_hide(dropped[0].reading.reasons)
    assert any(isinstance(e, StatusChange) and e.status is Status.HAND for e in after)
    spread = [e for e in after if isinstance(e, SettledReading)]
    assert len(spread) == 1 and spread[0].moved_by_hand
    assert spread[0].reading.counts == truth


def test_the_simulated_calibration_spreads_each_colours_cubes_as_the_guide_asks() -> None:
    # Dropped in a heap, only 2 of the 5 blue, black, red and brown cubes lay alone, and red's
    # "one cube" was a clump of 546 (a lone cube: about 100).
    _, profile = calibrate_simulated(SimulatedTower(seed=0), (800, 600))
    assert min(model.cubes_seen for model in profile.colours.values()) >= 4
    assert max(model.cube_area for model in profile.colours.values()) < 150


def _calibrated_from_heaps(camera: SimulatedCamera) -> Profile:
    """A profile from calibration pictures whose five cubes a colour were dropped in a heap,
    not spread as the guide asks: the colours are learned from the two or three lying alone."""
    empty = render(camera.base).image
    colours = {
        colour: render(camera.base.with_counts(Counts.of({colour: 5}), seed=900 + i)).image
        for i, colour in enumerate(COLOURS)
    }
    return calibrate(empty, colours)


def test_the_spread_tray_reads_the_same_in_frame_after_frame() -> None:
    # The spread tray at the app's 800x600, calibrated from heaps: on its white print with
    # orange dots a dozen shadow and dot-edge pixels held each blue level from 132 to 155, and
    # the level mapping took each such level's median from them alone. It jumped with each
    # frame's noise (136 mapped to 149 in one frame, 156 in another), and lone blue cubes in
    # full view, near the edge of a model learned from two cubes, were missed: 14 of these
    # 20 frames were read right (54 of 80 in a longer run). Such sparse levels are now
    # matched with their neighbours' pixels: 18 (72 of 80).
    size = (800, 600)
    tower = SimulatedTower(seed=0, model=TowerModel(first_exit_s=0, gap_s=(0, 0)))
    with SimulatedCamera(tower, size=size, setup_seed=0) as camera:
        profile = _calibrated_from_heaps(camera)
        settler = Settler(profile)
        tower.drop(Counts.full())
        tower.spread()
        # (At 15 frames a second the hand and the spread settle well within 100 frames.)
        settled = False
        for _ in range(100):
            frame = camera.read()
            events = settler.feed(frame.image, frame.index / 15)
            if any(isinstance(e, SettledReading) for e in events):
                settled = True
                break
        assert settled
        still = [camera.read().image for _ in range(20)]
    right = sum(read_tray(image, profile).counts == tower.tray for image in still)
    assert right >= 17


def test_camera_unplugged_by_a_fault_then_replugged() -> None:
    tower = SimulatedTower()
    camera = SimulatedCamera(tower, size=SIZE)
    camera.read()
    tower.inject(FaultKind.CAMERA_LOST)
    with pytest.raises(CameraLost, match="plug it back in"):
        camera.read()
    with pytest.raises(CameraLost):
        camera.read()
    camera.close()
    with pytest.raises(SourceUnavailable, match="unplugged"):
        SimulatedCamera(tower, size=SIZE)
    tower.inject(FaultKind.CAMERA_BACK)
    with SimulatedCamera(tower, size=SIZE) as again:
        assert again.read().size == SIZE


def test_stalled_camera_times_out_until_it_is_back() -> None:
    tower = SimulatedTower()
    with SimulatedCamera(tower, size=SIZE) as camera:
        camera.read()
        tower.inject(FaultKind.CAMERA_STALLED)
        assert tower.camera_connected and tower.camera_stalled
        started = time.monotonic()
        with pytest.raises(FrameTimeout, match="stalled"):
            camera.read(timeout=0.2)
        assert 0.15 < time.monotonic() - started < 2
        tower.inject(FaultKind.CAMERA_BACK)
        assert not tower.camera_stalled
        assert camera.read(timeout=0.2).size == SIZE


def test_closed_camera_stops_following_the_tower() -> None:
    tower = SimulatedTower()
    camera = SimulatedCamera(tower, size=SIZE)
    camera.close()
    with pytest.raises(CameraLost, match="closed"):
        camera.read()
    tower.drop(Counts.full())


def test_demo_drops_by_itself() -> None:
    with SimulatedCamera(size=SIZE, fps=None, demo_every_s=0, rolling_frames=2) as camera:
        assert "demo" in camera.description
        camera.read()
        camera.read()
        assert camera.tower.drops == 2


def test_fps_paces_frames() -> None:
    with SimulatedCamera(SimulatedTower(), size=SIZE, fps=20) as camera:
        started = time.monotonic()
        frames = [camera.read() for _ in range(5)]
    assert time.monotonic() - started >= 0.18
    assert frames[-1].timestamp - frames[0].timestamp >= 0.18


def test_calibration_pictures_feed_companion_calibrate(tmp_path: Path) -> None:
    folder = write_calibration_pictures(tmp_path / "cal", size=(640, 480), setup_seed=0)
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(["empty.png", *(f"{c.value}.png" for c in COLOURS)])
    profile = tmp_path / "profile.json"
    assert main(["calibrate", str(folder), "--out", str(profile)]) == 0
    assert profile.stat().st_size > 0
