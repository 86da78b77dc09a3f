"""Checks of the firmware's logic, run by the MicroPython unix port (not by pytest's CPython).

    micropython mp_checks.py CASES_FILE FLASH_DIR

MICROPYPATH must hold the staged board files and firmware/sim. CASES_FILE holds frames encoded
by CPython (kind, seq, fields, line), so both interpreters are held to the same bytes. Any
failed check raises, which exits with status 1; success prints `mp-checks ok <n>`.
"""

import json
import sys
import time

import chute
import cubeproto as P
import simhw
import tcs34725

checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def frames(out, kind=None):
    decoded = [P.decode(line) for line in out]
    return [f for f in decoded if kind is None or f.kind == kind]


# ---- the protocol module gives CPython's bytes ----

check(P.crc16(b"123456789") == 0x29B1, "CRC-16/CCITT-FALSE check value")
with open(sys.argv[1]) as f:
    cases = json.load(f)
for kind, seq, fields, line in cases["good"]:
    pairs = [(k, v) for k, v in fields]
    check(P.encode(kind, seq, pairs) == line.encode(), "encode " + line)
    frame = P.decode(line.encode())
    check(frame.kind == kind and frame.seq == seq, "decode " + line)
    check(len(frame.fields) == len(pairs), "fields of " + line)
for line in cases["bad"]:
    try:
        P.decode(line.encode())
        check(False, "accepted a bad line: " + line)
    except P.ProtocolError:
        check(True, "")
# Damaged and random lines: MicroPython raises only ProtocolError, and agrees with CPython.
for hexline, expected in cases["fuzz"]:
    line = bytes.fromhex(hexline)
    try:
        frame = P.decode(line)
        got = [frame.kind, frame.seq, sorted([[k, v] for k, v in frame.fields.items()])]
    except P.ProtocolError:
        got = "error"
    check(got == expected, "fuzzed line " + hexline)
table = P.CalTable.from_text(cases["cal_text"])
check(table.table_id() == cases["cal_id"], "calibration id as on CPython")
for rgbc, expected in cases["classify"]:
    check(list(table.classify(rgbc)) == expected, "classify " + str(rgbc))

# ---- the TCS34725 driver against the emulated registers ----

scene = simhw.Scene()
bus = simhw.SimTCS34725Bus(scene)
sensor = tcs34725.TCS34725(bus)
sensor.init()
check(sensor.full_scale() == 1024 and sensor.period_ms() == 3, "2.4 ms timing")
time.sleep_ms(5)
check(sensor.valid(), "AVALID after one integration")
r, g, b, c = sensor.read_raw()
check(abs(c - simhw.EMPTY_RGBC[3]) <= 2, "empty chute clear level")
start = time.ticks_add(time.ticks_ms(), 1)
scene.add(start, 300, simhw.CUBE_RGBC[2])
time.sleep_ms(12)
r, g, b, c = sensor.read_raw()
check(abs(r - 300) < 15 and abs(c - 430) < 20, "a red cube in view: " + str((r, g, b, c)))
try:
    tcs34725.TCS34725(bus, address=0x39).init()
    check(False, "a missing chip must raise")
except OSError:
    check(True, "")
bus.regs[0x12] = 0x10
try:
    sensor.init()
    check(False, "a wrong chip id must raise")
except OSError as error:
    check(error.args[0] == 19, "ENODEV for a wrong chip")
bus.regs[0x12] = 0x44
bus16 = simhw.SimTCS34725Bus(scene)
slow = tcs34725.TCS34725(bus16, cycles=4, gain=4)
slow.init()
check(bus16.regs[0x01] == 252 and bus16.regs[0x0F] == 1, "ATIME and gain registers written")
check(slow.full_scale() == 4096 and slow.period_ms() == 10, "9.6 ms timing")

# ---- the chute logic on simulated hardware ----

flash = sys.argv[2] + "/cal.txt"
store = chute.CalStore(flash)
check(store.load() is None, "no calibration in fresh flash")
scene = simhw.Scene()
bus = simhw.SimTCS34725Bus(scene)
beam = simhw.SimBeamPin(scene)
led = simhw.SimLed()
out = []
now = time.ticks_ms()
logic = chute.Chute(tcs34725.TCS34725(bus), beam, led, out.append, store, "abcd", now)
beam.irq(lambda pin: logic.beam_broke(pin.edge_ms))


def run(ms):
    end = time.ticks_add(time.ticks_ms(), ms)
    while time.ticks_diff(end, time.ticks_ms()) > 0:
        beam.poll()
        logic.step(time.ticks_ms())
        time.sleep_ms(1)


sync = P.encode(P.SYNC, 0, [])
logic.on_line(sync.strip(), time.ticks_ms())
hello = frames(out, P.HELLO)[-1]
check(hello.fields["cal"] == "0" and hello.boot() == "abcd", "HELLO before calibration")
run(10)

# Without a calibration a cube is counted, but without a colour.
scene.add(time.ticks_add(time.ticks_ms(), 5), 60, simhw.CUBE_RGBC[2])
run(120)
evt = frames(out, P.EVT)[-1]
check(evt.colour() == P.NO_COLOUR and evt.uint("rej") == 1, "uncalibrated cube rejected")

