"""The chute's logic: count cubes at the break-beam, colour them with the sensor, talk to the host.

Hardware comes in through tiny seams, so the same code runs on the RP2040 and on the unix port:
- `sensor`: a TCS34725 (init, period_ms, full_scale, read_raw), OSError on bus faults;
- `beam`: the break-beam receiver's pin, `value()` 0 while a cube is in the beam;
- `led`: anything with `value(0|1)`;
- `write`: a function taking one encoded line (bytes);
- `store`: a CalStore (the calibration kept in flash);
- the beam's falling edge (a cube arrives) calls `beam_broke(t_ms)` from the pin interrupt. The
  edge is latched by the hardware, so even a cube too quick for the main loop is counted; the
  end of a cube is the beam reading clear again in the main loop.
Time is MicroPython's `time.ticks_ms()` clock, passed into `step(now)`.
"""

import time

import cubeproto as P

TYPE_CHECKING = False  # MicroPython has no typing module; the names below are for readers
if TYPE_CHECKING:
    from collections.abc import Callable

    import machine
    import tcs34725

FW_VERSION = "0.1.0"
HEARTBEAT_MS = 1000
DEBOUNCE_MS = 3  # breaks closer than this are one cube (two cubes cannot pass that close)
SENSOR_RETRY_MS = 1000
FLASH_MS = 60  # the status LED blinks off this long for every cube counted


