"""The device stack from settings: simulated tower, camera and chute board, GPIO, all off."""

from __future__ import annotations

import queue
import time
from pathlib import Path

import cv2
import numpy as np

from companion.core.cubes import Counts
from companion.core.events import SetupDrop
from companion.core.simulate import Simulator
from companion.core.state import GameState, Stage
from companion.devices.drops import cubes_to_drop
from companion.devices.health import Health, SourceHealth
from companion.devices.readings import DropReading, Outcome, Timing
from companion.devices.simtower import Landing, SimulatedTower, TowerEvent
from companion.devices.stack import Devices
from companion.settings import Settings

FAST = Timing(sensor_quiet_s=0.3, nothing_out_s=0.8, camera_wait_s=3.0)


def setup_drop_state() -> GameState:
    """A fresh two-player game waiting for the set-up drop."""
    simulator = Simulator(2, 0)
    while simulator.game.state.stage is not Stage.SETUP_DROP:
        simulator.step()
    return simulator.game.state


def wait_until_ready(devices: Devices, *sources: str, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        health = devices.health()
        if all(health[s].state is Health.OK for s in sources):  # type: ignore[index]
            return
        time.sleep(0.05)
    raise AssertionError(f"devices not ready: {devices.health()}")


def test_simulated_tower_camera_sensor_and_mock_buttons(tmp_path: Path) -> None:
    settings = Settings.model_validate(
        {
            "camera": {"source": "sim", "width": 640, "height": 480},
            "sensor": {"backend": "sim"},
            "gpio": {"backend": "mock", "button_bounce_s": 0},
        }
    )
    readings: queue.Queue[DropReading] = queue.Queue()
    presses: list[str] = []
    tower = SimulatedTower(seed=3)
    landings: list[Landing] = []

    def landed(event: TowerEvent) -> None:
        if isinstance(event, Landing):
            landings.append(event)

    tower.subscribe(landed)
    devices = Devices(
        settings,
        readings.put,
        on_next=lambda: presses.append("next"),
        on_undo=lambda: presses.append("undo"),
        tower=tower,
        workdir=tmp_path,
        timing=FAST,
    )
    with devices:
        assert devices.simulated and (devices.camera_kind, devices.sensor_kind) == ("sim", "sim")
        wait_until_ready(devices, "camera", "sensor", "gpio")
        assert devices.panel is not None and devices.panel.light == settings.camera.led_level
        factory = devices.panel.pin_factory
        factory.pin(17).drive_low()
        factory.pin(27).drive_low()
        devices.drop(setup_drop_state())
        reading = readings.get(timeout=30)
    assert presses == ["next", "undo"]
    (truth,) = [landing.landed for landing in landings]
    assert reading.sensor == truth
    assert reading.outcome is not Outcome.ACCEPTED or reading.counts == truth


def test_everything_off_still_reads_by_hand() -> None:
    settings = Settings.model_validate(
        {"camera": {"source": "off"}, "sensor": {"backend": "off"}, "gpio": {"backend": "off"}}
    )
    readings: queue.Queue[DropReading] = queue.Queue()
    health: list[SourceHealth] = []
    with Devices(settings, readings.put, health.append, timing=FAST) as devices:
        assert not devices.simulated
        devices.drop(setup_drop_state())
        reading = readings.get(timeout=5)
        status = devices.health()
    assert reading.outcome is Outcome.MANUAL
    assert status["gpio"].state is Health.OFF and "on-screen" in status["gpio"].message
    assert status["camera"].state is Health.OFF and status["sensor"].state is Health.OFF
    assert any(h.source == "gpio" for h in health)


def test_real_camera_without_a_profile_says_how_to_calibrate(tmp_path: Path) -> None:
    clip = tmp_path / "tray.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    settings = Settings.model_validate(
        {"camera": {"source": str(clip)}, "sensor": {"backend": "off"}, "gpio": {"backend": "off"}}
    )
    health: list[SourceHealth] = []
    with Devices(settings, lambda _r: None, health.append) as devices:
        assert devices.camera_kind == "real"
        deadline = time.monotonic() + 5
        while "calibrat" not in devices.health()["camera"].message:
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        camera = devices.health()["camera"]
    assert camera.state is Health.OFF
    assert "companion calibrate" in camera.message


def test_simulated_tower_follows_the_game_when_counts_were_typed_differently(
    tmp_path: Path,
) -> None:
    settings = Settings.model_validate(
        {"camera": {"source": "off"}, "sensor": {"backend": "sim"}, "gpio": {"backend": "off"}}
    )
    simulator = Simulator(2, 0)
    while simulator.game.state.stage is not Stage.SETUP_DROP:
        simulator.step()
    readings: queue.Queue[DropReading] = queue.Queue()
    with Devices(settings, readings.put, workdir=tmp_path, timing=FAST) as devices:
        wait_until_ready(devices, "sensor")
        devices.drop(simulator.game.state)
        readings.get(timeout=30)
        # The person typed other counts than fell: the game believes 30 came out.
        typed = Counts.from_tuple([5, 5, 4, 4, 4, 4, 4])
        simulator.game.apply(SetupDrop(counts=typed))
        while simulator.game.state.stage is not Stage.DROP:
            simulator.step()
        state = simulator.game.state
        assert devices.tower is not None
        landings: list[Landing] = []
        devices.tower.subscribe(lambda e: landings.append(e) if isinstance(e, Landing) else None)
        devices.drop(state)
        readings.get(timeout=30)
    # The tower dropped from what the game believes was inside, not from its own first result.
    (landing,) = landings
    believed = Counts.from_tuple(list(state.tower))
    assert landing.inside_after.plus(landing.landed) == believed.plus(cubes_to_drop(state))


def _sensor_only(tmp_path: Path, calibration: Path) -> Settings:
    return Settings.model_validate(
        {
            "camera": {"source": "off"},
            "sensor": {"backend": "sim", "calibration": str(calibration)},
            "gpio": {"backend": "off"},
        }
    )


def test_the_owners_chute_calibration_is_sent_to_the_board(tmp_path: Path) -> None:
    from companion.devices.chute.calibration import TYPICAL_RGBC, ChuteCalibration

    # The owner's cubes read darker than the typical values: the reader must use theirs.
    darker = {colour: [tuple(v // 2 for v in rgbc)] for colour, rgbc in TYPICAL_RGBC.items()}
    owners = ChuteCalibration.from_samples(darker)  # type: ignore[arg-type]
    path = tmp_path / "chute.json"
    owners.save(path)
    with Devices(_sensor_only(tmp_path, path), lambda _r: None, workdir=tmp_path) as devices:
        reader = devices._chute_reader
        assert reader is not None
        assert reader.calibration == owners != ChuteCalibration.default()


def test_an_unreadable_chute_calibration_is_reported_and_the_sensor_still_counts(
    tmp_path: Path,
) -> None:
    from companion.devices.chute.calibration import ChuteCalibration

    path = tmp_path / "chute.json"
    path.write_text("{not json")
    health: list[SourceHealth] = []
    with Devices(
        _sensor_only(tmp_path, path), lambda _r: None, health.append, workdir=tmp_path
    ) as devices:
        deadline = time.monotonic() + 5
        while not any(str(path) in h.message for h in health) and time.monotonic() < deadline:
            time.sleep(0.02)
        reader = devices._chute_reader
        assert reader is not None and reader.calibration == ChuteCalibration.default()
    assert any(h.source == "sensor" and str(path) in h.message for h in health)
