"""Whole games at the simulated table where the players spread the tray's cubes whenever the
reading says some may lie hidden: how often the camera's counts were right before and after.

The devices are the app's own (simulated camera through vision's Settler, the reading
service, and the simulated chute board unless `--no-sensor`); the simulated person spreads
the cubes (`SimulatedTower.spread`), waits for the second look, and answers with the truth.
Prints per game the drops read, how many were spread, and the camera right before and after.

    .venv/bin/python benchmarks/spread_game.py [--games N] [--no-sensor]
"""

from __future__ import annotations

import argparse
import time

from companion.devices.readings import Timing
from companion.devices.simtable import play_with_devices
from companion.devices.simtower import TowerModel

# Cubes leave the tower quicker than a real one lets them, to keep a game to minutes.
QUICK = TowerModel(first_exit_s=0.05, gap_s=(0.01, 0.05))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games (seeds 1, 2, ...)")
    parser.add_argument("--no-sensor", action="store_true", help="the camera alone")
    args = parser.parse_args()
    spreads: list[tuple[bool, bool]] = []
    looks = 0
    print("game  drops  spread  second looks  camera right before  after  wrong accepted  secs")
    for game in range(1, args.games + 1):
        started = time.monotonic()
        report = play_with_devices(
            2,
            game,
            tower_seed=game + 3,
            model=QUICK,
            sensor=not args.no_sensor,
            spread_when_hidden=True,
            timing=Timing(sensor_quiet_s=0.4, nothing_out_s=1.0, camera_wait_s=4.0),
        )
        print(
            f"{game:4d}  {len(report.tower_drops):5d}  {len(report.spreads):6d}  "
            f"{len(report.second_looks):12d}  {_right(report.spreads, 0):19d}  "
            f"{_right(report.spreads, 1):5d}  {report.wrong_accepted:14d}  "
            f"{time.monotonic() - started:4.0f}"
        )
        spreads += report.spreads
        looks += len(report.second_looks)
    print(
        f"all: {len(spreads)} drops spread, {looks} second looks posted; camera right "
        f"{_right(spreads, 0)} of {len(spreads)} before, {_right(spreads, 1)} after"
    )


def _right(spreads: list[tuple[bool, bool]], when: int) -> int:
    """How many spread drops the camera had right before (`when` 0) or after (1)."""
    return sum(pair[when] for pair in spreads)


if __name__ == "__main__":
    main()
