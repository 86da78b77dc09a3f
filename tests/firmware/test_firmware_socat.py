"""End to end: the firmware under real MicroPython, behind a socat pty pair, and the host reader.

socat and micropython must be installed (system-packages.txt, the dev extras); without them
these tests fail with a message saying what to install. They never skip.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.core.cubes import Counts
from companion.devices.chute.firmware_sim import FirmwareSimBoard, Step, cube_steps
from companion.devices.chute.reader import ChuteReader, ChuteStatus, LinkState
from companion.devices.chute.tracker import ChuteReading
from companion.devices.simtower import SimulatedTower, TowerModel


class Collector:
    def __init__(self) -> None:
        self.readings: list[ChuteReading] = []
        self.statuses: list[ChuteStatus] = []
        self._lock = threading.Lock()

    def reading(self, reading: ChuteReading) -> None:
        with self._lock:
            self.readings.append(reading)

    def status(self, status: ChuteStatus) -> None:
        with self._lock:
            self.statuses.append(status)

    def settled(self) -> list[ChuteReading]:
        with self._lock:
            return [r for r in self.readings if r.settled]

    def wait(self, what: str, predicate: Callable[[], bool], timeout_s: float = 8.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                with self._lock:
                    seen = [(str(r.counts), r.unknown, r.settled) for r in self.readings]
                    last = self.statuses[-1] if self.statuses else None
                raise AssertionError(f"timed out waiting for {what}; readings {seen}; {last}")
            time.sleep(0.02)

    def drop(self, counts: Counts) -> Callable[[], bool]:
        return lambda: any(r.counts == counts for r in self.settled())


@pytest.fixture
def board(tmp_path: Path) -> Iterator[FirmwareSimBoard]:
    b = FirmwareSimBoard(tmp_path)
    yield b
    b.stop()


@pytest.fixture
def got() -> Collector:
    return Collector()


def _reader(board: FirmwareSimBoard, got: Collector, offline_after_s: float = 3.0) -> ChuteReader:
    return ChuteReader(
        got.reading,
        got.status,
        port=str(board.link),
        offline_after_s=offline_after_s,
        settle_s=0.3,
        backoff_s=(0.05, 0.2),
    )


def test_a_game_through_garbage_crc_errors_lost_lines_and_a_reset(
    board: FirmwareSimBoard, got: Collector
) -> None:
    board.start(
        [
            Step(300, "cube", "2 40"),
            Step(360, "cube", "0 40"),
            Step(420, "cube", "2 40"),
            Step(480, "cube", "6 40"),
            Step(1500, "garbage", "Traceback (most recent call last):"),
            Step(1510, "noise", "300"),
            Step(1520, "garbage", "MicroPython v1.29.0 on 2026-01-01; Raspberry Pi Pico"),
            Step(1600, "garble", "2"),
            Step(1650, "cube", "4 40"),
            Step(1710, "cube", "4 40"),
            Step(1770, "drop", "1"),
            Step(1800, "cube", "5 40"),
            Step(3000, "cube", "1 40"),
            Step(3060, "reset"),
            Step(3150, "cube", "1 40"),
            Step(3210, "cube", "3 40"),
        ]
    )
    reader = _reader(board, got)
    reader.start()
    try:
        got.wait("drop 1", got.drop(Counts(red=2, blue=1, white=1)))
        first = got.settled()[0]
        assert first.confidence > 0.6 and first.unknown == 0
        assert reader.status.calibrated is True and reader.status.firmware == "0.1.0"

        got.wait("drop 2", got.drop(Counts(green=2, yellow=1)))
        second = got.settled()[1]
        assert second.confidence <= 0.9
        status = reader.status
        assert status.crc_errors == 2
        assert status.garbage_lines >= 2
        assert status.lost_frames == 3  # two garbled frames and one dropped

        got.wait("drop 3", got.drop(Counts(black=2, brown=1)))
        third = got.settled()[2]
        assert third.confidence == 0.5
        assert any("restarted" in reason for reason in third.reasons)
        assert third.totals == Counts(blue=1, black=2, red=2, brown=1, green=2, yellow=1, white=1)
        assert reader.status.restarts == 1 and reader.status.state is LinkState.ONLINE
    finally:
        reader.stop()


def test_unplug_and_replug_mid_game(board: FirmwareSimBoard, got: Collector) -> None:
    board.start([Step(300, "cube", "5 40"), Step(360, "cube", "6 40"), Step(1500, "unplug")])
    reader = _reader(board, got)
    reader.start()
    try:
        got.wait("drop 1", got.drop(Counts(yellow=1, white=1)))
        got.wait("unplugged", lambda: reader.status.state is LinkState.OFFLINE)
        assert "unplugged" in reader.status.message
        board.stop()
        time.sleep(0.3)  # the reader knocks on a port that is not there
        board.start([Step(300, "cube", "0 40"), Step(360, "cube", "0 40")])
        got.wait("drop 2", got.drop(Counts(blue=2)))
        final = got.settled()[-1]
        assert final.totals == Counts(blue=2, yellow=1, white=1)
        # The calibration stayed in the board's flash: no reason to doubt the colours.
        assert final.confidence > 0.6
        assert reader.status.reconnects >= 1 and reader.status.restarts == 1
    finally:
        reader.stop()


def test_a_stalled_board_is_offline_until_it_speaks_again(
    board: FirmwareSimBoard, got: Collector
) -> None:
    board.start([Step(200, "stall", "1800"), Step(2500, "cube", "3 40")])
    reader = _reader(board, got, offline_after_s=1.0)
    reader.start()
    try:
        got.wait("offline", lambda: reader.status.state is LinkState.OFFLINE)
        assert "no word from the chute sensor" in reader.status.message
        got.wait("online again", lambda: reader.status.state is LinkState.ONLINE)
        got.wait("the cube after the stall", got.drop(Counts(brown=1)))
    finally:
        reader.stop()


def test_the_simulated_towers_exits_drive_the_real_firmware(
    board: FirmwareSimBoard, got: Collector
) -> None:
    # Cubes at least 60 ms apart, each 40 ms in the beam: room for a busy CI machine to sample.
    tower = SimulatedTower(seed=7, model=TowerModel(gap_s=(0.06, 0.12)))
    landing = tower.drop(Counts(blue=2, black=2, green=3))
    assert landing.landed.total > 0
    board.start(cube_steps(landing.exits, start_ms=300, beam_ms=40))
    reader = _reader(board, got)
    reader.start()
    try:
        got.wait("the tower's drop", got.drop(landing.landed))
        assert len(board.cube_times_ns()) == landing.landed.total
    finally:
        reader.stop()