class CalStore:
    """The calibration table kept in a file in flash (littlefs on the RP2040)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def load(self) -> "P.CalTable | None":
        """The stored table, or None when there is none or it is damaged."""
        try:
            with open(self.path) as f:
                return P.CalTable.from_text(f.read())
        except (OSError, P.ProtocolError):
            return None

    def save(self, table: "P.CalTable") -> None:
        """Write the table so that the next boot starts with it."""
        tmp = self.path + ".new"
        with open(tmp, "w") as f:
            f.write(table.to_text() + "\n")
        import os

        os.rename(tmp, self.path)  # a power cut leaves either the old table or the new one


class StatusLed:
    """Blink patterns: steady on = ready; slow blink = no calibration; short pulse every second =
    no host yet; fast blink = colour sensor fault. Every counted cube blinks it off briefly."""

    def __init__(self, pin: "machine.Pin") -> None:
        self.pin = pin
        self.state = -1
        self.flash_until = None

    def flash(self, now: int) -> None:
        self.flash_until = time.ticks_add(now, FLASH_MS)

    def show(self, now: int, mode: str) -> None:
        """Drive the pin for `mode` ('ok', 'nocal', 'wait', 'fault') at time `now` (ms)."""
        phase = now % 1000
        if mode == "fault":
            on = (now // 100) % 2 == 0
        elif mode == "wait":
            on = phase < 100
        elif mode == "nocal":
            on = phase < 500
        else:
            on = True
        if self.flash_until is not None:
            if time.ticks_diff(self.flash_until, now) > 0:
                on = not on
            else:
                self.flash_until = None
        value = 1 if on else 0
        if value != self.state:
            self.state = value
            self.pin.value(value)


class Chute:
    """Counts cubes per colour since boot and reports them in every frame it sends."""

    def __init__(
        self,
        sensor: "tcs34725.TCS34725",
        beam: "machine.Pin",
        led: "machine.Pin",
        write: "Callable[[bytes], object]",
        store: CalStore,
        boot: str,
        now: int,
    ) -> None:
        self.sensor = sensor
        self.beam = beam
        self.led = StatusLed(led)
        self.write = write
        self.store = store
        self.boot = boot
        self.start = now
        self.seq = 0
        self.tot = [0] * P.N_COLOURS
        self.rej = 0
        self.cal = store.load()
        self.synced = False
        self.last_reset_id = None
        self.breaks = []  # t_ms of each falling edge, appended by the pin interrupt
        self.last_break = None
        self.broken = False
        self.best = None  # the sample most unlike the empty chute during this break
        self.best_d = -1
        self.background = None
        self.sensor_ok = False
        self.sensor_retry = now
        self.last_sample = now
        self.last_hb = now
        self.samples = 0

    # ---- output ----

    def send(self, kind: str, fields: list, state: tuple = ()) -> None:
        """Encode and write one frame; sequence numbers count every frame sent since boot."""
        # MicroPython has no [*a, *b]: build the list by extending it.
        full = [("boot", self.boot)]
        full.extend(fields)
        full.extend(state)
        line = P.encode(kind, self.seq, full)
        self.seq = P.next_seq(self.seq)
        self.write(line)

    def _state_fields(self) -> tuple:
        return (("tot", P.format_uints(self.tot)), ("rej", str(self.rej)))

    def _cal_id(self) -> str:
        return str(self.cal.table_id()) if self.cal is not None else "0"

    def hello(self) -> None:
        self.send(
            P.HELLO,
            [("proto", str(P.VERSION)), ("fw", FW_VERSION), ("cal", self._cal_id())],
            self._state_fields(),
        )

    def heartbeat(self, now: int) -> None:
        self.send(
            P.HB,
            [
                ("up", str(time.ticks_diff(now, self.start))),
                ("cal", self._cal_id()),
                ("sens", "1" if self.sensor_ok else "0"),
            ],
            self._state_fields(),
        )
        self.last_hb = now

    # ---- input ----

    def beam_broke(self, t: int) -> None:
        """A cube broke the beam at `t` (ms). Safe to call from an interrupt."""
        self.breaks.append(t)

    def on_line(self, line: bytes, now: int) -> None:
        """Act on one line from the host; a bad line is answered with ERR code=badline."""
        try:
            frame = P.decode(line)
        except P.ProtocolError:
            self.send(P.ERR, [("code", "badline")])
            return
        kind = frame.kind
        if kind == P.SYNC:
            self.synced = True
            self.hello()
        elif kind == P.PING:
            self.heartbeat(now)
        elif kind == P.RESET:
            self._reset(frame)
        elif kind == P.CAL:
            self._calibrate(frame)
        else:
            self.send(P.ERR, [("code", "unknown")])

    def _reset(self, frame: P.Frame) -> None:
        try:
            cmd = frame.uint("id", P.MAX_SEQ)
        except P.ProtocolError:
            self.send(P.ERR, [("code", "badline")])
            return
        # A retried RESET carries the same id and must not zero cubes counted since the first.
        if cmd != self.last_reset_id:
            self.last_reset_id = cmd
            self.tot = [0] * P.N_COLOURS
            self.rej = 0
        self.send(P.ACK, [("id", str(cmd)), ("ok", "1")], self._state_fields())

    def _calibrate(self, frame: P.Frame) -> None:
        cmd = frame.fields.get("id", "0")
        try:
            table = P.CalTable.from_fields(frame.fields)
            self.store.save(table)
        except (P.ProtocolError, OSError):
            self.send(P.ACK, [("id", cmd), ("ok", "0")])
            return
        self.cal = table
        self.send(P.ACK, [("id", cmd), ("ok", "1")])

    # ---- the main loop's work ----

    def step(self, now: int) -> None:
        """Sample the sensor, settle beam edges into counted cubes, send the heartbeat, drive
        the LED. Call it as often as possible (every millisecond or faster)."""
        while self.breaks:
            t = self.breaks.pop(0)
            if self.last_break is not None and time.ticks_diff(t, self.last_break) < DEBOUNCE_MS:
                continue  # the receiver's edge bounced: still the same cube
            self.last_break = t
            if self.broken:
                self._cube_done(t)  # the next cube came before we saw the beam clear
            self.broken = True
            self.best = None
            self.best_d = -1
        self._sample(now)
        if self.broken and not self.breaks and self.beam.value() == 1:
            self._cube_done(now)
        if time.ticks_diff(now, self.last_hb) >= HEARTBEAT_MS:
            self.heartbeat(now)
        if not self.sensor_ok:
            mode = "fault"
        elif self.cal is None:
            mode = "nocal"
        elif not self.synced:
            mode = "wait"
        else:
            mode = "ok"
        self.led.show(now, mode)

    def _sample(self, now: int) -> None:
        if not self.sensor_ok:
            if time.ticks_diff(now, self.sensor_retry) < 0:
                return
            try:
                self.sensor.init()
            except OSError:
                self.sensor_retry = time.ticks_add(now, SENSOR_RETRY_MS)
                return
            self.sensor_ok = True
            self.last_sample = now
            return
        if time.ticks_diff(now, self.last_sample) < self.sensor.period_ms():
            return
        try:
            rgbc = self.sensor.read_raw()
        except OSError:
            self.sensor_ok = False
            self.sensor_retry = time.ticks_add(now, SENSOR_RETRY_MS)
            self.send(P.ERR, [("code", "sensor")])
            return
        self.last_sample = now
        self.samples += 1
        f = P.features(rgbc, self.sensor.full_scale())
        if self.beam.value() != 0:
            if not self.broken:
                self.background = f
            return
        if (
            self.last_break is not None
            and time.ticks_diff(now, self.last_break) < 2 * self.sensor.period_ms()
        ):
            # The chip reports its last *completed* integration: only one that began after the
            # cube arrived shows the cube and nothing but the cube.
            return
        # While a cube breaks the beam the spot may catch its edge or the empty chute; the
        # sample furthest from the empty chute is the most cube there is.
        d = P.distance(f, self.background) if self.background is not None else 0
        if d > self.best_d:
            self.best_d = d
            self.best = rgbc

    def _cube_done(self, t: int) -> None:
        self.broken = False
        rgbc = self.best
        self.best = None
        self.best_d = -1
        colour = P.NO_COLOUR
        conf = 0
        if rgbc is not None and self.cal is not None:
            colour, conf = self.cal.classify(rgbc)
        if colour == P.NO_COLOUR:
            self.rej += 1
        else:
            self.tot[colour] += 1
        self.led.flash(t)
        self.send(
            P.EVT,
            [
                ("c", "-" if colour == P.NO_COLOUR else str(colour)),
                ("rgbc", P.format_uints(rgbc if rgbc is not None else (0, 0, 0, 0))),
                ("conf", str(conf)),
            ],
            self._state_fields(),
        )
