"""Board entry point (RP2040): wire the real pins, I2C bus and USB serial to the chute logic.

Pins follow hardware/ (wiring table): TCS34725 on I2C0 (SDA GP4, SCL GP5), break-beam receiver
on GP15 (open collector, low while a cube breaks the beam), status LED on the board's LED pin.
"""

import os
import sys
import time

import chute
import hostlink
import micropython
import tcs34725
from machine import I2C, Pin

I2C_ID = 0
SDA_PIN = 4
SCL_PIN = 5
BEAM_PIN = 15
I2C_HZ = 400_000


def run() -> None:
    """Count cubes forever; only a power cut or mpremote's Ctrl-C stops it."""
    micropython.alloc_emergency_exception_buf(100)
    i2c = I2C(I2C_ID, sda=Pin(SDA_PIN), scl=Pin(SCL_PIN), freq=I2C_HZ)
    sensor = tcs34725.TCS34725(i2c)
    led = Pin("LED", Pin.OUT)
    beam = Pin(BEAM_PIN, Pin.IN, Pin.PULL_UP)
    boot = "{:08x}".format(int.from_bytes(os.urandom(4), "big"))
    out = sys.stdout.buffer
    store = chute.CalStore("cal.txt")
    logic = chute.Chute(sensor, beam, led, out.write, store, boot, time.ticks_ms())
    # Only the falling edge interrupts: it is latched even when the cube has already gone by the
    # time the handler runs; the main loop sees the cube leave by reading the pin.
    beam.irq(lambda pin: logic.beam_broke(time.ticks_ms()), Pin.IRQ_FALLING)
    link = hostlink.LineIn(sys.stdin.buffer, sys.stdin)
    while True:
        now = time.ticks_ms()
        line = link.poll()
        if line is not None:
            logic.on_line(line, now)
        logic.step(now)


run()
