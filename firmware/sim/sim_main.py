"""The chute firmware on the unix port, on simulated hardware, with scripted cubes and faults.

    micropython sim_main.py SCRIPT FLASH_DIR [LOG]

stdin/stdout are the USB serial link (socat puts a pty there). SCRIPT has one command per line,
`<ms after the host's first SYNC> <command> [args]`, `#` starts a comment:

    cube C [MS]      a cube of colour index C (0..6, or `x` for no cube colour) breaks the beam
                     for MS ms (default 10)
    garbage TEXT     write TEXT as a line that is not a frame (like a traceback on the REPL)
    noise N          write N bytes of binary junk without a newline
    garble N         flip one character in each of the next N frames (CRC errors)
    drop N           lose the next N frames (lost lines)
    stall MS         freeze: no output, no input, for MS ms
    sensorfail MS    the colour sensor's bus fails for MS ms
    reset            restart the firmware: new boot id, totals back to zero, calibration kept
    unplug           exit (socat then closes the pty, as a USB unplug does)

FLASH_DIR keeps the calibration between runs (the board's flash). LOG, when given, receives
`cube <index> <time_ns>` when each cube has passed, for latency measurements.
"""

import os
import sys
import time

import chute
import hostlink
import simhw
import tcs34725

TYPE_CHECKING = False  # MicroPython has no typing module; the names below are for readers
if TYPE_CHECKING:
    import io

DEFAULT_CUBE_MS = 10  # a free-falling cube is in view 5 to 13 ms (hardware notes)


class FaultyOut:
    """The link to the host, with the faults the script asks for."""

    def __init__(self, stream: "io.BufferedWriter") -> None:
        self.stream = stream
        self.drop = 0
        self.garble = 0

    def write(self, line: bytes) -> None:
        if self.drop > 0:
            self.drop -= 1
            return
        if self.garble > 0:
            self.garble -= 1
            data = bytearray(line)
            i = len(data) // 2
            data[i] = 0x21 if data[i] != 0x21 else 0x22  # still printable: only the CRC can tell
            line = bytes(data)
        self.stream.write(line)


def load_script(path: str) -> list:
    """(ms, command, args) sorted by time."""
    steps = []
    with open(path) as f:
        for raw in f:
            text = raw.split("#")[0].strip()
            if not text:
                continue
            words = text.split(" ", 2)
            args = words[2] if len(words) > 2 else ""
            steps.append((int(words[0]), words[1], args))
    steps.sort(key=lambda s: s[0])
    return steps


def new_boot() -> str:
    return "{:08x}".format(int.from_bytes(os.urandom(4), "big"))


def main() -> None:
    script = load_script(sys.argv[1])
    store = chute.CalStore(sys.argv[2] + "/cal.txt")
    log = open(sys.argv[3], "a") if len(sys.argv) > 3 else None  # noqa: SIM115 (open until exit)
    scene = simhw.Scene()
    bus = simhw.SimTCS34725Bus(scene)
    beam = simhw.SimBeamPin(scene)
    led = simhw.SimLed()
    out = FaultyOut(sys.stdout.buffer)
    link = hostlink.LineIn(sys.stdin.buffer, sys.stdin)

    def boot(now: int) -> chute.Chute:
        logic = chute.Chute(tcs34725.TCS34725(bus), beam, led, out.write, store, new_boot(), now)
        beam.irq(lambda pin: logic.beam_broke(pin.edge_ms), 2)
        return logic

    logic = boot(time.ticks_ms())
    origin = None
    pending_log = []
    while True:
        now = time.ticks_ms()
        while origin is not None and script and time.ticks_diff(now, origin) >= script[0][0]:
            at, command, args = script.pop(0)
            if command == "cube":
                parts = args.split()
                rgbc = simhw.STRANGE_RGBC if parts[0] == "x" else simhw.CUBE_RGBC[int(parts[0])]
                duration = int(parts[1]) if len(parts) > 1 else DEFAULT_CUBE_MS
                start = time.ticks_add(origin, at)
                scene.add(start, duration, rgbc)
                pending_log.append((time.ticks_add(start, duration), parts[0]))
            elif command == "garbage":
                out.stream.write(args.encode() + b"\n")
            elif command == "noise":
                out.stream.write(bytes((i * 37 + 128) & 0xFF for i in range(int(args))))
            elif command == "garble":
                out.garble += int(args)
            elif command == "drop":
                out.drop += int(args)
            elif command == "stall":
                time.sleep_ms(int(args))
            elif command == "sensorfail":
                bus.fail_for(int(args))
            elif command == "reset":
                logic = boot(time.ticks_ms())
            elif command == "unplug":
                raise SystemExit(0)
            else:
                raise SystemExit("unknown script command: " + command)
        beam.poll()
        if log is not None:
            while pending_log and time.ticks_diff(now, pending_log[0][0]) >= 0:
                end, colour = pending_log.pop(0)
                # Wall-clock time of the cube's clear edge, not of this (later) loop turn.
                at_ns = time.time_ns() - time.ticks_diff(time.ticks_ms(), end) * 1_000_000
                log.write("cube " + colour + " " + str(at_ns) + "\n")
                log.flush()
        line = link.poll()
        if link.closed:
            raise SystemExit(0)
        if line is not None:
            if origin is None and line.startswith(b"CT1 SYNC "):
                origin = now
            logic.on_line(line, now)
        logic.step(now)
        scene.forget_before(time.ticks_add(now, -100))
        time.sleep_ms(1)


main()