cal_line = cases["cal_frame"].encode()
logic.on_line(cal_line.strip(), time.ticks_ms())
ack = frames(out, P.ACK)[-1]
check(ack.fields["ok"] == "1" and ack.fields["id"] == str(cases["cal_id"]), "CAL acknowledged")
check(store.load().table_id() == cases["cal_id"], "calibration kept in flash")
run(100)  # past the blink of the last cube
check(led.level == 1, "steady LED when synced and calibrated")

del out[:]
t0 = time.ticks_ms()
for i, colour in enumerate((2, 0, 6, 1, 5)):
    scene.add(time.ticks_add(t0, 10 + 100 * i), 60, simhw.CUBE_RGBC[colour])
scene.add(time.ticks_add(t0, 510), 60, simhw.STRANGE_RGBC)
run(650)
evts = frames(out, P.EVT)
check([e.colour() for e in evts] == [2, 0, 6, 1, 5, P.NO_COLOUR], "colours in order")
check(evts[-1].totals() == [1, 1, 1, 0, 0, 1, 1] and evts[-1].uint("rej") == 2, "totals")
check(all(e.uint("conf") > 600 for e in evts[:-1]), "confident colours")
check([e.seq for e in evts] == list(range(evts[0].seq, evts[0].seq + 6)), "consecutive seq numbers")

# Cubes the main loop never saw in the beam still left their latched edge: each is counted
# (without colour); edges closer than the debounce time are one cube.
del out[:]
t = time.ticks_add(time.ticks_ms(), -30)
logic.beam_broke(t)
logic.beam_broke(time.ticks_add(t, 1))
logic.beam_broke(time.ticks_add(t, 10))
logic.beam_broke(time.ticks_add(t, 20))
logic.step(time.ticks_ms())
check(len(frames(out, P.EVT)) == 3, "three cubes from four edges, one a bounce")
check(frames(out, P.EVT)[-1].uint("rej") == 5, "unseen cubes have no colour")

# A cube the main loop misses entirely (it slept through it) is counted all the same.
del out[:]
scene.add(time.ticks_add(time.ticks_ms(), 2), 5, simhw.CUBE_RGBC[2])
time.sleep_ms(20)
run(10)
check(len(frames(out, P.EVT)) == 1, "a cube that passed during a long pause")

# A loose sensor cable: ERR once, heartbeats say sens=0, cubes still counted; then it recovers.
del out[:]
bus.fail_for(60)
run(10)
check([f.fields["code"] for f in frames(out, P.ERR)] == ["sensor"], "ERR code=sensor")
logic.heartbeat(time.ticks_ms())
check(frames(out, P.HB)[-1].fields["sens"] == "0", "HB reports the sensor fault")
before = led.changes
run(250)
check(led.changes - before >= 2, "the LED blinks fast while the sensor is faulty")
scene.add(time.ticks_add(time.ticks_ms(), 5), 60, simhw.CUBE_RGBC[4])
run(120)
check(frames(out, P.EVT)[-1].colour() == P.NO_COLOUR, "cube during the fault has no colour")
run(1100)  # past the retry time
logic.heartbeat(time.ticks_ms())
check(frames(out, P.HB)[-1].fields["sens"] == "1", "sensor back")
scene.add(time.ticks_add(time.ticks_ms(), 5), 60, simhw.CUBE_RGBC[4])
run(120)
check(frames(out, P.EVT)[-1].colour() == 4, "green after recovery")

# The heartbeat comes every second, on its own.
del out[:]
run(1050)
check(len(frames(out, P.HB)) >= 1, "heartbeat within a second")

# RESET zeroes once per id; a retried RESET does not zero again.
del out[:]
reset = P.encode(P.RESET, 1, [("id", "5")]).strip()
logic.on_line(reset, time.ticks_ms())
check(frames(out, P.ACK)[-1].totals() == [0] * 7, "RESET zeroes")
scene.add(time.ticks_add(time.ticks_ms(), 5), 60, simhw.CUBE_RGBC[3])
run(120)
logic.on_line(reset, time.ticks_ms())
check(frames(out, P.ACK)[-1].totals() == [0, 0, 0, 1, 0, 0, 0], "retried RESET changes nothing")

# Bad input from the host is answered, never fatal.
del out[:]
logic.on_line(b"hello?", time.ticks_ms())
logic.on_line(P.encode("FLY", 2, []).strip(), time.ticks_ms())
bad_cal = P.encode(P.CAL, 3, [("id", "1"), ("rej", "150"), ("cmax", "1024")]).strip()
logic.on_line(bad_cal, time.ticks_ms())
check([f.fields["code"] for f in frames(out, P.ERR)] == ["badline", "unknown"], "ERR replies")
check(frames(out, P.ACK)[-1].fields["ok"] == "0", "a CAL with a wrong id is refused")
check(store.load().table_id() == cases["cal_id"], "the stored table survives a bad CAL")

# A new boot reads the table back from flash.
again = chute.Chute(tcs34725.TCS34725(bus), beam, led, out.append, store, "ef01", time.ticks_ms())
check(again.cal is not None and again.cal.table_id() == cases["cal_id"], "table after reboot")

print("mp-checks ok", checks)
