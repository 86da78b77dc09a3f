"""A simulated chute board in this process, on a pseudo-terminal, speaking the real protocol.

For laptops and the app's simulated tower (no MicroPython or socat needed): the host reader opens
`link` exactly as it opens the real board. Cubes come from the simulated tower's exits (colour and
seconds); faults are injected on demand: lost and garbled frames, garbage, a stall, a restart
(new boot id), a colour-sensor fault, unplug and replug. The firmware itself runs under real
MicroPython in firmware_sim; this device keeps the same wire behaviour with no sampling.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import secrets
import select
import threading
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path

from companion.core.cubes import COLOURS, Colour
from companion.devices.chute import cubeproto
from companion.devices.chute.calibration import TYPICAL_RGBC
from companion.devices.chute.firmware_sim import CubeExit
from companion.devices.simtower import (
    FaultEvent,
    FaultKind,
    Landing,
    SimulatedTower,
    TowerEvent,
)

log = logging.getLogger(__name__)

FIRMWARE = "sim-0.1.0"


class SimulatedChute:
    """The simulated board. `plug()` creates the pty at `link`; `unplug()` removes it.

    `heartbeat_s`: seconds between HB frames. `clock`: monotonic seconds. Thread-safe: every
    public method may be called from any thread while the device runs.
    """

    def __init__(
        self,
        link: Path,
        *,
        heartbeat_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.link = link
        self._heartbeat_s = heartbeat_s
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._cal: cubeproto.CalTable | None = None  # kept across restarts, like flash
        self._queue: list[tuple[float, Colour | None]] = []
        self._drop = 0
        self._garble = 0
        self._stall_until = 0.0
        self._sensor_ok = True
        self.cube_times: list[float] = []
        """Clock time at which each cube passed the beam, in order."""
        self._boot()

    # ---- life cycle ----

    def _boot(self) -> None:
        self.boot = secrets.token_hex(4)
        self._seq = 0
        self._tot = [0] * len(COLOURS)
        self._rej = 0
        self._started = self._clock()
        self._last_hb = self._started
        self._last_reset: str | None = None
        self._inbuf = bytearray()

    def plug(self) -> None:
        """Create the pty and point `link` at it; starts the device thread on first use."""
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            flags = fcntl.fcntl(master, fcntl.F_GETFL)
            # Never block on a full pty: a USB CDC device drops output nobody reads.
            fcntl.fcntl(master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(os.ttyname(slave))
            tmp.replace(self.link)
            self._master, self._slave = master, slave
            self._boot()  # a replugged board has powered up again
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sim-chute", daemon=True)
            self._thread.start()

    def unplug(self) -> None:
        """Remove the pty: the host's port fails as when a USB cable is pulled."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self.link.unlink(missing_ok=True)

    def stop(self) -> None:
        """Unplug and end the device thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        with self._lock:
            self._close()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    # ---- cubes and faults ----

    def feed(self, exits: Iterable[CubeExit | tuple[Colour, float]]) -> None:
        """Schedule cubes: each passes the beam `at_s` seconds from now."""
        now = self._clock()
        with self._lock:
            for e in exits:
                colour, at_s = e if isinstance(e, tuple) else (e.colour, e.at_s)
                self._queue.append((now + at_s, colour))
            self._queue.sort(key=lambda item: item[0])

    def feed_unknown(self, at_s: float = 0.0) -> None:
        """A cube whose colour matches no calibrated colour (it will be rejected)."""
        with self._lock:
            self._queue.append((self._clock() + at_s, None))
            self._queue.sort(key=lambda item: item[0])

    def drop_frames(self, n: int) -> None:
        """Lose the next `n` frames on the way to the host."""
        with self._lock:
            self._drop += n

    def garble_frames(self, n: int) -> None:
        """Damage one character in each of the next `n` frames (the host sees CRC errors)."""
        with self._lock:
            self._garble += n

    def send_garbage(self, data: bytes) -> None:
        """Write bytes that are not a frame (a traceback, line noise)."""
        with self._lock:
            self._write_raw(data)

    def stall(self, seconds: float) -> None:
        """Freeze: no output for `seconds` (cubes are still counted, and reported afterwards)."""
        with self._lock:
            self._stall_until = self._clock() + seconds

    def restart(self) -> None:
        """A reset mid-game: new boot id, totals from zero; the calibration is kept."""
        with self._lock:
            self._boot()

    def set_sensor_ok(self, ok: bool) -> None:
        """Colour sensor fault on/off: while off, cubes are counted without colour."""
        with self._lock:
            if self._sensor_ok and not ok:
                self._send(cubeproto.ERR, [("code", "sensor")])
            self._sensor_ok = ok

    def attach(self, tower: SimulatedTower) -> Callable[[], None]:
        """Follow a simulated tower: its exits become cubes at the beam, its sensor faults unplug
        and replug this board. Returns the function that detaches it."""

        def listen(event: TowerEvent) -> None:
            # A hand spreading the tray's cubes passes nothing through the beam.
            if isinstance(event, Landing):
                self.feed(event.exits)
            elif isinstance(event, FaultEvent) and event.kind is FaultKind.SENSOR_LOST:
                self.unplug()
            elif isinstance(event, FaultEvent) and event.kind is FaultKind.SENSOR_BACK:
                self.plug()

        return tower.subscribe(listen)

    @property
    def totals(self) -> tuple[int, ...]:
        """The board's own running totals per colour (since its last boot)."""
        with self._lock:
            return tuple(self._tot)

    # ---- the device thread ----

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                master = self._master
            if master is None:
                time.sleep(0.01)
                self._tick()
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.002)
            except (OSError, ValueError):
                continue  # unplugged while waiting
            if ready:
                self._read()
            self._tick()

    def _read(self) -> None:
        with self._lock:
            if self._master is None:
                return
            try:
                data = os.read(self._master, 4096)
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EIO):
                    log.warning("simulated chute: reading the pty failed: %s", error)
                return
            if self._clock() < self._stall_until:
                return
            self._inbuf += data
            while (end := self._inbuf.find(b"\n")) >= 0:
                line = bytes(self._inbuf[: end + 1])
                del self._inbuf[: end + 1]
                self._command(line)

    def _tick(self) -> None:
        with self._lock:
            now = self._clock()
            while self._queue and self._queue[0][0] <= now:
                _, colour = self._queue.pop(0)
                if self._master is None:
                    continue  # unplugged means unpowered: the cube passes uncounted
                self._cube(colour)
                self.cube_times.append(now)
            if now - self._last_hb >= self._heartbeat_s:
                self._last_hb = now
                self._heartbeat(now)

    def _cube(self, colour: Colour | None) -> None:
        rgbc = TYPICAL_RGBC[colour] if colour is not None else (200, 200, 20, 500)
        index, conf = cubeproto.NO_COLOUR, 0
        if self._sensor_ok and self._cal is not None:
            index, conf = self._cal.classify(rgbc)
        if not self._sensor_ok:
            rgbc = (0, 0, 0, 0)
        if index == cubeproto.NO_COLOUR:
            self._rej += 1
        else:
            self._tot[index] += 1
        self._send(
            cubeproto.EVT,
            [
                ("c", "-" if index == cubeproto.NO_COLOUR else str(index)),
                ("rgbc", cubeproto.format_uints(rgbc)),
                ("conf", str(conf)),
                *self._state(),
            ],
        )

    def _state(self) -> list[tuple[str, str]]:
        return [("tot", cubeproto.format_uints(self._tot)), ("rej", str(self._rej))]

    def _cal_id(self) -> str:
        return str(self._cal.table_id()) if self._cal is not None else "0"

    def _heartbeat(self, now: float) -> None:
        self._send(
            cubeproto.HB,
            [
                ("up", str(int((now - self._started) * 1000))),
                ("cal", self._cal_id()),
                ("sens", "1" if self._sensor_ok else "0"),
                *self._state(),
            ],
        )

    def _command(self, line: bytes) -> None:
        try:
            frame = cubeproto.decode(line)
        except cubeproto.ProtocolError:
            self._send(cubeproto.ERR, [("code", "badline")])
            return
        if frame.kind == cubeproto.SYNC:
            self._send(
                cubeproto.HELLO,
                [
                    ("proto", str(cubeproto.VERSION)),
                    ("fw", FIRMWARE),
                    ("cal", self._cal_id()),
                    *self._state(),
                ],
            )
        elif frame.kind == cubeproto.PING:
            self._heartbeat(self._clock())
        elif frame.kind == cubeproto.CAL:
            try:
                self._cal = cubeproto.CalTable.from_fields(frame.fields)
                ok = "1"
            except cubeproto.ProtocolError:
                ok = "0"
            self._send(cubeproto.ACK, [("id", frame.fields.get("id", "0")), ("ok", ok)])
        elif frame.kind == cubeproto.RESET:
            cmd = frame.fields["id"]
            if cmd != self._last_reset:
                self._last_reset = cmd
                self._tot = [0] * len(COLOURS)
                self._rej = 0
            self._send(cubeproto.ACK, [("id", cmd), ("ok", "1"), *self._state()])
        else:
            self._send(cubeproto.ERR, [("code", "unknown")])

    def _send(self, kind: str, fields: list[tuple[str, str]]) -> None:
        if self._clock() < self._stall_until:
            return  # a frozen board sends nothing and numbers nothing
        line = cubeproto.encode(kind, self._seq, [("boot", self.boot), *fields])
        self._seq = cubeproto.next_seq(self._seq)
        if self._drop:
            self._drop -= 1
            return
        if self._garble:
            self._garble -= 1
            damaged = bytearray(line)
            middle = len(damaged) // 2
            damaged[middle] = ord("!") if damaged[middle] != ord("!") else ord("?")
            line = bytes(damaged)
        self._write_raw(line)

    def _write_raw(self, data: bytes) -> None:
        if self._master is None:
            return
        try:
            os.write(self._master, data)
        except OSError as error:
            # EAGAIN: nobody reads and the pty is full; EIO: no reader. USB CDC drops it too.
            if error.errno not in (errno.EAGAIN, errno.EIO):
                log.warning("simulated chute: writing the pty failed: %s", error)
