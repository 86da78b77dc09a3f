"""The reader's per-cube hook: each cube event's colour index and raw reading, as they arrive."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core.cubes import COLOURS, Colour
from companion.devices.chute import cubeproto
from companion.devices.chute.calibration import TYPICAL_RGBC
from companion.devices.chute.reader import ChuteReader, LinkState
from companion.devices.chute.simdevice import SimulatedChute
from companion.devices.chute.tracker import ChuteReading

Cube = tuple[int, tuple[int, int, int, int]]


class Cubes:
    """Cube events posted by the reader thread, with waiting."""

    def __init__(self) -> None:
        self.seen: list[Cube] = []
        self._cond = threading.Condition()

    def cube(self, index: int, rgbc: tuple[int, int, int, int]) -> None:
        with self._cond:
            self.seen.append((index, rgbc))
            self._cond.notify_all()

    def wait_for(self, n: int, timeout_s: float = 5.0) -> list[Cube]:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.seen) >= n, timeout_s):
                raise AssertionError(f"only {len(self.seen)} of {n} cube events arrived")
            return list(self.seen)


def _ignore(reading: ChuteReading) -> None:
    del reading


@pytest.fixture
def board(tmp_path: Path) -> Iterator[SimulatedChute]:
    dev = SimulatedChute(tmp_path / "ttyCHUTE", heartbeat_s=0.2)
    dev.plug()
    yield dev
    dev.stop()


def _online_reader(board: SimulatedChute, cubes: Cubes) -> ChuteReader:
    reader = ChuteReader(
        _ignore, port=str(board.link), offline_after_s=1.0, settle_s=0.2, on_cube=cubes.cube
    )
    reader.start()
    deadline = time.monotonic() + 5.0
    while not (reader.status.state is LinkState.ONLINE and reader.status.calibrated):
        assert time.monotonic() < deadline, f"reader never calibrated: {reader.status}"
        time.sleep(0.02)
    return reader


def test_each_cube_event_gives_its_colour_index_and_raw_reading(board: SimulatedChute) -> None:
    cubes = Cubes()
    reader = _online_reader(board, cubes)
    try:
        board.feed([(Colour.BROWN, 0.0), (Colour.WHITE, 0.05)])
        board.feed_unknown(0.1)
        seen = cubes.wait_for(3)
    finally:
        reader.stop()
    assert seen == [
        (COLOURS.index(Colour.BROWN), TYPICAL_RGBC[Colour.BROWN]),
        (COLOURS.index(Colour.WHITE), TYPICAL_RGBC[Colour.WHITE]),
        (cubeproto.NO_COLOUR, (200, 200, 20, 500)),  # the simulator's unrecognisable cube
    ]


def test_a_damaged_event_is_not_passed_on_and_a_failing_hook_stops_nothing(
    tmp_path: Path,
) -> None:
    # A slow heartbeat: the next frame the board sends after the link is up is the first cube's.
    board = SimulatedChute(tmp_path / "ttyQUIET", heartbeat_s=30.0)
    board.plug()
    cubes = Cubes()
    calls = 0

    def flaky(index: int, rgbc: tuple[int, int, int, int]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("a consumer bug")
        cubes.cube(index, rgbc)

    reader = ChuteReader(_ignore, port=str(board.link), settle_s=0.2, on_cube=flaky)
    reader.start()
    try:
        deadline = time.monotonic() + 5.0
        while reader.status.state is not LinkState.ONLINE:
            assert time.monotonic() < deadline, f"reader never online: {reader.status}"
            time.sleep(0.02)
        time.sleep(0.3)  # the board answers the calibration the reader sent on HELLO
        board.garble_frames(1)  # red's event arrives damaged: a CRC error and no hook call
        board.feed([(Colour.RED, 0.0), (Colour.GREEN, 0.1), (Colour.BLUE, 0.2)])
        seen = cubes.wait_for(1)
        assert reader.status.crc_errors == 1
    finally:
        reader.stop()
        board.stop()
    # Green's call raised (the first call that happened); blue still came through.
    assert calls == 2
    assert seen == [(COLOURS.index(Colour.BLUE), TYPICAL_RGBC[Colour.BLUE])]
