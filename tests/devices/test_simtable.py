"""End to end: a seeded game read by the devices through camera and sensor loss ends exactly
as the same game with the true counts applied."""

from __future__ import annotations

import pytest

from companion.core.cubes import Counts
from companion.devices.health import Health
from companion.devices.readings import Outcome, Timing
from companion.devices.simtable import play_clean, play_with_devices
from companion.devices.simtower import FaultKind, FaultPlan, SimulatedTower, TowerModel

# Camera lost for drops 6-11, sensor lost for drops 10-13: drops 6-9 rely on the sensor,
# 10-11 on the person, 12-13 on the camera; the camera stalls (open, but no frames) for drops
# 20-21. Strays fall after drops 3 and 15, a bump after 8.
FAULTS = FaultPlan(
    device={
        6: (FaultKind.CAMERA_LOST,),
        10: (FaultKind.SENSOR_LOST,),
        12: (FaultKind.CAMERA_BACK,),
        14: (FaultKind.SENSOR_BACK,),
        20: (FaultKind.CAMERA_STALLED,),
        22: (FaultKind.CAMERA_BACK,),
    },
    stray_after=frozenset({3, 15}),
    bump_after=frozenset({8}),
)
PLAYERS, GAME_SEED, TOWER_SEED = 2, 1, 4
# Cubes leave the tower quicker than the default model says, to keep the test short; the
# draws are the same, so the landings are too.
QUICK = TowerModel(first_exit_s=0.05, gap_s=(0.01, 0.05))


def test_clean_game_keeps_the_engine_and_the_tower_in_step() -> None:
    tower = SimulatedTower(seed=TOWER_SEED, model=QUICK, faults=FAULTS)
    game = play_clean(PLAYERS, GAME_SEED, tower)
    assert game.state.finished
    assert Counts.from_tuple(list(game.state.tower)) == tower.inside
    again = play_clean(
        PLAYERS, GAME_SEED, SimulatedTower(seed=TOWER_SEED, model=QUICK, faults=FAULTS)
    )
    assert again.to_json() == game.to_json()


@pytest.mark.slow
def test_game_through_sensor_loss_without_camera_ends_as_the_clean_game() -> None:
    # The path that needs no vision: the chute sensor, and the person when it is lost.
    clean = play_clean(
        PLAYERS, GAME_SEED, SimulatedTower(seed=TOWER_SEED, model=QUICK, faults=FAULTS)
    )
    report = play_with_devices(
        PLAYERS,
        GAME_SEED,
        tower_seed=TOWER_SEED,
        model=QUICK,
        faults=FAULTS,
        camera=False,
        timing=Timing(sensor_quiet_s=0.3, nothing_out_s=0.8, camera_wait_s=3.0),
    )
    assert report.wrong_accepted == 0, report.wrong
    assert report.game.to_json() == clean.to_json()
    during_sensor_loss = [
        r for r in report.readings if r.kind == "drop" and 11 <= report.tower_drops[r.drop] <= 13
    ]
    assert during_sensor_loss and all(r.outcome is Outcome.MANUAL for r in during_sensor_loss)
    assert report.by_source.get("camera", 0) == 0
    assert report.accepted > 20


@pytest.mark.slow
def test_game_through_camera_and_sensor_loss_ends_as_the_clean_game() -> None:
    clean = play_clean(
        PLAYERS, GAME_SEED, SimulatedTower(seed=TOWER_SEED, model=QUICK, faults=FAULTS)
    )
    report = play_with_devices(
        PLAYERS,
        GAME_SEED,
        tower_seed=TOWER_SEED,
        model=QUICK,
        faults=FAULTS,
        size=(400, 300),
        timing=Timing(sensor_quiet_s=0.4, nothing_out_s=1.0, camera_wait_s=4.0),
    )
    assert report.wrong_accepted == 0, report.wrong
    assert report.game.to_json() == clean.to_json()
    # Every path was taken: the sensor alone, the person typing, strays noticed by a device.
    assert report.by_source.get("sensor", 0) > 0
    assert report.typed > 0
    assert any(r.kind == "stray" for r in report.readings)
    during_camera_loss = [
        r for r in report.readings if r.kind == "drop" and 7 <= report.tower_drops[r.drop] <= 9
    ]
    assert during_camera_loss and all(r.source == "sensor" for r in during_camera_loss)
    lost = {(h.source, h.state) for h in report.health}
    assert ("camera", Health.OFFLINE) in lost and ("sensor", Health.OFFLINE) in lost
    last = {h.source: h.state for h in report.health}
    assert last == {"camera": Health.OK, "sensor": Health.OK}
