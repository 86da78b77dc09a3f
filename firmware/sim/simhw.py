"""Simulated hardware for the unix port: a TCS34725 on an I2C bus, a break-beam pin, an LED.

The bus emulates the sensor's registers (id, enable, timing, gain, status, data), so the real
driver in tcs34725.py runs unchanged against it. What the sensor sees and when the beam is broken
come from one Scene: the cubes falling past, each with its true colour.
"""

import time

TYPE_CHECKING = False  # MicroPython has no typing module; the names below are for readers
if TYPE_CHECKING:
    from collections.abc import Callable

# Raw (red, green, blue, clear) counts each cube colour gives at 2.4 ms and gain 16, indexed in
# action-circuit order (blue, black, red, brown, green, yellow, white). The host's default
# calibration is built from the same kind of readings.
CUBE_RGBC = (
    (60, 110, 230, 390),
    (35, 38, 34, 105),
    (300, 70, 65, 430),
    (130, 85, 60, 270),
    (70, 190, 100, 360),
    (380, 330, 110, 810),
    (330, 350, 330, 990),
)
STRANGE_RGBC = (200, 200, 20, 500)  # a colour that is no cube's: the firmware must reject it
EMPTY_RGBC = (10, 11, 10, 25)  # the dark, empty chute
_REF_CYCLES = 1
_REF_GAIN = 16
_GAINS = (1, 4, 16, 60)


class Scene:
    """Cubes passing the sensor: (start ms on the ticks_ms clock, duration ms, rgbc)."""

    def __init__(self) -> None:
        self.cubes = []
        self.noise = 12345

    def add(self, start: int, duration: int, rgbc) -> None:
        self.cubes.append([start, duration, rgbc, False])  # False: its edge not yet signalled

    def arrivals(self, t: int) -> list:
        """Start times of the cubes that reached the beam by `t` since the last call."""
        out = []
        for cube in self.cubes:
            if not cube[3] and time.ticks_diff(t, cube[0]) >= 0:
                cube[3] = True
                out.append(cube[0])
        return out

    def _current(self, t: int) -> "tuple | None":
        for start, duration, rgbc, _ in self.cubes:
            if time.ticks_diff(t, start) >= 0 and time.ticks_diff(t, start) < duration:
                return rgbc
        return None

    def forget_before(self, t: int) -> None:
        """Drop cubes that finished before `t` (keeps the list short)."""
        self.cubes = [c for c in self.cubes if time.ticks_diff(time.ticks_add(c[0], c[1]), t) > 0]

    def broken(self, t: int) -> bool:
        return self._current(t) is not None

    def rgbc(self, t: int) -> list:
        """What the sensor integrates at `t`, with a few per cent of repeatable noise."""
        base = self._current(t)
        if base is None:
            base = EMPTY_RGBC
        out = []
        for v in base:
            self.noise = (self.noise * 1103515245 + 12345) & 0x7FFFFFFF
            out.append(max(0, v + v * ((self.noise >> 8) % 61 - 30) // 1000))
        return out


class SimTCS34725Bus:
    """An I2C bus with one TCS34725 at 0x29 (machine.I2C's readfrom_mem/writeto_mem)."""

    ADDRESS = 0x29

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.regs = bytearray(0x20)
        self.regs[0x01] = 0xFF
        self.regs[0x12] = 0x44
        self.aen_at = None
        self.fail_until = None

    def fail_for(self, ms: int) -> None:
        """Make every transfer fail (like a loose cable) for `ms` milliseconds."""
        self.fail_until = time.ticks_add(time.ticks_ms(), ms)

    def _check(self, addr: int) -> None:
        if self.fail_until is not None:
            if time.ticks_diff(self.fail_until, time.ticks_ms()) > 0:
                raise OSError(5)
            self.fail_until = None
        if addr != self.ADDRESS:
            raise OSError(5)  # nobody acknowledges the address

    def _update(self) -> None:
        if self.aen_at is None:
            return
        cycles = 256 - self.regs[0x01]
        period_us = cycles * 2400
        now = time.ticks_ms()
        done = time.ticks_diff(now, self.aen_at) * 1000 // period_us
        if done < 1:
            return
        self.regs[0x13] |= 0x01
        end = time.ticks_add(self.aen_at, done * period_us // 1000)
        gain = _GAINS[self.regs[0x0F] & 0x03]
        full = min(65535, 1024 * cycles)
        r, g, b, c = self.scene.rgbc(end)
        values = (c, r, g, b)
        for i in range(4):
            v = min(full, values[i] * cycles * gain // (_REF_CYCLES * _REF_GAIN))
            self.regs[0x14 + 2 * i] = v & 0xFF
            self.regs[0x15 + 2 * i] = v >> 8

    def readfrom_mem(self, addr: int, memaddr: int, n: int) -> bytes:
        self._check(addr)
        if not memaddr & 0x80:
            raise OSError(5)  # without the command bit the chip would not know the register
        self._update()
        reg = memaddr & 0x1F
        if memaddr & 0x20:
            return bytes(self.regs[reg : reg + n])
        return bytes([self.regs[reg]] * n)

    def writeto_mem(self, addr: int, memaddr: int, buf: bytes) -> None:
        self._check(addr)
        if not memaddr & 0x80:
            raise OSError(5)
        reg = memaddr & 0x1F
        for byte in buf:
            if reg == 0x00:
                was = self.regs[0] & 0x03 == 0x03
                now_on = byte & 0x03 == 0x03
                if now_on and not was:
                    self.aen_at = time.ticks_ms()
                elif not now_on:
                    self.aen_at = None
                    self.regs[0x13] &= 0xFE
            self.regs[reg] = byte
            if memaddr & 0x20:
                reg += 1


class SimBeamPin:
    """The break-beam receiver: reads 0 while a cube is in the beam; its falling-edge IRQ fires
    once per cube, even for a cube that has already passed (the hardware latches edges)."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.handler = None
        self.edge_ms = 0

    def value(self) -> int:
        return 0 if self.scene.broken(time.ticks_ms()) else 1

    def irq(self, handler: "Callable[[SimBeamPin], None]", trigger: int = 2) -> None:
        self.handler = handler

    def poll(self) -> None:
        """Run the handler for every cube that arrived since the last poll (the interrupt).

        `edge_ms` holds the edge's own time while the handler runs: on the board the handler
        runs within microseconds of the edge, here it may run a loop turn later.
        """
        for start in self.scene.arrivals(time.ticks_ms()):
            self.edge_ms = start
            if self.handler is not None:
                self.handler(self)


class SimLed:
    """The status LED: remembers its level and how often it changed."""

    def __init__(self) -> None:
        self.level = 0
        self.changes = 0

    def value(self, v: int) -> None:
        if v != self.level:
            self.changes += 1
        self.level = v
