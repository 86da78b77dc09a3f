"""Chute sensor latency: from the simulated sensor's last cube of a drop to the reading at the host.

Two figures per simulated board, medians over the drops:
- count: the last cube passes the beam -> a reading that includes it reaches the callback;
- settled: the last cube passes -> the drop's final (settled) reading reaches the callback; this
  includes the reader's settle time (no cube for `settle_s`), by design.

Boards: the real firmware under MicroPython behind a socat pty pair (skipped with a note when
micropython or socat is missing), and the in-process CPython simulated board on a pty. Pinned
to one CPU core, as all benchmarks are.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from companion.core.cubes import COLOURS, Colour
from companion.devices.chute.firmware_sim import FirmwareSimBoard, FirmwareSimError, Step
from companion.devices.chute.reader import ChuteReader, LinkState
from companion.devices.chute.simdevice import SimulatedChute
from companion.devices.chute.tracker import ChuteReading

DROPS = 12
CUBES_PER_DROP = 4
CUBE_GAP_MS = 60
DROP_EVERY_MS = 2000
SETTLE_S = 0.8


class Timeline:
    """Readings with the wall-clock time (ns) at which the callback received them."""

    def __init__(self) -> None:
        self.events: list[tuple[int, ChuteReading]] = []
        self.lock = threading.Lock()

    def __call__(self, reading: ChuteReading) -> None:
        with self.lock:
            self.events.append((time.time_ns(), reading))

    def all_settled(self, cubes: int) -> bool:
        """True once a settled reading holds `cubes` cubes in all."""
        with self.lock:
            return any(
                r.settled and r.totals.total + r.unknown_total >= cubes for _, r in self.events
            )

    def latencies(self, last_cube_ns: list[int]) -> tuple[list[float], list[float]]:
        """(count, settled) latencies in ms, one per drop whose readings arrived."""
        counts: list[float] = []
        settled: list[float] = []
        for drop, cube_ns in enumerate(last_cube_ns):
            total = (drop + 1) * CUBES_PER_DROP
            # The clocks agree to about a millisecond: match by count, not by time.
            seen = [(t, r) for t, r in self.events if r.totals.total + r.unknown_total >= total]
            if seen:
                counts.append((seen[0][0] - cube_ns) / 1e6)
            done = [t for t, r in seen if r.settled]
            if done:
                settled.append((done[0] - cube_ns) / 1e6)
        return counts, settled


def _plan(seed: int) -> list[list[Colour]]:
    rng = random.Random(seed)
    return [[rng.choice(COLOURS) for _ in range(CUBES_PER_DROP)] for _ in range(DROPS)]


def _wait_online(reader: ChuteReader, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while reader.status.state is not LinkState.ONLINE or reader.status.calibrated is not True:
        if time.monotonic() > deadline:
            raise SystemExit(f"the simulated board did not come online: {reader.status.message}")
        time.sleep(0.02)


def firmware_board(workdir: Path) -> tuple[list[float], list[float]] | str:
    """Latencies through the real firmware under MicroPython, or why it could not run."""
    plan = _plan(1)
    steps = []
    for d, drop in enumerate(plan):
        for i, colour in enumerate(drop):
            at = 1500 + d * DROP_EVERY_MS + i * CUBE_GAP_MS
            steps.append(Step(at, "cube", f"{COLOURS.index(colour)} 20"))
    try:
        board = FirmwareSimBoard(workdir)
        board.start(steps)
    except FirmwareSimError as error:
        return str(error)
    timeline = Timeline()
    reader = ChuteReader(timeline, port=str(board.link), settle_s=SETTLE_S)
    reader.start()
    try:
        _wait_online(reader)
        time.sleep((1500 + DROPS * DROP_EVERY_MS) / 1000)
        # A busy machine may lag behind the script: wait (a while) for the last drop to settle.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not timeline.all_settled(DROPS * CUBES_PER_DROP):
            time.sleep(0.05)
    finally:
        reader.stop()
        board.stop()
    cube_ns = board.cube_times_ns()
    if len(cube_ns) != DROPS * CUBES_PER_DROP:
        print(f"note: the board logged {len(cube_ns)} of {DROPS * CUBES_PER_DROP} cubes")
    last = [cube_ns[(d + 1) * CUBES_PER_DROP - 1] for d in range(len(cube_ns) // CUBES_PER_DROP)]
    return timeline.latencies(last)


def python_board(workdir: Path) -> tuple[list[float], list[float]]:
    """Latencies through the in-process simulated board."""
    device = SimulatedChute(workdir / "ttySIM")
    device.plug()
    timeline = Timeline()
    reader = ChuteReader(timeline, port=str(device.link), settle_s=SETTLE_S)
    reader.start()
    last: list[int] = []
    try:
        _wait_online(reader)
        for drop in _plan(2):
            device.feed([(colour, i * CUBE_GAP_MS / 1000) for i, colour in enumerate(drop)])
            # The board's clock is monotonic; the last cube's wall time is taken the same way.
            time.sleep((CUBES_PER_DROP - 1) * CUBE_GAP_MS / 1000 + 0.05)
            mono_to_wall = time.time_ns() - int(time.monotonic() * 1e9)
            last.append(int(device.cube_times[-1] * 1e9) + mono_to_wall)
            time.sleep(DROP_EVERY_MS / 1000)
    finally:
        reader.stop()
        device.stop()
    return timeline.latencies(last)


def _report(name: str, result: tuple[list[float], list[float]] | str) -> None:
    if isinstance(result, str):
        print(f"{name}: not measured ({result})")
        return
    counts, settled = result
    print(
        f"{name}: {len(counts)} of {DROPS} drops; last cube -> reading with it: median "
        f"{statistics.median(counts):.1f} ms (max {max(counts):.1f}); -> settled reading: "
        f"median {statistics.median(settled):.0f} ms (settle time {SETTLE_S * 1000:.0f} ms)"
    )


def main() -> int:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "fw").mkdir()
        _report("firmware under MicroPython via socat", firmware_board(work / "fw"))
        _report("CPython simulated board on a pty", python_board(work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
